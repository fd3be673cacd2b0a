"""Java ``DateTimeFormatter`` patterns, time zones and ISO-8601 casts, as ksqlDB applies them.

ksqlDB's date/time functions take Java patterns (``yyyy-MM-dd'T'HH:mm:ss.SSSX``) and Java zone ids. Users
copy them from ksqlDB docs, so we read them with Java's rules: :func:`compile_pattern` translates a pattern
once (``lru_cache``) into a generated Python formatter and a compiled regex parser; the per-record cost is
one f-string-like concatenation or one regex match.

Parsing follows ksqlDB's formatters: case-insensitive (``parseCaseInsensitive``), missing fields default to
1970-01-01T00:00:00.000 (``parseDefaulting``), SMART resolution (day-of-month clamped to the month's length),
a parsed offset beats a parsed zone which beats the function's zone argument, which defaults to UTC.

Casts and ISO-8601 comparisons for the expression compiler (ksqlDB's ``SqlTimeTypes``):

======================================  ===================================================================
``format_timestamp_iso(ms)``            CAST(ts AS STRING): ``2020-01-01T00:00:00.000`` (UTC, always millis)
``parse_timestamp_iso(s)``              CAST(s AS TIMESTAMP), ``ROWTIME > '2020-01-01T00'``: partial strings
                                        are zero-padded, optional zone suffix (``Z``, ``+0100``, ``-05:00``)
``format_date_iso(days)``               CAST(d AS STRING): ``2020-01-01`` (Java ``LocalDate.toString``)
``parse_date_iso(s)``                   CAST(s AS DATE): ``2020-01-01``, partial ``2020-01`` / ``2020``
``format_time_iso(ms)``                 CAST(t AS STRING): Java ``LocalTime.toString``: ``00:00:05``,
                                        ``00:01`` (seconds omitted when zero), ``00:00:00.010``
``parse_time_iso(s)``                   CAST(s AS TIME): ``HH:mm[:ss[.fraction]]``
``timestamp_to_date(ms)`` / ``_time``   CAST(ts AS DATE / TIME) (floor semantics, as ksqlDB's results show)
``date_to_timestamp(days)``             CAST(d AS TIMESTAMP) and DATE vs TIMESTAMP comparisons
======================================  ===================================================================

The ``parse_*`` helpers raise :class:`DateTimeError` (a ``FunctionError``) on bad input; the compiler turns
that into NULL plus a processing-log entry, as ksqlDB does for a failing CAST.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ksqlpy.functions.signatures import FunctionError

MS_PER_DAY = 86_400_000
NANOS_PER_DAY = 86_400_000_000_000
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_NAIVE = datetime(1970, 1, 1)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


class DateTimeError(FunctionError):
    """A value or pattern that ksqlDB's date/time code rejects (KsqlFunctionException there): NULL + processing
    log for that expression, never a stopped query."""


# ---------------------------------------------------------------------------------------------------------
# Time zones (java.time.ZoneId.of)


def _offset_name(seconds: int) -> str:
    """Java's ZoneOffset id: ``Z`` or ``+01:00`` / ``-05:30`` / ``+01:00:30``."""
    if seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    s = abs(seconds)
    text = f"{sign}{s // 3600:02d}:{s // 60 % 60:02d}"
    return text + (f":{s % 60:02d}" if s % 60 else "")


_OFFSET_ID = re.compile(
    r"([+-])(?:(\d)|(\d{2})|(\d{2}):(\d{2})|(\d{2})(\d{2})|(\d{2}):(\d{2}):(\d{2})|(\d{2})(\d{2})(\d{2}))"
)


def _parse_offset_id(text: str) -> int | None:
    """Seconds of a ``ZoneOffset.of`` id (``+h``, ``+hh``, ``+hh:mm``, ``+hhmm``, ``+hh:mm:ss``, ``+hhmmss``)."""
    m = _OFFSET_ID.fullmatch(text)
    if not m:
        return None
    nums = [int(g) for g in m.groups()[1:] if g is not None]
    hours, minutes, secs = (nums + [0, 0])[:3]
    if hours > 18 or minutes > 59 or secs > 59:
        return None
    total = hours * 3600 + minutes * 60 + secs
    if total > 18 * 3600:
        return None
    return -total if m.group(1) == "-" else total


@lru_cache(maxsize=512)
def zone_of(zone_id: str) -> tzinfo:
    """The tzinfo for a Java zone id: region ids (``America/Los_Angeles``), ``UTC``/``GMT``/``UT``, ``Z``,
    offsets (``+01:00``, ``+0100``, ``-5``) and prefixed offsets (``UTC+01:00``, ``GMT-8``).

    Fixed-offset zones carry Java's id as their name so that the ``z`` pattern letter prints what Java prints.
    """
    if zone_id == "Z":
        return timezone(timedelta(0), "Z")
    if zone_id[:1] in ("+", "-"):
        secs = _parse_offset_id(zone_id)
        if secs is None:
            raise DateTimeError(f"Invalid ID for ZoneOffset, invalid format: {zone_id}")
        return timezone(timedelta(seconds=secs), _offset_name(secs))
    for prefix in ("UTC", "GMT", "UT"):
        if zone_id == prefix:
            return timezone(timedelta(0), prefix)
        if zone_id.startswith(prefix) and zone_id[len(prefix)] in "+-":
            secs = _parse_offset_id(zone_id[len(prefix) :])
            if secs is None:
                raise DateTimeError(f"Invalid ID for offset-based ZoneId: {zone_id}")
            name = prefix if secs == 0 else prefix + _offset_name(secs)
            return timezone(timedelta(seconds=secs), name)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9~/._+-]+", zone_id):
        raise DateTimeError(f"Invalid ID for region-based ZoneId, invalid format: {zone_id}")
    try:
        return ZoneInfo(zone_id)
    except (ZoneInfoNotFoundError, ValueError, OSError) as e:
        raise DateTimeError(f"Unknown time-zone ID: {zone_id}") from e


