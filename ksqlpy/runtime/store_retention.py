"""What a window or session store still returns: the one retention rule every read applies.

Kafka Streams' segmented window and session stores read from ``observed time - retention + 1``
(``getActualFrom``), the observed time being the newest timestamp the store was written with - a window's
start, a session's end. What lies before that is expired whether or not its segment has been dropped yet:
a pull query (key lookup, range of WINDOWSTART/WINDOWEND, table scan) does not see it, and a record does not
merge into such a session (``session_retention``). Our stores purge after each batch; reads apply the bound
themselves so a purge that has not run (or runs at a coarser edge) changes nothing.

The observed time follows from the stream time: every record that moves stream time is on time and writes
the window (session) it ends up in - for TUMBLING/HOPPING windows the newest start holding the stream time,
for sessions the session ending at it.

EMIT FINAL's look for closed time windows (``TimeWindowAggregator.emit_closed``) keeps its own bound, one
lower (``emit_floor``): a window starting exactly ``retention`` before the newest start still goes out, as
ksqlDB's own hopping-window EMIT FINAL results show (SIZE 5, ADVANCE BY 2, GRACE 1: the window [0, 5) is
emitted when stream time reaches 6)."""

from __future__ import annotations


def first_retained(observed: int, retention: int) -> int:
    """The earliest window start (session end) a store whose observed time is ``observed`` still returns."""
    return observed - retention + 1


def newest_window_start(stream_time: int, advance: int) -> int:
    """The start of the newest TUMBLING/HOPPING window holding ``stream_time``: the store's observed time."""
    return stream_time // advance * advance


def emit_floor(stream_time: int, advance: int, retention: int) -> int:
    """EMIT FINAL's lowest window start for closed time windows (see the module docstring)."""
    return first_retained(newest_window_start(stream_time, advance), retention) - 1
