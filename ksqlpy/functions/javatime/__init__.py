"""Java ``DateTimeFormatter`` patterns and Java time zones, as ksqlDB applies them.

ksqlDB's date/time functions take Java patterns (``yyyy-MM-dd'T'HH:mm:ss.SSSX``) and Java zone ids. Users
copy them from ksqlDB docs, so we read them with Java's rules: :func:`compile_pattern` translates a pattern
once (``lru_cache``) into a generated Python formatter and a compiled regex parser; the per-record cost is
one f-string-like concatenation or one regex match.

Parsing follows ksqlDB's formatters: case-insensitive (``parseCaseInsensitive``), missing fields default to
1970-01-01T00:00:00.000 (``parseDefaulting``), SMART resolution (day-of-month clamped to the month's length),
a parsed offset beats a parsed zone which beats the function's zone argument, which defaults to UTC.

One idea per module: ``pattern`` (lexing a pattern; what each letter means), ``formatting`` (printing
fields), ``parsing`` (reading and resolving fields), ``zones`` (zone ids and names), ``civil`` (calendar
arithmetic), ``compiled`` (a pattern compiled into both), ``base`` (the error and epoch constants). ISO-8601
casts live in ``ksqlpy.functions.isotime``.

Bad input raises :class:`DateTimeError` (a ``FunctionError``): NULL plus a processing-log entry for that
expression, as in ksqlDB.
"""

from __future__ import annotations

from .base import MS_PER_DAY, NANOS_PER_DAY, DateTimeError
from .civil import SAFE_MS, civil_from_days, days_from_civil, into_safe_years
from .compiled import JavaPattern, compile_pattern, timestamp_formatter, timestamp_parser
from .parsing import ParsedDateTime
from .zones import UTC_ZONE, zone_of

__all__ = [
    "MS_PER_DAY",
    "NANOS_PER_DAY",
    "SAFE_MS",
    "UTC_ZONE",
    "DateTimeError",
    "JavaPattern",
    "ParsedDateTime",
    "civil_from_days",
    "compile_pattern",
    "days_from_civil",
    "into_safe_years",
    "timestamp_formatter",
    "timestamp_parser",
    "zone_of",
]