UTC_ZONE = zone_of("UTC")

# Zone names Java's text parser maps to a region (``z`` / ``zzzz``); the region's rules then give the offset
# for the parsed local time (so '... PST' in May is UTC-7, as in ksqlDB).
_ZONE_ABBREVIATIONS: dict[str, str] = {
    "PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "PT": "America/Los_Angeles",
    "MST": "America/Denver", "MDT": "America/Denver", "MT": "America/Denver",
    "CST": "America/Chicago", "CDT": "America/Chicago", "CT": "America/Chicago",
    "EST": "America/New_York", "EDT": "America/New_York", "ET": "America/New_York",
    "AKST": "America/Anchorage", "AKDT": "America/Anchorage", "HST": "Pacific/Honolulu",
    "AST": "America/Halifax", "ADT": "America/Halifax", "NST": "America/St_Johns", "NDT": "America/St_Johns",
    "BST": "Europe/London", "IST": "Asia/Kolkata", "WET": "Europe/Lisbon", "WEST": "Europe/Lisbon",
    "CET": "Europe/Paris", "CEST": "Europe/Paris", "EET": "Europe/Athens", "EEST": "Europe/Athens",
    "MSK": "Europe/Moscow", "JST": "Asia/Tokyo", "KST": "Asia/Seoul", "HKT": "Asia/Hong_Kong",
    "SGT": "Asia/Singapore", "AEST": "Australia/Sydney", "AEDT": "Australia/Sydney",
    "ACST": "Australia/Adelaide", "ACDT": "Australia/Adelaide", "AWST": "Australia/Perth",
    "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland", "SAST": "Africa/Johannesburg",
}  # fmt: skip

_ZONE_FULL_NAMES: dict[str, str] = {
    "PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time",
    "MST": "Mountain Standard Time", "MDT": "Mountain Daylight Time",
    "CST": "Central Standard Time", "CDT": "Central Daylight Time",
    "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time",
    "AKST": "Alaska Standard Time", "AKDT": "Alaska Daylight Time", "HST": "Hawaii-Aleutian Standard Time",
    "GMT": "Greenwich Mean Time", "UTC": "Coordinated Universal Time", "BST": "British Summer Time",
    "IST": "India Standard Time", "WET": "Western European Standard Time", "WEST": "Western European Summer Time",
    "CET": "Central European Standard Time", "CEST": "Central European Summer Time",
    "EET": "Eastern European Standard Time", "EEST": "Eastern European Summer Time",
    "MSK": "Moscow Standard Time", "JST": "Japan Standard Time", "KST": "Korean Standard Time",
    "AEST": "Australian Eastern Standard Time", "AEDT": "Australian Eastern Daylight Time",
}  # fmt: skip

_GENERIC_NAMES: dict[str, tuple[str, str]] = {
    "America/Los_Angeles": ("PT", "Pacific Time"),
    "America/Denver": ("MT", "Mountain Time"),
    "America/Chicago": ("CT", "Central Time"),
    "America/New_York": ("ET", "Eastern Time"),
}


def _zone_from_text(text: str) -> tzinfo:
    """A zone parsed by the ``z``/``zzzz``/``VV``/``v`` letters: an abbreviation, full name, id or offset."""
    upper = text.upper()
    if upper in _ZONE_ABBREVIATIONS:
        return zone_of(_ZONE_ABBREVIATIONS[upper])
    for abbr, full in _ZONE_FULL_NAMES.items():
        if full.upper() == upper:
            return zone_of(_ZONE_ABBREVIATIONS.get(abbr, abbr))
    if upper in ("UTC", "GMT", "UT", "Z"):
        return zone_of(upper)
    for prefix in ("UTC", "GMT", "UT"):
        if upper.startswith(prefix) and upper[len(prefix) : len(prefix) + 1] in ("+", "-"):
            return zone_of(prefix + text[len(prefix) :])
    return zone_of(text)


# ---------------------------------------------------------------------------------------------------------
# Calendar arithmetic (proleptic Gregorian, any year, no datetime range limits)


def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a (valid) proleptic Gregorian date."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count since 1970-01-01."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def _is_leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _month_length(y: int, m: int) -> int:
    if m == 2:
        return 29 if _is_leap(y) else 28
    return 30 if m in (4, 6, 9, 11) else 31


# ---------------------------------------------------------------------------------------------------------
# Pattern lexing


@dataclass
class _Field:
    letter: str
    count: int


@dataclass
class _Literal:
    text: str


@dataclass
class _Optional:
    items: list[Any] = field(default_factory=list)


