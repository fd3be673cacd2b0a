"""The grace period and retention a windowed aggregation gets when its WINDOW clause leaves them out.

ksqlDB's ``StreamAggregateBuilder`` builds its windows with Kafka Streams' old default: a grace of one day
minus the window size (the inactivity gap for sessions), never below zero. EMIT FINAL without a GRACE
PERIOD closes windows at their end (grace 0). The window store keeps a window for its size plus the grace
unless RETENTION says otherwise, and Kafka Streams refuses a retention shorter than that.
"""

from __future__ import annotations

DAY_MS = 24 * 3600 * 1000
STORE_NAME = "Aggregate-Aggregate-Materialize"


def default_grace_ms(size_ms: int, emit_final: bool) -> int:
    """The grace of a window of ``size_ms`` (the gap for SESSION) whose WINDOW clause has no GRACE PERIOD."""
    return 0 if emit_final else max(DAY_MS - size_ms, 0)


def grace_ms(size_ms: int, grace: int | None, emit_final: bool) -> int:
    """The grace period in force: the clause's, else the default."""
    return grace if grace is not None else default_grace_ms(size_ms, emit_final)


def retention_error(window_type: str, size_ms: int, grace: int, retention_ms: int) -> str | None:
    """Kafka Streams' refusal of a window store whose retention is shorter than size (gap) plus grace. The sum
    is a Java long: one that overflows (a saturated size or grace, ``grammar.base.parse_duration``) wraps
    negative and passes, as in Kafka Streams."""
    total = (size_ms + grace + 2**63) % 2**64 - 2**63
    if retention_ms >= total:
        return None
    if window_type == "SESSION":
        return (f"The retention period of the session store {STORE_NAME} must be no smaller than the session "
                f"inactivity gap plus the grace period. Got gap=[{size_ms}], grace=[{grace}], "
                f"retention=[{retention_ms}]")
    return (f"The retention period of the window store {STORE_NAME} must be no smaller than its window size "
            f"plus the grace period. Got size=[{size_ms}], grace=[{grace}], retention=[{retention_ms}]")
