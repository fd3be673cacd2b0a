"""Reading text with a pattern: each field becomes a regex group and a converter; the parsed field
values are then resolved the way Java's SMART resolver does, with ksqlDB's defaults."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta, timezone, tzinfo
from typing import Any

from . import weeks
from .base import _EPOCH_NAIVE, MS_PER_DAY, NANOS_PER_DAY, DateTimeError
from .civil import SAFE_MS, _is_leap, _month_length, civil_from_days, days_from_civil, into_safe_years
from .pattern import (
    _DAYS_FULL,
    _DAYS_SHORT,
    _MONTHS_FULL,
    _MONTHS_SHORT,
    _OFFSET_STYLES,
    _QUARTERS_FULL,
    DAY_PERIODS,
    DayPeriod,
    _Field,
    _too_many,
    day_period_letters,
)
from .zone_names import NAMES, PARSE_FULL, PARSE_SHORT
from .zones import _zone_from_text, zone_of

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


_ZONE_BY_NAME = {
    False: {k.upper(): v for k, v in {**{z: z for z in NAMES}, **PARSE_SHORT}.items()},
    True: {k.upper(): v for k, v in {**{z: z for z in NAMES}, **PARSE_FULL}.items()},
}
_ZONE_TEXT_REGEX: dict[bool, str] = {}


def _zone_text_regex(full: bool) -> str:
    """ZoneTextPrinterParser.parse (z, zzzz, v, vvvv): an offset (``+05:30``, ``+HH:MM:ss``) or a UTC/GMT/UT
    prefix with one (``GMT+05:30``, ``GMT0``) first, then the longest of the zone names java.time knows - the
    short ones for z/v, the full ones for zzzz/vvvv - and the zone ids, else ``Z``."""
    regex = _ZONE_TEXT_REGEX.get(full)
    if regex is None:
        offset = r"[+-]\d{2}:\d{2}(?::\d{2})?"
        names = _alternation([*NAMES, *(PARSE_FULL if full else PARSE_SHORT)])  # as written: é is not É here
        regex = _ZONE_TEXT_REGEX[full] = rf"(?:{offset}|GMT0|(?:UTC|GMT|UT)(?:{offset})?|{names}|Z)"
    return regex


def _zone_from_name(text: str) -> tzinfo:
    """The zone a name parses to as java.time's name tree maps it (the metazone's preferred zone: ``PST`` is
    America/Los_Angeles); offsets, prefixed offsets and zone ids as ZoneId.of reads them."""
    upper = text.upper()
    if upper[:1] in ("+", "-") or upper.startswith(("UTC", "GMT", "UT")):
        return zone_of(upper)
    if upper == "Z":
        return zone_of("Z")
    return zone_of(_ZONE_BY_NAME[False].get(upper) or _ZONE_BY_NAME[True].get(upper) or text)


_MJD_EPOCH_DAY = 40587  # the modified Julian day of 1970-01-01
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


def _year_digits(n: int) -> str:
    """A year of ``n`` letters (not 2) as DateTimeFormatterBuilder reads it strictly: fewer than 4 letters
    SignStyle.NORMAL (at least n digits, '-' allowed, never '+'); 4 or more SignStyle.EXCEEDS_PAD - exactly n
    digits unsigned, a '+' only before more than n, a '-' before at least n (so '20210101' is no 'yyyy')."""
    if n < 4:
        return rf"-?\d{{{n},19}}"
    return rf"(?:\+\d{{{n + 1},19}}|-\d{{{n},19}}|\d{{{n}}})"


def _parse_spec(f: _Field) -> tuple[str, str, Callable[[str], Any]]:
    """(regex, parsed-field key, converter) for one pattern field."""
    if f.pad:
        return _padded_spec(f)
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
        return _year_digits(n), key, int
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
    if c == "B":
        narrow = day_period_letters(n)
        periods = {(p.narrow if narrow else p.text).upper(): p for p in DAY_PERIODS}
        return _alternation(list(periods)), "day_period", lambda t, periods=periods: periods[t.upper()]
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
    if c in "vz":
        if n > 4 or (c == "v" and n not in (1, 4)):
            raise _too_many(c) if c == "z" else DateTimeError("Wrong number of pattern letters: v")
        return _zone_text_regex(n == 4), "zone", _zone_from_name
    if c == "V":
        if n != 2:
            raise DateTimeError("Pattern letter count must be 2: V")
        regex = r"(?:[A-Za-z][A-Za-z0-9~/._+:-]*|[+-]\d{1,2}(?::?\d{2})*)"
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
    if c == "Y":
        if n == 2:
            return digits(2, 2), "wby2", int
        return _year_digits(n), "wby", int
    if c == "w":
        return num("woy")
    if c == "W":
        return num("wom", 1)
    if c == "F":
        return num("adowm", 1)
    if c == "g":  # appendValue(MODIFIED_JULIAN_DAY, n, 19, NORMAL): a '-' sign, no '+' (strict)
        if n > 19:
            raise DateTimeError(f"The minimum width must be from 1 to 19 inclusive but was {n}")
        return rf"-?\d{{{n},19}}", "mjd", int
    raise DateTimeError(f"Unknown pattern letter: {c}")  # pragma: no cover


def _padded_spec(f: _Field) -> tuple[str, str, Callable[[str], Any]]:
    """PadPrinterParserDecorator.parse (strict): exactly ``pad`` characters, leading spaces skipped, the field
    reading all the rest of them."""
    inner_regex, key, conv = _parse_spec(_Field(f.letter, f.count))
    inner = re.compile(inner_regex, re.IGNORECASE | re.ASCII)

    def padded(text: str) -> Any:
        body = text.lstrip(" ")
        if not inner.fullmatch(body):
            raise ValueError(f"'{text}' does not fill the pad width of {f.pad}")
        return conv(body)

    return f".{{{f.pad}}}", key, padded


@dataclass
class ParsedDateTime:
    """What a parse produced: epoch day, nano of day, and the zone information found in the text."""

    days: int
    nanos: int
    offset: int | None
    zone: tzinfo | None
    # the days ksqlDB's resolver passes through before ``days`` (each with the parsed time): in a zone's
    # overlap the offset is the one the step before had, where it is one of the two (ZonedDateTime.with)
    steps: tuple[int, ...] = ()
    # a zone, a date and a time parsed: Parsed makes the instant itself (LocalDateTime.atZone: the earlier
    # offset of an overlap), which the resolver's last step sets
    zoned_instant: bool = False


def _check(value: int, lo: int, hi: int, name: str, text: str) -> int:
    if not lo <= value <= hi:
        raise DateTimeError(
            f"Text '{text}' could not be parsed: Invalid value for {name} (valid values {lo} - {hi}): {value}"
        )
    return value


def _year_of(f: dict[str, Any], text: str) -> int | None:
    if "year" in f:
        return f["year"]
    if "yoe" in f:
        yoe = _check(f["yoe"], 1, 999_999_999, "YearOfEra", text)
        return yoe if f.get("era", 1) == 1 else 1 - yoe
    if "year2" in f:
        return 2000 + f["year2"]
    return None


def _iso_dow(f: dict[str, Any], text: str) -> int | None:
    """The parsed day of week as ISO (Monday 1): E's text, or e/c's Locale.US number (Sunday 1)."""
    iso = f["dow"] + 1 if "dow" in f else None
    if "dow_local" in f:
        local = weeks.iso_from_local(_check(f["dow_local"], 1, 7, "DayOfWeek", text))
        if iso is not None and iso != local:
            raise DateTimeError(f"Text '{text}' could not be parsed: Conflict found: DayOfWeek differs")
        iso = local
    return iso


def _resolved_date(
    f: dict[str, Any], year: int | None, iso: int | None, text: str
) -> tuple[int, frozenset[str]] | None:
    """The day count Java's SMART resolver makes of the date fields, or None when they do not make a date:
    year-month-day (an invalid day clamped to the month's last), year-day of year, year-month-week of
    month-day of week, week-based year-week-day of week."""
    if "mjd" in f:  # JulianFields resolve to EPOCH_DAY first, which makes the date before anything else
        return f["mjd"] - _MJD_EPOCH_DAY, frozenset(("mjd",))
    if year is not None and "month" in f and "day" in f:
        month = _check(f["month"], 1, 12, "MonthOfYear", text)
        day = _check(f["day"], 1, 31, "DayOfMonth", text)
        return days_from_civil(year, month, min(day, _month_length(year, month))), frozenset(("year", "month", "day"))
    if year is not None and "doy" in f:
        doy = _check(f["doy"], 1, 366, "DayOfYear", text)
        if doy == 366 and not _is_leap(year):
            raise DateTimeError(
                f"Text '{text}' could not be parsed: Invalid date 'DayOfYear 366' as '{year}' is not a leap year"
            )
        return days_from_civil(year, 1, 1) + doy - 1, frozenset(("year", "doy"))
    if iso is None:
        return None
    local = weeks.local_dow(iso - 4)  # day count 0 is a Thursday (ISO 4)
    if year is not None and "month" in f and "wom" in f:
        month = _check(f["month"], 1, 12, "MonthOfYear", text)
        wom = _check(f["wom"], 0, 6, "WeekOfMonth", text)
        return weeks.of_week_of_month(year, month, wom, local), frozenset(("year", "month", "wom", "dow"))
    wby = f["wby"] if "wby" in f else (2000 + f["wby2"] if "wby2" in f else None)
    if wby is not None and "woy" in f:
        woy = _check(f["woy"], 1, 53, "WeekOfWeekBasedYear", text)
        return weeks.of_week_based_year(wby, woy, local), frozenset(("wby", "woy", "dow"))
    return None


def _cross_check(
    days: int, used: frozenset[str], f: dict[str, Any], year: int | None, iso: int | None, text: str
) -> None:
    """Fields the resolved date does not come from must agree with it (Parsed.crossCheck)."""
    y, m, d = civil_from_days(days)
    wby, woy = weeks.week_based(days)
    checks = [
        ("year", year, y), ("month", f.get("month"), m), ("day", f.get("day"), d),
        ("dow", iso, weeks.iso_dow(days)), ("quarter", f.get("quarter"), (m - 1) // 3 + 1),
        ("doy", f.get("doy"), days - days_from_civil(y, 1, 1) + 1),
        ("wby", f.get("wby", 2000 + f["wby2"] if "wby2" in f else None), wby), ("woy", f.get("woy"), woy),
        ("wom", f.get("wom"), weeks.week_of_month(days)), ("adowm", f.get("adowm"), (d - 1) % 7 + 1),
    ]
    for key, parsed, actual in checks:
        if key not in used and parsed is not None and parsed != actual:
            raise DateTimeError(f"Text '{text}' could not be parsed: Conflict found: {parsed} differs from {actual}")


def _overridden_date(f: dict[str, Any], year: int | None, iso: int | None, text: str,
                     steps: list[int] | None = None) -> int:
    """No date resolved: ksqlDB's StringToTimestampParser sets each parsed ChronoField on 1970-01-01 with
    ``ZonedDateTime.with``, in the enum's order (day of week, aligned day of week in month, day of month, day
    of year, month, year); week-based fields and the quarter are not ChronoFields and are ignored."""
    days = 0
    if iso is not None:
        days += iso - weeks.iso_dow(days)
        steps is None or steps.append(days)
    if "adowm" in f:
        dom = civil_from_days(days)[2]
        days += _check(f["adowm"], 1, 7, "AlignedDayOfWeekInMonth", text) - ((dom - 1) % 7 + 1)
        steps is None or steps.append(days)
    if "day" in f:
        y, m, _ = civil_from_days(days)
        days = days_from_civil(y, m, _check(f["day"], 1, 31, "DayOfMonth", text))
        steps is None or steps.append(days)
    if "doy" in f:
        doy = _check(f["doy"], 1, 366, "DayOfYear", text)
        y = civil_from_days(days)[0]
        if doy == 366:
            raise DateTimeError("Leap day cannot be parsed without supplying the year field")
        days = days_from_civil(y, 1, 1) + doy - 1
        steps is None or steps.append(days)
    if "month" in f:
        y, _, d = civil_from_days(days)
        month = _check(f["month"], 1, 12, "MonthOfYear", text)
        days = days_from_civil(y, month, min(d, _month_length(y, month)))
        steps is None or steps.append(days)
    if year is not None:
        _, m, d = civil_from_days(days)
        days = days_from_civil(year, m, min(d, _month_length(year, m)))
    return days


def _steps_to(days: int) -> list[int]:
    """The days a resolved date passes through in ksqlDB's StringToTimestampParser, which sets every field the
    parsed date supports on 1970-01-01 in ChronoField's order with ZonedDateTime.with: day of week (within
    1970-01-01's ISO week), aligned day of week in month and in year, day of month, day of year (in the year
    reached, 1969 or 1970: 366 sets the date's own year first), then the epoch day, the date itself."""
    y, _, d = civil_from_days(days)
    doy = days - days_from_civil(y, 1, 1) + 1
    out = []
    cur = weeks.iso_dow(days) - weeks.iso_dow(0)
    out.append(cur)
    for aligned in (lambda x: (civil_from_days(x)[2] - 1) % 7,
                    lambda x: (x - days_from_civil(civil_from_days(x)[0], 1, 1)) % 7):
        cur += aligned(days) - aligned(cur)
        out.append(cur)
    cy, cm, _ = civil_from_days(cur)
    cur = days_from_civil(cy, cm, min(d, _month_length(cy, cm)))
    out.append(cur)
    out.append(days if doy == 366 else days_from_civil(civil_from_days(cur)[0], 1, 1) + doy - 1)
    return out