_KNOWN_LETTERS = set("GuyDMLdQqYwWEecFahKkHmsSAnNVvzOXxZ")
_RESERVED = set("#{}")


def _lex(pattern: str) -> list[Any]:
    """Split a Java pattern into fields, literals and optional sections (DateTimeFormatterBuilder rules)."""
    root: list[Any] = []
    stack: list[list[Any]] = [root]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if ("A" <= c <= "Z") or ("a" <= c <= "z"):
            j = i
            while j < n and pattern[j] == c:
                j += 1
            if c not in _KNOWN_LETTERS:
                raise DateTimeError(f"Unknown pattern letter: {c}")
            stack[-1].append(_Field(c, j - i))
            i = j
        elif c == "'":
            j = i + 1
            buf = []
            while True:
                if j >= n:
                    raise DateTimeError(f"Pattern ends with an incomplete string literal: {pattern}")
                if pattern[j] == "'":
                    if j + 1 < n and pattern[j + 1] == "'":
                        buf.append("'")
                        j += 2
                        continue
                    break
                buf.append(pattern[j])
                j += 1
            stack[-1].append(_Literal("".join(buf) if buf else "'"))
            i = j + 1
        elif c == "[":
            opt = _Optional()
            stack[-1].append(opt)
            stack.append(opt.items)
            i += 1
        elif c == "]":
            if len(stack) == 1:
                raise DateTimeError("Pattern invalid as it contains ] without previous [")
            stack.pop()
            i += 1
        elif c in _RESERVED:
            raise DateTimeError(f"Pattern includes reserved character: '{c}'")
        else:
            stack[-1].append(_Literal(c))
            i += 1
    return root


# ---------------------------------------------------------------------------------------------------------
# Field table: for each letter, its category and how to print and parse it


_MONTHS_FULL = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_MONTHS_SHORT = [m[:3] for m in _MONTHS_FULL]
_MONTHS_NARROW = [m[0] for m in _MONTHS_FULL]
_DAYS_FULL = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_DAYS_SHORT = [d[:3] for d in _DAYS_FULL]
_DAYS_NARROW = [d[0] for d in _DAYS_FULL]
_QUARTERS_FULL = ["1st quarter", "2nd quarter", "3rd quarter", "4th quarter"]
_QUARTERS_SHORT = ["Q1", "Q2", "Q3", "Q4"]
_AMPM = ("AM", "PM")

DATE_FIELDS = "date"
TIME_FIELDS = "time"
ZONE_FIELDS = "zone"

_JAVA_FIELD_NAMES = {
    "G": "Era", "u": "Year", "y": "YearOfEra", "D": "DayOfYear", "M": "MonthOfYear", "L": "MonthOfYear",
    "d": "DayOfMonth", "Q": "QuarterOfYear", "q": "QuarterOfYear", "Y": "WeekBasedYear",
    "w": "WeekOfWeekBasedYear", "W": "WeekOfMonth", "E": "DayOfWeek", "e": "DayOfWeek", "c": "DayOfWeek",
    "F": "AlignedWeekOfMonth", "a": "AmPmOfDay", "h": "ClockHourOfAmPm", "K": "HourOfAmPm",
    "k": "ClockHourOfDay", "H": "HourOfDay", "m": "MinuteOfHour", "s": "SecondOfMinute", "S": "NanoOfSecond",
    "A": "MilliOfDay", "n": "NanoOfSecond", "N": "NanoOfDay", "V": "ZoneId", "v": "ZoneId", "z": "ZoneId",
    "O": "OffsetSeconds", "X": "OffsetSeconds", "x": "OffsetSeconds", "Z": "OffsetSeconds",
}  # fmt: skip


def _category(letter: str) -> str:
    if letter in "GuyDMLdQqYwWEecF":
        return DATE_FIELDS
    if letter in "ahKkHmsSAnN":
        return TIME_FIELDS
    return ZONE_FIELDS


def _too_many(letter: str) -> DateTimeError:
    return DateTimeError(f"Too many pattern letters: {letter}")


# Offset styles (DateTimeFormatterBuilder.appendOffset patterns) for X/x/Z.
_OFFSET_STYLES = {
    ("X", 1): ("+HHmm", "Z"), ("X", 2): ("+HHMM", "Z"), ("X", 3): ("+HH:MM", "Z"),
    ("X", 4): ("+HHMMss", "Z"), ("X", 5): ("+HH:MM:ss", "Z"),
    ("x", 1): ("+HHmm", "+00"), ("x", 2): ("+HHMM", "+0000"), ("x", 3): ("+HH:MM", "+00:00"),
    ("x", 4): ("+HHMMss", "+0000"), ("x", 5): ("+HH:MM:ss", "+00:00"),
    ("Z", 1): ("+HHMM", "+0000"), ("Z", 2): ("+HHMM", "+0000"), ("Z", 3): ("+HHMM", "+0000"),
    ("Z", 5): ("+HH:MM:ss", "Z"),
}  # fmt: skip


