"""Which sessions a record can no longer reach: those past the session store's retention.

Kafka Streams' segmented session store reads a key's sessions from ``max(earliest end, observed time -
retention + 1)``, its observed time being the newest session end written to it. Every record that moved
stream time wrote a session ending at its timestamp, and a late record never moves it, so the observed
time is the stream time before the record. A session that ended at or before it - retention is therefore
not found even when it lies within a gap of an on-time record: the record starts a new session instead of
growing it. (A record that moves stream time is unaffected: the sessions it reaches end at or after its
timestamp - gap, later than the bound, since retention is at least gap + grace.)

Every session loop (``session_windows``, ``session_batch``, ``session_fold``) applies the same bound, the
batch loops to the sessions they hold in memory as the batch's stream time grows; pull queries read with
the same bound (``store_retention``).
"""

from __future__ import annotations

from ksqlpy.runtime.store_retention import first_retained


def expired_up_to(stream_time: int, retention: int) -> int:
    """Sessions ending at or before this are past retention for a record that arrives when stream time is
    ``stream_time`` (before the record)."""
    return first_retained(stream_time, retention) - 1
