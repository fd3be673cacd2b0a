"""The shell's progress line while a new persistent query works through a backlog.

After a statement starts a persistent query, an interactive shell watches the query's input positions
(EXPLAIN's per-task offsets and lag, the same on the embedded engine and over REST) and rewrites one line:

    CTAS_TOTALS_3: 41,000 / 100,000 records (41%), 20,500 records/s, ETA 3s

until the query has caught up. Ctrl-C returns to the prompt at once; the query keeps running.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CREATED = re.compile(r"Created query with ID (\S+)")


@dataclass
class Progress:
    done: int  # records committed since the query started (all its input partitions)
    total: int  # the partitions' end offsets, from the query's start
    lag: int


def started_query(entities: list[dict[str, Any]]) -> str | None:
    """The id of the persistent query a statement's result says it started, if any."""
    for e in entities:
        status = e.get("commandStatus") or {}
        qid = status.get("queryId")
        if qid:
            return str(qid)
        m = CREATED.search(str(status.get("message") or e.get("message") or ""))
        if m:
            return m.group(1)
    return None


def progress_of(description: dict[str, Any], first: dict[tuple[str, int], int]) -> Progress:
    """Progress from EXPLAIN's ``tasksMetadata``; ``first`` remembers each input's offset when watching began."""
    done = total = lag = 0
    for task in description.get("tasksMetadata") or []:
        for o in task.get("topicOffsets") or []:
            tp = o.get("topicPartition") or {}
            key = (str(tp.get("topic")), int(tp.get("partition", 0)))
            offset, end = int(o.get("offset", 0)), int(o.get("endOffset", o.get("offset", 0)))
            start = first.setdefault(key, offset)
            done += max(0, offset - start)
            total += max(0, end - start)
            lag += int(o.get("lag", max(0, end - offset)))
    return Progress(done, total, lag)


def line(query_id: str, p: Progress, rate: float) -> str:
    pct = f" ({100 * p.done // p.total}%)" if p.total else ""
    eta = f", ETA {max(1, round(p.lag / rate))}s" if rate > 0 and p.lag else ""
    return f"{query_id}: {p.done:,} / {p.total:,} records{pct}, {rate:,.0f} records/s{eta}"


def watch(query_id: str, describe: Callable[[str], dict[str, Any]], write: Callable[[str], None],
          *, interval_s: float = 0.5, stall_s: float = 30.0, clock: Callable[[], float] = time.monotonic,
          sleep: Callable[[float], None] | None = None) -> Progress | None:
    """Rewrite the progress line until the query has no lag (or made no progress for ``stall_s``).

    ``describe(query_id)`` returns the query's EXPLAIN description; ``write`` writes text without a newline.
    Returns the last progress seen (None: nothing to watch)."""
    first: dict[tuple[str, int], int] = {}
    p = progress_of(describe(query_id), first)
    if p.lag == 0:
        return None
    started = last_move = clock()
    last_done = p.done
    shown = ""
    try:
        while p.lag > 0:
            now = clock()
            if p.done != last_done:
                last_move, last_done = now, p.done
            if now - last_move > stall_s:
                break
            rate = p.done / (now - started) if now > started else 0.0
            text = line(query_id, p, rate)
            write("\r" + text + " " * max(0, len(shown) - len(text)))
            shown = text
            (sleep or time.sleep)(interval_s)
            p = progress_of(describe(query_id), first)
        if p.lag == 0:
            text = f"{query_id}: caught up, {p.done:,} records"
            write("\r" + text + " " * max(0, len(shown) - len(text)) + "\n")
        else:
            write("\n")
    except KeyboardInterrupt:
        write("\n")
    return p