def _format_offset(seconds: int, style: str, zero_text: str) -> str:
    if seconds == 0:
        return zero_text
    sign = "-" if seconds < 0 else "+"
    s = abs(seconds)
    hh, mm, ss = s // 3600, s // 60 % 60, s % 60
    colon = ":" if ":" in style else ""
    out = f"{sign}{hh:02d}"
    if style in ("+HH",):
        return out
    if style in ("+HHmm", "+HH:mm"):
        return out + (f"{colon}{mm:02d}" if mm or ss else "")
    out += f"{colon}{mm:02d}"
    if style in ("+HHMMss", "+HH:MM:ss"):
        return out + (f"{colon}{ss:02d}" if ss else "")
    if style in ("+HHMMSS", "+HH:MM:SS"):
        return out + f"{colon}{ss:02d}"
    return out


def _format_localized_offset(seconds: int, full: bool) -> str:
    """Java's ``O`` (GMT+8, GMT+5:30) and ``OOOO`` / ``ZZZZ`` (GMT+08:00)."""
    if seconds == 0:
        return "GMT"
    sign = "-" if seconds < 0 else "+"
    s = abs(seconds)
    hh, mm, ss = s // 3600, s // 60 % 60, s % 60
    if full:
        return f"GMT{sign}{hh:02d}:{mm:02d}" + (f":{ss:02d}" if ss else "")
    out = f"GMT{sign}{hh}"
    if mm or ss:
        out += f":{mm:02d}" + (f":{ss:02d}" if ss else "")
    return out


def _offset_seconds(d: datetime) -> int:
    off = d.utcoffset()
    return 0 if off is None else int(off.total_seconds())


def _zone_id(d: datetime) -> str:
    tz = d.tzinfo
    if isinstance(tz, ZoneInfo):
        return tz.key
    return d.tzname() or "Z"


def _zone_short(d: datetime) -> str:
    name = d.tzname() or "Z"
    return name


def _zone_full(d: datetime) -> str:
    name = _zone_short(d)
    return _ZONE_FULL_NAMES.get(name, name)


def _zone_generic(d: datetime, full: bool) -> str:
    key = _zone_id(d)
    names = _GENERIC_NAMES.get(key)
    if names is None:
        return key
    return names[1] if full else names[0]


def _week_fields_us(d: date) -> tuple[int, int]:
    """(week-based-year, week-of-week-based-year) for Locale.US: weeks start Sunday, week 1 holds Jan 1."""
    d = date(d.year, d.month, d.day)
    start = d - timedelta(days=(d.weekday() + 1) % 7)
    wby = (start + timedelta(days=6)).year
    jan1 = date(wby, 1, 1)
    week1 = jan1 - timedelta(days=(jan1.weekday() + 1) % 7)
    return wby, (start - week1).days // 7 + 1


def _week_of_month_us(d: date) -> int:
    first = date(d.year, d.month, 1)
    return (d.day - 1 + (first.weekday() + 1) % 7) // 7 + 1


_HELPERS: dict[str, Any] = {
    "_MF": _MONTHS_FULL,
    "_MS": _MONTHS_SHORT,
    "_MN": _MONTHS_NARROW,
    "_DF": _DAYS_FULL,
    "_DS": _DAYS_SHORT,
    "_DN": _DAYS_NARROW,
    "_QF": _QUARTERS_FULL,
    "_QS": _QUARTERS_SHORT,
    "_AMPM": _AMPM,
    "_fo": _format_offset,
    "_flo": _format_localized_offset,
    "_off": _offset_seconds,
    "_zid": _zone_id,
    "_zshort": _zone_short,
    "_zfull": _zone_full,
    "_zgen": _zone_generic,
    "_wk": _week_fields_us,
    "_wom": _week_of_month_us,
}


def _num(expr: str, width: int) -> str:
    """An f-string field printing a number with ``appendValue``: unpadded for one letter, else zero padded."""
    return expr if width <= 1 else f"{expr}:0{width}d"


_ERA = {1: ("BC", "AD"), 4: ("Before Christ", "Anno Domini"), 5: ("B", "A")}


