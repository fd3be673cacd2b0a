"""Printing pattern fields as Java does (Locale.US): each field becomes one f-string replacement field
over a datetime ``d``, with the helpers it calls."""

from __future__ import annotations

import re
from bisect import bisect_right
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from .base import DateTimeError
from .pattern import (
    _AMPM,
    _DAYS_FULL,
    _DAYS_NARROW,
    _DAYS_SHORT,
    _MONTHS_FULL,
    _MONTHS_NARROW,
    _MONTHS_SHORT,
    _OFFSET_STYLES,
    _QUARTERS_FULL,
    _QUARTERS_SHORT,
    _Field,
    _too_many,
    day_period_letters,
    day_period_of,
)
from .zone_names import DAYLIGHT, NAMES
from .zones import _GENERIC_NAMES, _ZONE_FULL_NAMES, FIXED_REGION_NAMES, FIXED_REGIONS

_OFFSET_TYPES = ("+HH", "+HHmm", "+HH:mm", "+HHMM", "+HH:MM", "+HHMMss", "+HH:MM:ss", "+HHMMSS", "+HH:MM:SS",
                 "+HHmmss", "+HH:mm:ss")


def _format_offset(seconds: int, style: str, zero_text: str) -> str:
    """OffsetIdPrinterParser.format: the hours, then the minutes where the style always has them or they are
    not zero, then the seconds likewise; a text whose printed fields are all zero is the no-offset text (so
    +00:00:30 is 'Z' for 'X', and +01:00:30 is '+01')."""
    kind = _OFFSET_TYPES.index(style)
    colon = ":" if ":" in style else ""
    s = abs(seconds)
    hh, mm, ss = s // 3600 % 100, s // 60 % 60, s % 60
    out = f"{'-' if seconds < 0 else '+'}{hh:02d}"
    printed = hh
    if 3 <= kind <= 8 or (kind >= 9 and ss > 0) or (kind >= 1 and mm > 0):
        out += f"{colon}{mm:02d}"
        printed += mm
        if kind in (7, 8) or (kind >= 5 and ss > 0):
            out += f"{colon}{ss:02d}"
            printed += ss
    return zero_text if printed == 0 else out


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


def _java_names(d: datetime) -> tuple[str | None, ...] | None:
    """java.time's names of a region zone (``zone_names.NAMES``), None for a zone it has none for: a fixed
    offset, ``UT``, or an id this JDK table lacks."""
    tz = d.tzinfo
    key = tz.key if isinstance(tz, ZoneInfo) else d.tzname()
    if not key:
        return None
    if tz is FIXED_REGIONS.get(key):
        return FIXED_REGION_NAMES[key]
    return NAMES.get(key)


def _is_daylight(d: datetime) -> bool:
    """ZoneRules.isDaylightSavings: the offset differs from the standard one - the tz data's positive save,
    except in the zones whose rules java.time reads otherwise (``zone_names.DAYLIGHT``: a negative save, as
    Europe/Dublin's winter, where Java calls the summer daylight)."""
    tz = d.tzinfo
    changes = DAYLIGHT.get(tz.key) if isinstance(tz, ZoneInfo) else None
    if changes is not None:
        i = bisect_right(changes, (int(d.timestamp()), True))
        return i > 0 and changes[i - 1][1]
    dst = d.dst()
    return dst is not None and dst > timedelta(0)


def _zone_text(d: datetime, full: bool) -> str | None:
    names = _java_names(d)
    if names is None:
        return None
    i = 2 if _is_daylight(d) and names[2] is not None else 0
    return names[i + 1] if full else names[i]


def _zone_short(d: datetime) -> str:
    """``z``: ZoneTextPrinterParser prints a region's standard or daylight short name (by
    ZoneRules.isDaylightSavings) as the JDK's locale data has it (``zone_names``): CLDR's, else COMPAT's, else
    the GMT format of its offset (``Etc/GMT+5`` is ``GMT-05:00``); a fixed offset or a zone without names
    prints its id. Zones the table lacks fall back to the tz database's abbreviation (its ``LMT``, local mean
    time, replaced by the region's standard name)."""
    text = _zone_text(d, False)
    if text is not None:
        return text
    name = d.tzname() or "Z"
    if name == "LMT" and isinstance(d.tzinfo, ZoneInfo):
        return _standard_name(d.tzinfo.key)
    return name


@lru_cache(maxsize=256)
def _standard_name(key: str) -> str:
    """The region's standard-time abbreviation today (January or July, whichever is not daylight time)."""
    zone = ZoneInfo(key)
    for month in (1, 7):
        probe = datetime(2001, month, 1, tzinfo=zone)
        if not probe.dst():
            return probe.tzname() or key
    return key


def _zone_full(d: datetime) -> str:
    """``zzzz``: the full name as ``z``'s short one (``Pacific Standard Time``, ``Coordinated Universal Time``)."""
    text = _zone_text(d, True)
    if text is not None:
        return text
    name = _zone_short(d)
    return _ZONE_FULL_NAMES.get(name, name)


