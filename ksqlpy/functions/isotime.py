"""ISO-8601 text forms of DATE, TIME and TIMESTAMP, as ksqlDB casts them (SqlTimeTypes) and reads partial
timestamp strings in comparisons (PartialStringToTimestampParser: '2020-01-01T00' is zero-padded)."""

from __future__ import annotations

import re
from functools import lru_cache

from ksqlpy.functions.javatime import (
    MS_PER_DAY,
    UTC_ZONE,
    DateTimeError,
    civil_from_days,
    compile_pattern,
    zone_of,
)


def format_timestamp_iso(ms: int) -> str:
    """CAST(ts AS STRING): ksqlDB's SqlTimeTypes formats with the pattern ``yyyy-MM-dd'T'HH:mm:ss.SSS`` in UTC
    (from memory), so the year is the year of era: year 0 prints 0001, year -1 0002 (a DATE's
    ``LocalDate.toString`` signs them instead)."""
    days, rem = divmod(ms, MS_PER_DAY)
    y, mo, d = civil_from_days(days)
    secs, milli = divmod(rem, 1000)
    return f"{_iso_year(y if y > 0 else 1 - y)}-{mo:02d}-{d:02d}T{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}.{milli:03d}"


def _iso_year(y: int) -> str:
    """Java LocalDate year printing: 4 digits, ``+`` beyond 9999, ``-`` before year 0."""
    if 0 <= y <= 9999:
        return f"{y:04d}"
    if y > 9999:
        return f"+{y}"
    return f"-{-y:04d}"


def format_date_iso(days: int) -> str:
    """CAST(date AS STRING): Java ``LocalDate.toString`` (``2020-01-01``)."""
    y, m, d = civil_from_days(days)
    return f"{_iso_year(y)}-{m:02d}-{d:02d}"


def format_time_cast(ms: int) -> str:
    """CAST(time AS STRING): ksqlDB's ``SqlTimeTypes.formatTime`` builds a ``LocalTime`` from the whole
    seconds of the day, so the text is ``HH:mm``, then ``:ss`` when non-zero, never milliseconds."""
    return format_time_iso(ms - ms % 1000)


def format_time_iso(ms: int) -> str:
    """A TIME as Java ``LocalTime.toString`` (TO_JSON_STRING, REST rows): ``HH:mm``, then ``:ss`` and ``.SSS``
    when non-zero."""
    ms %= MS_PER_DAY
    secs, milli = divmod(ms, 1000)
    out = f"{secs // 3600:02d}:{secs // 60 % 60:02d}"
    if secs % 60 or milli:
        out += f":{secs % 60:02d}"
        if milli:
            out += f".{milli:03d}"
    return out


_ISO_TS = compile_pattern("yyyy-MM-dd'T'HH:mm:ss.SSS")
_HELP = (
    " Required format is: \"yyyy-MM-dd'T'HH:mm:ss.SSS\", with an optional numeric 4-digit timezone, "
    "e.g. '2020-05-26T23:59:58.000+0100'. Partials are also supported, for example \"2020-05-26\""
)


def _complete_date(text: str) -> str:
    parts = text.split("-")
    if len(parts) == 1:
        return text + "-01-01"
    if len(parts) == 2:
        return text + "-01"
    return text


def _complete_time(text: str) -> str:
    full = "00:00:00.000"
    return text if len(text) >= len(full) else text + full[len(text) :]


@lru_cache(maxsize=4096)
def parse_timestamp_iso(text: str) -> int:
    """CAST(s AS TIMESTAMP) and ROWTIME/TIMESTAMP comparisons with strings (ksqlDB's partial parser).

    ``2020``, ``2020-05``, ``2020-05-26``, ``2020-05-26T23``, ``...T23:59:58.000``, with an optional zone
    after the time (``Z``, ``+0100``, ``-05:00``, ``+01``); UTC otherwise. Cached: literals repeat.
    """
    if "T" in text:
        date_part, rest = text.split("T", 1)
        if "+" in rest:
            tz_text = rest[rest.index("+") :]
        elif "-" in rest:
            tz_text = rest[rest.index("-") :]
        else:
            tz_text = ""
        time_part = rest[: len(rest) - len(tz_text)]
        if time_part.endswith("Z"):
            time_part = time_part[:-1]
        time_part = _complete_time(time_part)
    else:
        date_part, time_part, tz_text = _complete_date(text), _complete_time(""), ""
    try:
        zone = zone_of(tz_text) if tz_text.strip() else UTC_ZONE
        return _ISO_TS.parse_timestamp(f"{date_part}T{time_part}", zone)
    except DateTimeError as e:
        raise DateTimeError(f"Failed to parse timestamp '{text}': {e.message}{_HELP}") from e


@lru_cache(maxsize=4096)
def parse_date_iso(text: str) -> int:
    """CAST(s AS DATE) and DATE comparisons with strings: ``2020-01-01`` (partials ``2020-01``, ``2020``)."""
    try:
        ms = parse_timestamp_iso(text)
    except DateTimeError as e:
        raise DateTimeError(f"Failed to parse date '{text}': {e.message}") from e
    return ms // MS_PER_DAY


_ISO_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?", re.ASCII)


@lru_cache(maxsize=4096)
def parse_time_iso(text: str) -> int:
    """CAST(s AS TIME) and TIME comparisons with strings: ``HH:mm[:ss[.fraction]]`` (Java ISO_LOCAL_TIME)."""
    m = _ISO_TIME.fullmatch(text)
    if m is None:
        raise DateTimeError(f"Failed to parse time '{text}': expected HH:mm[:ss[.SSS]]")
    h, mi, s, frac = int(m[1]), int(m[2]), int(m[3] or 0), m[4] or ""
    if h > 23 or mi > 59 or s > 59:
        raise DateTimeError(f"Failed to parse time '{text}': value out of range")
    return ((h * 60 + mi) * 60 + s) * 1000 + int(frac.ljust(9, "0")) // 1_000_000


def timestamp_to_date(ms: int) -> int:
    """CAST(ts AS DATE): the UTC day of the instant (floor: -2000 ms is 1969-12-31)."""
    return ms // MS_PER_DAY


def timestamp_to_time(ms: int) -> int:
    """CAST(ts AS TIME): the UTC time of day in ms (floor: -2000 ms is 23:59:58)."""
    return ms % MS_PER_DAY


def date_to_timestamp(days: int) -> int:
    """CAST(date AS TIMESTAMP) and DATE vs TIMESTAMP comparisons: midnight UTC."""
    return days * MS_PER_DAY