def _format_expr(f: _Field, ns: dict[str, Any]) -> str:
    """The f-string field (expression over datetime ``d`` plus format spec, no quotes) printing one pattern
    field as Java does (Locale.US). Constants it needs are added to ``ns`` under fresh names."""
    c, n = f.letter, f.count

    def const(value: Any) -> str:
        name = f"_c{len(ns)}"
        ns[name] = value
        return name

    if c == "G":
        if n > 5:
            raise _too_many(c)
        return f"{const(_ERA[1 if n <= 3 else n])}[d.year > 0]"
    if c in "yuY":
        # Python datetimes hold years 1..9999, so year-of-era is the year and 4+ letters never overflow.
        base = "_wk(d)[0]" if c == "Y" else "d.year"
        if n == 2:
            return f"{base} % 100:02d"
        return _num(base, n)
    if c in "ML":
        if n <= 2:
            return _num("d.month", n)
        table = {3: "_MS", 4: "_MF", 5: "_MN"}.get(n)
        if table is None:
            raise _too_many(c)
        return f"{table}[d.month - 1]"
    if c == "d":
        if n > 2:
            raise _too_many(c)
        return _num("d.day", n)
    if c == "D":
        if n > 3:
            raise _too_many(c)
        return _num("d.timetuple().tm_yday", n)
    if c in "Qq":
        if n <= 2:
            return _num("((d.month - 1) // 3 + 1)", n)
        if n == 3:
            return "_QS[(d.month - 1) // 3]"
        if n == 4:
            return "_QF[(d.month - 1) // 3]"
        if n == 5:
            return "(d.month - 1) // 3 + 1"
        raise _too_many(c)
    if c == "w":
        if n > 2:
            raise _too_many(c)
        return _num("_wk(d)[1]", n)
    if c == "W":
        if n > 1:
            raise _too_many(c)
        return "_wom(d)"
    if c == "F":
        if n > 1:
            raise _too_many(c)
        return "(d.day - 1) // 7 + 1"
    if c in "Eec":
        if c != "E" and n <= 2:
            return _num("((d.weekday() + 1) % 7 + 1)", n)
        table = {4: "_DF", 5: "_DN"}.get(n, "_DS" if n <= 3 else None)
        if table is None:
            raise _too_many(c)
        return f"{table}[d.weekday()]"
    if c == "a":
        if n > 1:
            raise _too_many(c)
        return "_AMPM[d.hour >= 12]"
    simple = {"H": "d.hour", "m": "d.minute", "s": "d.second", "K": "(d.hour % 12)",
              "h": "(d.hour % 12 or 12)", "k": "(d.hour or 24)"}  # fmt: skip
    if c in simple:
        if n > 2:
            raise _too_many(c)
        return _num(simple[c], n)
    if c == "S":
        if n > 9:
            raise _too_many(c)
        if n <= 6:
            return f"d.microsecond // {10 ** (6 - n)}:0{n}d"
        return f"d.microsecond * {10 ** (n - 6)}:0{n}d"
    if c == "A":
        return _num("((d.hour * 3600 + d.minute * 60 + d.second) * 1000 + d.microsecond // 1000)", n)
    if c == "n":
        return _num("(d.microsecond * 1000)", n)
    if c == "N":
        return _num("((d.hour * 3600 + d.minute * 60 + d.second) * 1000000000 + d.microsecond * 1000)", n)
    if c == "V":
        if n != 2:
            raise DateTimeError("Pattern letter count must be 2: V")
        return "_zid(d)"
    if c == "v":
        if n not in (1, 4):
            raise DateTimeError("Wrong number of pattern letters: v")
        return f"_zgen(d, {n == 4})"
    if c == "z":
        if n > 4:
            raise _too_many(c)
        return "_zfull(d)" if n == 4 else "_zshort(d)"
    if c == "O":
        if n not in (1, 4):
            raise DateTimeError("Pattern letter count must be 1 or 4: O")
        return f"_flo(_off(d), {n == 4})"
    if c in "XxZ":
        if c == "Z" and n == 4:
            return "_flo(_off(d), True)"
        style = _OFFSET_STYLES.get((c, n))
        if style is None:
            raise _too_many(c)
        return f"_fo(_off(d), {const(style[0])}, {const(style[1])})"
    raise DateTimeError(f"Unknown pattern letter: {c}")  # pragma: no cover


# Parsing: each field becomes a regex group and a setter writing into a dict of parsed field values.

_TEXT_MONTHS = {
    3: {m.upper(): i + 1 for i, m in enumerate(_MONTHS_SHORT)},
    4: {m.upper(): i + 1 for i, m in enumerate(_MONTHS_FULL)},
}
_TEXT_DAYS = {
    3: {d.upper(): i for i, d in enumerate(_DAYS_SHORT)},
    4: {d.upper(): i for i, d in enumerate(_DAYS_FULL)},
}