def _zone_generic(d: datetime, full: bool) -> str:
    """``v``/``vvvv``: the generic name (``PT``, ``Pacific Time``); a fixed offset prints its id."""
    names = _java_names(d)
    if names is not None:
        return str(names[5] if full else names[4])
    key = _zone_id(d)
    generic = _GENERIC_NAMES.get(key)
    if generic is None:
        return key
    return generic[1] if full else generic[0]


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


def _year_of_era(year: int) -> int:
    return year if year > 0 else 1 - year


def _java_number(value: int, min_width: int, exceeds_pad: bool) -> str:
    """NumberPrinterParser.format with maxWidth 19: zero padded to ``min_width``, '-' before a negative value
    (SignStyle NORMAL and EXCEEDS_PAD), '+' before a value wider than the padding (EXCEEDS_PAD: 'yyyy' of year
    10000 is '+10000')."""
    digits = str(abs(value)).rjust(min_width, "0")
    if value < 0:
        return "-" + digits
    if exceeds_pad and value >= 10**min_width:
        return "+" + digits
    return digits


def _pad(text: str, width: int) -> str:
    """PadPrinterParserDecorator.format: right-aligned in ``width`` spaces; wider text is an error."""
    if len(text) > width:
        raise DateTimeError(f"Cannot print as output of {len(text)} characters exceeds pad width of {width}")
    return text.rjust(width)


def _day_period(d: Any, narrow: bool) -> str:
    """DayPeriodPrinterParser.format: the period the minute of the day falls in (midnight and noon are their
    one minute: 00:00:30 is 'midnight')."""
    period = day_period_of(d.hour * 60 + d.minute)
    return period.narrow if narrow else period.text


_HELPERS: dict[str, Any] = {
    "_yoe": _year_of_era,
    "_jnum": _java_number,
    "_MF": _MONTHS_FULL,
    "_MS": _MONTHS_SHORT,
    "_MN": _MONTHS_NARROW,
    "_DF": _DAYS_FULL,
    "_DS": _DAYS_SHORT,
    "_DN": _DAYS_NARROW,
    "_QF": _QUARTERS_FULL,
    "_QS": _QUARTERS_SHORT,
    "_AMPM": _AMPM,
    "_dp": _day_period,
    "_fo": _format_offset,
    "_flo": _format_localized_offset,
    "_off": _offset_seconds,
    "_zid": _zone_id,
    "_zshort": _zone_short,
    "_zfull": _zone_full,
    "_zgen": _zone_generic,
    "_wk": _week_fields_us,
    "_wom": _week_of_month_us,
    "_pad": _pad,
}


def _num(expr: str, width: int) -> str:
    """An f-string field printing a number with ``appendValue``: unpadded for one letter, else zero padded."""
    return expr if width <= 1 else f"{expr}:0{width}d"


_MJD_ORDINAL = date(1858, 11, 17).toordinal()
_DAYS_PER_400_YEARS = 146097


def padded(expr: str, width: int, ns: dict[str, Any]) -> str:
    """The replacement field of ``expr`` (an f-string field body, ``value`` or ``value:spec``) padded."""
    value, spec = expr, ""
    m = re.fullmatch(r"(.*):(0\d+d)", expr, re.S)
    if m:
        value, spec = m.group(1), m.group(2)
    name = f"_c{len(ns)}"
    ns[name] = spec
    return f"_pad(format({value}, {name}), {width})"


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
        return f"{const(_ERA[1 if n <= 3 else n])}[d.year + ys > 0]"
    if c in "yuY":
        # ``ys``: the whole 400-year cycles the caller moved ``d`` by to bring its year into Python's 1..9999
        # (the Gregorian calendar repeats every 146097 days, a whole number of weeks).
        year = "(_wk(d)[0] + ys)" if c == "Y" else "(d.year + ys)"
        if c == "y":  # YEAR_OF_ERA: year 0 is 1 BC
            year = f"_yoe{year}"
        if n == 2:  # appendValueReduced(field, 2, 2, 2000): the last two digits of |value|
            return f"abs({year}) % 100:02d"
        if n > 19:
            raise DateTimeError(f"The minimum width must be from 1 to 19 inclusive but was {n}")
        return f"_jnum({year}, {n}, {n >= 4})"
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
    if c == "F":  # ALIGNED_DAY_OF_WEEK_IN_MONTH up to JDK 18, ksqlDB's runtimes (JDK-8282081 changed it in 19)
        if n > 1:
            raise _too_many(c)
        return "(d.day - 1) % 7 + 1"
    if c == "g":  # JulianFields.MODIFIED_JULIAN_DAY: appendValue(field, n, 19, NORMAL); day 0 is 1858-11-17
        if n > 19:
            raise DateTimeError(f"The minimum width must be from 1 to 19 inclusive but was {n}")
        return f"_jnum(d.toordinal() - {_MJD_ORDINAL} + ys // 400 * {_DAYS_PER_400_YEARS}, {n}, False)"
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
    if c == "B":
        return f"_dp(d, {day_period_letters(n)})"
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
