"""DATE / TIME / TIMESTAMP scalar functions, matching ksqlDB's results (see ``javatime`` for patterns/zones).

Values follow ``ksqlpy.types``: DATE = days since epoch, TIME = ms since midnight, TIMESTAMP = epoch ms (UTC).
Every function here returns NULL when an argument is NULL (``null_on_null``), as ksqlDB's do; failures raise
:class:`~ksqlpy.functions.javatime.DateTimeError` with ksqlDB's message, which the compiler turns into a NULL
result plus a processing-log record.

Units of DATEADD/DATESUB/TIMEADD/TIMESUB/TIMESTAMPADD/TIMESTAMPSUB: ksqlDB's grammar reads the first argument
as a bare keyword (``DATEADD(DAYS, 10, d)``). The compiler types such an argument as :data:`INTERVAL_UNIT` and
passes its name as a ``str`` (``'DAYS'``; singular and plural accepted, see :data:`TIME_UNITS`). Any other type
in that position is rejected with ksqlDB's "does not accept parameters" error.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ksqlpy.functions.javatime import (
    MS_PER_DAY,
    NANOS_PER_DAY,
    SAFE_MS,
    DateTimeError,
    compile_pattern,
    into_safe_years,
    zone_of,
)
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import Exact, Overload, udf
from ksqlpy.types import Primitive

# The type of a time-unit keyword argument (ksqlDB's IntervalUnit). Lives here until types.py grows it.
INTERVAL_UNIT = Primitive("INTERVALUNIT")

# Nanoseconds per unit, keyed by every spelling ksqlDB's grammar accepts (java.util.concurrent.TimeUnit).
TIME_UNITS: dict[str, int] = {}
for _names, _nanos in (
    (("NANOSECOND", "NANOSECONDS"), 1),
    (("MICROSECOND", "MICROSECONDS"), 1_000),
    (("MILLISECOND", "MILLISECONDS"), 1_000_000),
    (("SECOND", "SECONDS"), 1_000_000_000),
    (("MINUTE", "MINUTES"), 60_000_000_000),
    (("HOUR", "HOURS"), 3_600_000_000_000),
    (("DAY", "DAYS"), 86_400_000_000_000),
):
    for _name in _names:
        TIME_UNITS[_name] = _nanos


def _unit_nanos(unit: str) -> int:
    try:
        return TIME_UNITS[unit.upper()]
    except KeyError:
        raise DateTimeError(f"Unknown time unit: {unit}") from None


def _trunc_div(a: int, b: int) -> int:
    """Java integer division (towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _unit_to_millis(unit: str, interval: int) -> int:
    """``TimeUnit.toMillis(interval)``: exact for ms and above, truncated for finer units, saturated at the
    bounds of a Java long as TimeUnit does."""
    nanos = _unit_nanos(unit)
    if nanos >= 1_000_000:
        ms = interval * (nanos // 1_000_000)
    else:
        ms = _trunc_div(interval * nanos, 1_000_000)
    return max(_LONG_MIN, min(_LONG_MAX, ms))


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _java_long(v: int) -> int:
    """``v`` wrapped to a Java long (the sum of two longs overflows silently in Java)."""
    return (v + 2**63) % 2**64 - 2**63


# ---------------------------------------------------------------------------------------------------------
# Implementations (arguments are never NULL here: all functions are null_on_null)


def dateadd(unit: str, interval: int, days: int) -> int:
    """ksqlDB adds in milliseconds, then truncates to whole days (towards zero, like TimeUnit.toDays)."""
    return _trunc_div(days * MS_PER_DAY + _unit_to_millis(unit, interval), MS_PER_DAY)


def datesub(unit: str, interval: int, days: int) -> int:
    return _trunc_div(days * MS_PER_DAY - _unit_to_millis(unit, interval), MS_PER_DAY)


def timeadd(unit: str, interval: int, ms: int) -> int:
    """LocalTime arithmetic: wraps around midnight."""
    return (ms * 1_000_000 + _unit_nanos(unit) * interval) % NANOS_PER_DAY // 1_000_000


def timesub(unit: str, interval: int, ms: int) -> int:
    return (ms * 1_000_000 - _unit_nanos(unit) * interval) % NANOS_PER_DAY // 1_000_000


def timestampadd(unit: str, interval: int, ms: int) -> int:
    return _java_long(ms + _unit_to_millis(unit, interval))


def timestampsub(unit: str, interval: int, ms: int) -> int:
    return _java_long(ms - _unit_to_millis(unit, interval))


def _offset_ms(zone_id: str, ms: int) -> int:
    """TimeZone.getOffset(ms): any instant of a Java long (far years by the zone's rules, see into_safe_years)."""
    tz = zone_of(zone_id)
    if not SAFE_MS[0] <= ms < SAFE_MS[1]:
        ms = into_safe_years(ms, MS_PER_DAY)[0]
    instant = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    off = instant.astimezone(tz).utcoffset()
    return 0 if off is None else int(off.total_seconds() * 1000)


def convert_tz(ms: int, from_zone: str, to_zone: str) -> int:
    """Shift a timestamp by the difference of the two zones' offsets at that instant (ksqlDB CONVERT_TZ)."""
    try:
        return ms + _offset_ms(to_zone, ms) - _offset_ms(from_zone, ms)
    except DateTimeError as e:
        raise DateTimeError(f"Invalid time zone: {e.message}") from e


def format_date(days: int, pattern: str) -> str:
    try:
        return compile_pattern(pattern).format_date(days)
    except (DateTimeError, OverflowError) as e:
        raise DateTimeError(f"Failed to format date {days} with formatter '{pattern}': {_msg(e)}") from e


def format_time(ms: int, pattern: str) -> str:
    try:
        return compile_pattern(pattern).format_time(ms)
    except (DateTimeError, OverflowError) as e:
        raise DateTimeError(f"Failed to format time {ms} with formatter '{pattern}': {_msg(e)}") from e


_TS_FORMATTERS: dict[tuple[str, str], Callable[[int], str]] = {}  # by (pattern, zone): per-record calls


def format_timestamp(ms: int, pattern: str, zone: str = "GMT") -> str:
    """Without a zone ksqlDB formats in GMT (the ``z`` letter prints ``GMT``)."""
    try:
        fmt = _TS_FORMATTERS.get((pattern, zone))
        if fmt is None:
            fmt = compile_pattern(pattern).timestamp_formatter(zone_of(zone))
            if len(_TS_FORMATTERS) < 1024:
                _TS_FORMATTERS[(pattern, zone)] = fmt
        return fmt(ms)
    except (DateTimeError, OverflowError) as e:
        raise DateTimeError(f"Failed to format timestamp {ms} with formatter '{pattern}': {_msg(e)}") from e


def parse_date(text: str, pattern: str) -> int:
    try:
        return compile_pattern(pattern).parse_date(text)
    except DateTimeError as e:
        raise DateTimeError(f"Failed to parse date '{text}' with formatter '{pattern}': {e.message}") from e


def parse_time(text: str, pattern: str) -> int:
    try:
        return compile_pattern(pattern).parse_time(text)
    except DateTimeError as e:
        raise DateTimeError(f"Failed to parse time '{text}' with formatter '{pattern}': {e.message}") from e


def parse_timestamp(text: str, pattern: str, zone: str = "GMT") -> int:
    """Without a zone in the text or argument, ksqlDB reads the time as GMT."""
    try:
        return compile_pattern(pattern).parse_timestamp(text, zone_of(zone))
    except DateTimeError as e:
        raise DateTimeError(
            f"Failed to parse timestamp '{text}' with formatter '{pattern}': {e.message}"
        ) from e


def _msg(e: Exception) -> str:
    return e.message if isinstance(e, DateTimeError) else str(e)


def _identity(v: int) -> int:
    return v


def unix_timestamp_now() -> int:
    """Current epoch ms (non-deterministic: evaluated per record)."""
    return _time.time_ns() // 1_000_000


def unix_date_now() -> int:
    """Today's date in the server's zone, as days since epoch (Java ``LocalDate.now()``)."""
    return date.today().toordinal() - _EPOCH_ORDINAL


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


# ---------------------------------------------------------------------------------------------------------
# Declarations: (name, category-description, overload rows). Rows: (params, returns, impl[, deterministic]).

_UNIT = "UNIT"  # placeholder in the first parameter position, replaced by Exact(INTERVAL_UNIT)

_FUNCTIONS: list[tuple[str, str, list[tuple[Any, ...]]]] = [
    ("CONVERT_TZ", "Converts a TIMESTAMP value from one time zone to another.",
     [("TIMESTAMP, STRING, STRING", "TIMESTAMP", convert_tz)]),
    ("DATEADD", "Adds an interval to a DATE.", [(_UNIT + ", INT, DATE", "DATE", dateadd)]),
    ("DATESUB", "Subtracts an interval from a DATE.", [(_UNIT + ", INT, DATE", "DATE", datesub)]),
    ("TIMEADD", "Adds an interval to a TIME.", [(_UNIT + ", INT, TIME", "TIME", timeadd)]),
    ("TIMESUB", "Subtracts an interval from a TIME.", [(_UNIT + ", INT, TIME", "TIME", timesub)]),
    ("TIMESTAMPADD", "Adds an interval to a TIMESTAMP.",
     [(_UNIT + ", BIGINT, TIMESTAMP", "TIMESTAMP", timestampadd)]),
    ("TIMESTAMPSUB", "Subtracts an interval from a TIMESTAMP.",
     [(_UNIT + ", BIGINT, TIMESTAMP", "TIMESTAMP", timestampsub)]),
    ("FORMAT_DATE", "Converts a DATE into a string with a java.time.format.DateTimeFormatter pattern.",
     [("DATE, STRING", "STRING", format_date)]),
    ("FORMAT_TIME", "Converts a TIME into a string with a java.time.format.DateTimeFormatter pattern.",
     [("TIME, STRING", "STRING", format_time)]),
    ("FORMAT_TIMESTAMP", "Converts a TIMESTAMP into a string with a DateTimeFormatter pattern and optional "
     "time zone (UTC by default).",
     [("TIMESTAMP, STRING", "STRING", format_timestamp),
      ("TIMESTAMP, STRING, STRING", "STRING", format_timestamp)]),
    ("PARSE_DATE", "Converts a string into a DATE with a DateTimeFormatter pattern.",
     [("STRING, STRING", "DATE", parse_date)]),
    ("PARSE_TIME", "Converts a string into a TIME with a DateTimeFormatter pattern.",
     [("STRING, STRING", "TIME", parse_time)]),
    ("PARSE_TIMESTAMP", "Converts a string into a TIMESTAMP with a DateTimeFormatter pattern and optional "
     "time zone (UTC by default).",
     [("STRING, STRING", "TIMESTAMP", parse_timestamp),
      ("STRING, STRING, STRING", "TIMESTAMP", parse_timestamp)]),
    ("FROM_DAYS", "Converts days since epoch to a DATE.", [("INT", "DATE", _identity)]),
    ("FROM_UNIXTIME", "Converts milliseconds since epoch to a TIMESTAMP.", [("BIGINT", "TIMESTAMP", _identity)]),
    ("UNIX_DATE", "Days since epoch of a DATE, or of the current date without an argument.",
     [("", "INT", unix_date_now, False), ("DATE", "INT", _identity)]),
    ("UNIX_TIMESTAMP", "Milliseconds since epoch of a TIMESTAMP, or the current time without an argument.",
     [("", "BIGINT", unix_timestamp_now, False), ("TIMESTAMP", "BIGINT", _identity)]),
    # Deprecated forms on plain numbers.
    ("DATETOSTRING", "Deprecated, use FORMAT_DATE: converts days since epoch into a string.",
     [("INT, STRING", "STRING", format_date)]),
    ("STRINGTODATE", "Deprecated, use PARSE_DATE: converts a string into days since epoch.",
     [("STRING, STRING", "INT", parse_date)]),
    ("STRINGTOTIMESTAMP", "Deprecated, use PARSE_TIMESTAMP: converts a string into milliseconds since epoch.",
     [("STRING, STRING", "BIGINT", parse_timestamp), ("STRING, STRING, STRING", "BIGINT", parse_timestamp)]),
    ("TIMESTAMPTOSTRING", "Deprecated, use FORMAT_TIMESTAMP: converts milliseconds since epoch into a string.",
     [("BIGINT, STRING", "STRING", format_timestamp), ("BIGINT, STRING, STRING", "STRING", format_timestamp)]),
]  # fmt: skip


def _overload(row: tuple[Any, ...]) -> Overload:
    params: str = row[0]
    returns: str = row[1]
    impl: Callable[..., Any] = row[2]
    deterministic = row[3] if len(row) > 3 else None
    uses_unit = params.startswith(_UNIT)
    ov = Overload(params.replace(_UNIT, "STRING", 1) if uses_unit else params, returns, impl,
                  deterministic=deterministic)  # fmt: skip
    if uses_unit:
        ov.patterns = (Exact(INTERVAL_UNIT), *ov.patterns[1:])
    return ov


def register(registry: FunctionRegistry) -> None:
    """Add the DATE/TIME functions to ``registry``."""
    for name, description, rows in _FUNCTIONS:
        registry.register(
            udf(
                name,
                overloads=[_overload(r) for r in rows],
                category="DATE / TIME",
                description=description,
                null_on_null=True,
            )
        )


__all__ = ["INTERVAL_UNIT", "TIME_UNITS", "register"]