def _alternation(words: list[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


_OFFSET_RE = r"[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?"


def _parse_offset_text(text: str) -> int:
    if text.upper() in ("Z", "GMT", "UTC", "UT"):
        return 0
    upper = text.upper()
    for prefix in ("GMT", "UTC", "UT"):
        if upper.startswith(prefix):
            text = text[len(prefix) :]
            break
    digits = text[1:].replace(":", "")
    hh = int(digits[0:2]) if len(digits) >= 2 else int(digits)
    mm = int(digits[2:4]) if len(digits) >= 4 else 0
    ss = int(digits[4:6]) if len(digits) >= 6 else 0
    if hh > 18 or mm > 59 or ss > 59:
        raise DateTimeError(f"Zone offset out of range: {text}")
    total = hh * 3600 + mm * 60 + ss
    return -total if text[0] == "-" else total


def _parse_spec(f: _Field) -> tuple[str, str, Callable[[str], Any]]:
    """(regex, parsed-field key, converter) for one pattern field."""
    c, n = f.letter, f.count

    def digits(lo: int, hi: int) -> str:
        return rf"\d{{{lo},{hi}}}" if lo != hi else rf"\d{{{lo}}}"

    def num(key: str, max_letters: int = 2) -> tuple[str, str, Callable[[str], Any]]:
        if n > max_letters:
            raise _too_many(c)
        return (digits(1, 19) if n == 1 else digits(n, n)), key, int

    if c in "yu":
        key = "year" if c == "u" else "yoe"
        if n == 2:
            return digits(2, 2), "year2", int
        sign = "[+-]?" if c == "u" or n >= 4 else ""
        return sign + digits(n if n > 1 else 1, 19), key, int
    if c == "G":
        if n > 5:
            raise _too_many(c)
        words = {1: ["AD", "BC"], 4: ["Anno Domini", "Before Christ"], 5: ["A", "B"]}[1 if n <= 3 else n]
        return _alternation(words), "era", lambda t: 0 if t.upper() in ("BC", "BEFORE CHRIST", "B") else 1
    if c in "ML":
        if n <= 2:
            return num("month")
        if n in (3, 4):
            table = _TEXT_MONTHS[n]
            return _alternation(list(table)), "month", lambda t, table=table: table[t.upper()]
        if n == 5:
            return "[A-Za-z]", "month_narrow", str
        raise _too_many(c)
    if c == "d":
        return num("day")
    if c == "D":
        if n > 3:
            raise _too_many(c)
        return (digits(1, 19) if n == 1 else digits(n, 3)), "doy", int
    if c in "Qq":
        if n <= 2:
            return num("quarter")
        if n == 3:
            return "Q[1-4]", "quarter", lambda t: int(t[1])
        if n == 4:
            return _alternation(_QUARTERS_FULL), "quarter", lambda t: int(t[0])
        raise _too_many(c)
    if c in "Eec":
        if c in "ec" and n <= 2:
            return num("dow_local")
        if n in (1, 2, 3):
            table = _TEXT_DAYS[3]
        elif n == 4:
            table = _TEXT_DAYS[4]
        else:
            raise DateTimeError(f"Parsing of narrow day names is not supported: {c * n}")
        return _alternation(list(table)), "dow", lambda t, table=table: table[t.upper()]
    if c == "a":
        if n > 1:
            raise _too_many(c)
        return "(?:AM|PM)", "ampm", lambda t: 0 if t.upper() == "AM" else 1
    keys = {"H": "hour", "m": "minute", "s": "second", "K": "hour_ampm", "h": "clock_hour_ampm",
            "k": "clock_hour"}  # fmt: skip
    if c in keys:
        return num(keys[c])
    if c == "S":
        if n > 9:
            raise _too_many(c)
        return digits(n, n), "nano", lambda t: int(t.ljust(9, "0"))
    if c == "A":
        return digits(max(n, 1), 19), "milli_of_day", int
    if c == "n":
        return digits(max(n, 1), 19), "nano", int
    if c == "N":
        return digits(max(n, 1), 19), "nano_of_day", int
    if c in "Vvz":
        if c == "V" and n != 2:
            raise DateTimeError("Pattern letter count must be 2: V")
        if n > 4:
            raise _too_many(c)
        words = r"(?: [A-Za-z][A-Za-z-]*)*" if n == 4 else ""
        regex = rf"(?:[A-Za-z][A-Za-z0-9~/._+:-]*{words}|[+-]\d{{1,2}}(?::?\d{{2}})*)"
        return regex, "zone", _zone_from_text
    if c == "O":
        if n not in (1, 4):
            raise DateTimeError("Pattern letter count must be 1 or 4: O")
        return r"GMT(?:[+-]\d{1,2}(?::\d{2}(?::\d{2})?)?)?", "offset", _parse_offset_text
    if c in "XxZ":
        if c == "Z" and n == 4:
            return r"GMT(?:[+-]\d{1,2}(?::\d{2}(?::\d{2})?)?)?", "offset", _parse_offset_text
        style = _OFFSET_STYLES.get((c, n))
        if style is None:
            raise _too_many(c)
        zero = re.escape(style[1])
        return f"(?:{zero}|{_OFFSET_RE})", "offset", _parse_offset_text
    if c in "YwWF":
        raise DateTimeError(f"Parsing week-based fields is not supported: {c * n}")
    raise DateTimeError(f"Unknown pattern letter: {c}")  # pragma: no cover


# ---------------------------------------------------------------------------------------------------------
# Compiled patterns


@dataclass
class ParsedDateTime:
    """What a parse produced: epoch day, nano of day, and the zone information found in the text."""

    days: int
    nanos: int
    offset: int | None
    zone: tzinfo | None


class JavaPattern:
    """A Java pattern compiled once: ``format_*`` print values, ``parse_*`` read strings (ksqlDB rules)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.items = _lex(pattern)
        self.categories = self._required_categories(self.items)
        self._formatters: dict[frozenset[str], Callable[[datetime], str]] = {}
        self._parser: tuple[re.Pattern[str], list[tuple[str, str, Callable[[str], Any]]]] | None = None
        # Validate letters/counts eagerly so a bad pattern fails when the query starts, not per record.
        self.formatter(frozenset((DATE_FIELDS, TIME_FIELDS, ZONE_FIELDS)))

    @staticmethod
    def _required_categories(items: list[Any]) -> frozenset[str]:
        """Categories of fields outside optional sections (those must be printable)."""
        return frozenset(_category(it.letter) for it in items if isinstance(it, _Field))

    def _all_fields(self, items: list[Any] | None = None) -> list[_Field]:
        out: list[_Field] = []
        for it in self.items if items is None else items:
            if isinstance(it, _Field):
                out.append(it)
            elif isinstance(it, _Optional):
                out.extend(self._all_fields(it.items))
        return out

    @property
    def has_date_fields(self) -> bool:
        return any(_category(f.letter) == DATE_FIELDS for f in self._all_fields())

    @property
    def has_time_fields(self) -> bool:
        return any(_category(f.letter) == TIME_FIELDS for f in self._all_fields())

    # -- formatting ------------------------------------------------------------------------------------

    def formatter(self, available: frozenset[str]) -> Callable[[datetime], str]:
        """A generated function printing a datetime whose ``available`` field categories are meaningful."""
        fn = self._formatters.get(available)
        if fn is not None:
            return fn
        missing = [f for f in self.items if isinstance(f, _Field) and _category(f.letter) not in available]
        if missing:
            name = _JAVA_FIELD_NAMES.get(missing[0].letter, missing[0].letter)
            raise DateTimeError(f"Unsupported field: {name}")
        ns = dict(_HELPERS)
        template: list[str] = []  # f-string source: escaped literal text and {field} replacements

        def emit(items: list[Any]) -> None:
            for it in items:
                if isinstance(it, _Literal):
                    template.append(it.text.replace("{", "{{").replace("}", "}}"))
                elif isinstance(it, _Field):
                    template.append("{" + _format_expr(it, ns) + "}")
                else:  # optional section: printed when all its fields are available
                    fields = self._all_fields(it.items)
                    if all(_category(f.letter) in available for f in fields):
                        emit(it.items)
                    else:
                        for f in fields:  # still validate the letters
                            _format_expr(f, {})

        emit(self.items)
        src = f"def _fmt(d):\n    return f{''.join(template)!r}\n"
        exec(compile(src, f"<java pattern {self.pattern!r}>", "exec"), ns)
        fn = ns["_fmt"]
        self._formatters[available] = fn
        return fn

    def format_timestamp(self, ms: int, zone: tzinfo = UTC_ZONE) -> str:
        if isinstance(zone, timezone):  # fixed offset: no zone rules to consult
            off = zone.utcoffset(None)
            d = (_EPOCH_NAIVE + timedelta(milliseconds=ms) + off).replace(tzinfo=zone)
        else:
            d = (_EPOCH_UTC + timedelta(milliseconds=ms)).astimezone(zone)
        return self.formatter(_ALL)(d)

    def format_date(self, days: int) -> str:
        return self.formatter(_DATE_ONLY)(_EPOCH_NAIVE + timedelta(days=days))

    def format_time(self, ms: int) -> str:
        return self.formatter(_TIME_ONLY)(_EPOCH_NAIVE + timedelta(milliseconds=ms % MS_PER_DAY))

    # -- parsing ---------------------------------------------------------------------------------------

    def _compile_parser(self) -> tuple[re.Pattern[str], list[tuple[str, str, Callable[[str], Any]]]]:
        if self._parser is not None:
            return self._parser
        specs: list[tuple[str, str, Callable[[str], Any]]] = []

        def build(items: list[Any]) -> str:
            out = []
            for it in items:
                if isinstance(it, _Literal):
                    out.append(re.escape(it.text))
                elif isinstance(it, _Field):
                    regex, key, conv = _parse_spec(it)
                    group = f"g{len(specs)}"
                    specs.append((group, key, conv))
                    out.append(f"(?P<{group}>{regex})")
                else:
                    out.append(f"(?:{build(it.items)})?")
            return "".join(out)

        regex = re.compile(build(self.items), re.IGNORECASE | re.ASCII)  # Java reads ASCII digits only
        self._parser = (regex, specs)
        return self._parser

    def parse_fields(self, text: str) -> dict[str, Any]:
        """The raw field values in ``text``; DateTimeError if it does not match the whole pattern."""
        regex, specs = self._compile_parser()
        m = regex.fullmatch(text)
        if m is None:
            raise DateTimeError(f"Text '{text}' could not be parsed with pattern '{self.pattern}'")
        out: dict[str, Any] = {}
        for group, key, conv in specs:
            raw = m.group(group)
            if raw is None:
                continue
            try:
                value = conv(raw)
            except (KeyError, ValueError) as e:
                raise DateTimeError(f"Text '{text}' could not be parsed: {e}") from e
            if key in out and out[key] != value:
                raise DateTimeError(f"Text '{text}' could not be parsed: conflicting values for {key}")
            out[key] = value
        return out

    def parse(self, text: str) -> ParsedDateTime:
        """Parse and resolve ``text`` (defaults 1970-01-01T00:00, SMART resolution)."""
        return _resolve(self.parse_fields(text), text)

    def parse_timestamp(self, text: str, zone: tzinfo = UTC_ZONE) -> int:
        """Epoch millis of ``text``; ``zone`` applies when the text carries no offset or zone."""
        p = self.parse(text)
        return _to_epoch_ms(p, zone)

    def parse_date(self, text: str) -> int:
        """Epoch days of ``text`` (PARSE_DATE: a pattern with time fields is rejected)."""
        if self.has_time_fields:
            raise DateTimeError("Date format contains time field.")
        return self.parse(text).days

    def parse_time(self, text: str) -> int:
        """Milliseconds since midnight of ``text`` (PARSE_TIME: a pattern with date fields is rejected)."""
        if self.has_date_fields:
            raise DateTimeError("Time format contains date field.")
        return self.parse(text).nanos // 1_000_000


_ALL = frozenset((DATE_FIELDS, TIME_FIELDS, ZONE_FIELDS))
_DATE_ONLY = frozenset((DATE_FIELDS,))
_TIME_ONLY = frozenset((TIME_FIELDS,))


def _check(value: int, lo: int, hi: int, name: str, text: str) -> int:
    if not lo <= value <= hi:
        raise DateTimeError(
            f"Text '{text}' could not be parsed: Invalid value for {name} (valid values {lo} - {hi}): {value}"
        )
    return value


def _resolve(f: dict[str, Any], text: str) -> ParsedDateTime:
    """Java's SMART resolution of parsed fields, with ksqlDB's parseDefaulting values."""
    # Date
    if "year" in f:
        year = f["year"]
    elif "yoe" in f:
        yoe = f["yoe"]
        year = yoe if f.get("era", 1) == 1 else 1 - yoe
    elif "year2" in f:
        year = 2000 + f["year2"]
    else:
        year = 1970
    if "month_narrow" in f and "month" not in f:
        raise DateTimeError(f"Text '{text}' could not be parsed: narrow month names are ambiguous")
    if "doy" in f and "month" not in f and "day" not in f:
        doy = _check(f["doy"], 1, 366 if _is_leap(year) else 365, "DayOfYear", text)
        days = days_from_civil(year, 1, 1) + doy - 1
    else:
        month = _check(f.get("month", 1), 1, 12, "MonthOfYear", text)
        day = _check(f.get("day", 1), 1, 31, "DayOfMonth", text)
        day = min(day, _month_length(year, month))
        days = days_from_civil(year, month, day)
        if "quarter" in f and (month - 1) // 3 + 1 != f["quarter"]:
            raise DateTimeError(f"Text '{text}' could not be parsed: conflicting QuarterOfYear")
    if "dow" in f and (days + 3) % 7 != f["dow"]:  # 1970-01-01 was a Thursday (Monday = 0)
        raise DateTimeError(f"Text '{text}' could not be parsed: Conflict found: DayOfWeek differs")
    # Time
    if "hour" in f:
        hour = _check(f["hour"], 0, 24, "HourOfDay", text)
    elif "clock_hour" in f:
        hour = _check(f["clock_hour"], 1, 24, "ClockHourOfDay", text) % 24
    elif "clock_hour_ampm" in f or "hour_ampm" in f:
        if "clock_hour_ampm" in f:
            h = _check(f["clock_hour_ampm"], 1, 12, "ClockHourOfAmPm", text) % 12
        else:
            h = _check(f["hour_ampm"], 0, 11, "HourOfAmPm", text)
        hour = h + 12 * f.get("ampm", 0)
    else:
        hour = None
    if hour is None and "milli_of_day" in f:
        nanos = _check(f["milli_of_day"], 0, MS_PER_DAY - 1, "MilliOfDay", text) * 1_000_000
    elif hour is None and "nano_of_day" in f:
        nanos = _check(f["nano_of_day"], 0, NANOS_PER_DAY - 1, "NanoOfDay", text)
    else:
        minute = _check(f.get("minute", 0), 0, 59, "MinuteOfHour", text)
        second = _check(f.get("second", 0), 0, 59, "SecondOfMinute", text)
        nano = _check(f.get("nano", 0), 0, 999_999_999, "NanoOfSecond", text)
        h = hour or 0
        if h == 24:  # SMART: 24:00 is midnight of the next day, nothing else
            if minute or second or nano:
                raise DateTimeError(f"Text '{text}' could not be parsed: Invalid value for HourOfDay: 24")
            h = 0
            days += 1
        nanos = ((h * 60 + minute) * 60 + second) * 1_000_000_000 + nano
    return ParsedDateTime(days, nanos, f.get("offset"), f.get("zone"))


def _to_epoch_ms(p: ParsedDateTime, zone: tzinfo) -> int:
    local_ms = p.days * MS_PER_DAY + p.nanos // 1_000_000
    if p.offset is not None:
        return local_ms - p.offset * 1000
    tz = p.zone if p.zone is not None else zone
    if isinstance(tz, timezone):
        off = tz.utcoffset(None)
        return local_ms - int(off.total_seconds()) * 1000
    try:
        local = _EPOCH_NAIVE + timedelta(milliseconds=local_ms)
    except OverflowError as e:
        raise DateTimeError(f"Timestamp out of range: {local_ms}") from e
    off = local.replace(tzinfo=tz).utcoffset()  # fold=0: earlier offset in overlaps, pre-gap offset in gaps
    return local_ms - (0 if off is None else int(off.total_seconds()) * 1000)


@lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> JavaPattern:
    """The compiled form of a Java DateTimeFormatter pattern (cached: patterns are usually literals)."""
    return JavaPattern(pattern)


def timestamp_parser(pattern: str, zone: str = "UTC") -> Callable[[str], int]:
    """A ``str -> epoch ms`` function for a source's ``TIMESTAMP_FORMAT`` (ksqlDB's StringToTimestampParser).

    Raises DateTimeError for text that does not match; the timestamp extractor decides what to do with it.
    """
    p = compile_pattern(pattern)
    tz = zone_of(zone)
    return lambda text: p.parse_timestamp(text, tz)


def timestamp_formatter(pattern: str, zone: str = "UTC") -> Callable[[int], str]:
    """An ``epoch ms -> str`` function for a pattern and zone."""
    p = compile_pattern(pattern)
    tz = zone_of(zone)
    return lambda ms: p.format_timestamp(ms, tz)


__all__ = [
    "DateTimeError",
    "JavaPattern",
    "MS_PER_DAY",
    "ParsedDateTime",
    "civil_from_days",
    "compile_pattern",
    "days_from_civil",
    "timestamp_formatter",
    "timestamp_parser",
    "zone_of",
]