def _resolve(f: dict[str, Any], text: str) -> ParsedDateTime:
    """Java's SMART resolution of parsed fields, then ksqlDB's overrides on 1970-01-01T00:00."""
    # Date
    if "month_narrow" in f and "month" not in f:
        raise DateTimeError(f"Text '{text}' could not be parsed: narrow month names are ambiguous")
    year = _year_of(f, text)
    iso = _iso_dow(f, text)
    resolved = _resolved_date(f, year, iso, text)
    steps: list[int] = []
    if resolved is not None:
        days, used = resolved
        _cross_check(days, used, f, year, iso, text)
        steps = _steps_to(days)
    else:
        days = _overridden_date(f, year, iso, text, steps)
    # Time
    period: DayPeriod | None = f.get("day_period")
    period_minute = None
    if "hour" in f:
        hour = _check(f["hour"], 0, 24, "HourOfDay", text)
    elif "clock_hour" in f:
        hour = _check(f["clock_hour"], 1, 24, "ClockHourOfDay", text) % 24
    elif "clock_hour_ampm" in f or "hour_ampm" in f:
        if "clock_hour_ampm" in f:
            h = _check(f["clock_hour_ampm"], 1, 12, "ClockHourOfAmPm", text) % 12
        else:
            h = _check(f["hour_ampm"], 0, 11, "HourOfAmPm", text)
        if "ampm" in f or period is None:
            hour = h + 12 * f.get("ampm", 0)
        else:  # Parsed.resolveTimeFields: the day period says whether the hour is after noon
            moh = f.get("minute", 0) % 60
            hour = h + (12 if period.includes((h + 12) * 60 + moh) else 0)
            period = None
    elif period is not None and not any(k in f for k in ("minute", "second", "nano", "milli_of_day", "nano_of_day")):
        hour, period_minute = divmod(period.mid(), 60)  # a day period alone: its mid-point
        if "ampm" in f and f["ampm"] != (hour >= 12):
            raise DateTimeError(f"Text '{text}' could not be parsed: Conflict found: Field AmPmOfDay "
                                f"{int(hour >= 12)} differs from AmPmOfDay {f['ampm']} derived from {hour:02d}:"
                                f"{period_minute:02d}")
        period = None
    elif "ampm" in f:  # AM/PM alone: ZonedDateTime.with(AMPM_OF_DAY, 1) moves midnight to noon
        hour = 12 * f["ampm"]
    else:
        hour = None
    if hour is None and "milli_of_day" in f:
        nanos = _check(f["milli_of_day"], 0, MS_PER_DAY - 1, "MilliOfDay", text) * 1_000_000
    elif hour is None and "nano_of_day" in f:
        nanos = _check(f["nano_of_day"], 0, NANOS_PER_DAY - 1, "NanoOfDay", text)
    else:
        minute = _check(f.get("minute", period_minute or 0), 0, 59, "MinuteOfHour", text)
        second = _check(f.get("second", 0), 0, 59, "SecondOfMinute", text)
        nano = _check(f.get("nano", 0), 0, 999_999_999, "NanoOfSecond", text)
        h = hour or 0
        if h == 24:  # SMART: 24:00 is midnight of the next day, nothing else
            if minute or second or nano:
                raise DateTimeError(f"Text '{text}' could not be parsed: Invalid value for HourOfDay: 24")
            h = 0
            days += 1
        nanos = ((h * 60 + minute) * 60 + second) * 1_000_000_000 + nano
    if period is not None and hour is not None and not all(k in f for k in ("minute", "second", "nano")):
        _check_day_period(period, nanos, text)
    zoned_instant = "zone" in f and resolved is not None and (
        hour is not None or "milli_of_day" in f or "nano_of_day" in f)
    return ParsedDateTime(days, nanos, f.get("offset"), f.get("zone"), tuple(steps), zoned_instant)


