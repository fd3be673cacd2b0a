"""What every part of the Java date/time layer shares: its error and the epoch constants."""

from __future__ import annotations

from datetime import UTC, datetime

from ksqlpy.functions.signatures import FunctionError

MS_PER_DAY = 86_400_000
NANOS_PER_DAY = 86_400_000_000_000
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_NAIVE = datetime(1970, 1, 1)


class DateTimeError(FunctionError):
    """A value or pattern that ksqlDB's date/time code rejects (KsqlFunctionException there): NULL + processing
    log for that expression, never a stopped query."""