def _check_day_period(period: DayPeriod, nanos: int, text: str) -> None:
    """A day period parsed beside an hour must contain its hour and minute (Parsed.resolveTimeLenient, which
    checks them where the time is not already made of all four of hour, minute, second and nano; its message
    prints the hour and minute alone)."""
    minute_of_day = nanos // 60_000_000_000
    if period.includes(minute_of_day):
        return
    time = f"{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"
    raise DateTimeError(f"Text '{text}' could not be parsed: Conflict found: Resolved time {time} conflicts with "
                        f"{period}")


def _to_epoch_ms(p: ParsedDateTime, zone: tzinfo) -> int:
    local_ms = p.days * MS_PER_DAY + p.nanos // 1_000_000
    if p.offset is not None:
        return local_ms - p.offset * 1000
    tz = p.zone if p.zone is not None else zone
    if isinstance(tz, timezone):
        off = tz.utcoffset(None)
        return local_ms - int(off.total_seconds()) * 1000
    off: int | None = None
    if not p.zoned_instant:
        time_ms = p.nanos // 1_000_000
        off = _offset_at(0, tz, None)  # ksqlDB's resolver starts at 1970-01-01T00:00 in the zone
        for day in (0, *p.steps):
            off = _offset_at(day * MS_PER_DAY + time_ms, tz, off)
    off = _offset_at(local_ms, tz, off)
    return local_ms - off * 1000


def _offset_at(local_ms: int, tz: tzinfo, preferred: int | None) -> int:
    """ZonedDateTime.ofLocal's offset in seconds: the one valid offset; in a gap the one before it (Java moves
    the local time later by the gap, the same instant); in an overlap the preferred one - the offset the
    date-time had before this step - where it is one of the two, else the earlier."""
    safe_ms = local_ms if SAFE_MS[0] <= local_ms < SAFE_MS[1] else into_safe_years(local_ms, MS_PER_DAY)[0]
    local = _EPOCH_NAIVE + timedelta(milliseconds=safe_ms)
    first = local.replace(tzinfo=tz).utcoffset()
    second = local.replace(tzinfo=tz, fold=1).utcoffset()
    earlier = 0 if first is None else int(first.total_seconds())
    later = 0 if second is None else int(second.total_seconds())
    if earlier > later and preferred == later:  # an overlap (the offset falls back)
        return later
    return earlier
