"""Commits behind processing: a task hands its held batches to a committer thread and goes on with the
next batch while they are written (``ksqlpy.commit.pipelined``).

Why a thread helps although the GIL is one: what a commit waits for runs without it - LMDB's writer lock
(held by another worker process of the query, or another query), the puts' copies into the map and the
commit's writes of dirty pages (py-lmdb drops the GIL around every LMDB call). Fetching, decoding,
evaluating and encoding hold the GIL, so they stay on the task's own thread: a reader thread in front of
them would only take turns with it. Records are packed into chunks before the hand-over
(``log.embedded_prepare``), so the committer thread holds the GIL only briefly.

Exactness is that of one batch: a batch's outputs and its input position are still one log transaction;
at most one commit per task is in flight (the bounded queue: the next hand-over waits for it), and a
failed one aborts the task back to its committed position, discarding what was processed meanwhile.
Only tasks whose processing keeps nothing between batches are pipelined (no stores, a processor with
nothing to flush, commit or abort): their next batch cannot depend on state the commit has not made
durable. Only on a log whose transactions may run in another thread (``Log.commits_in_threads``).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ksqlpy.runtime.processor import BaseOperator

PROPERTY = "ksqlpy.commit.pipelined"
DEFAULT = False


def wanted(prop: Any) -> bool:
    """``ksqlpy.commit.pipelined`` (``prop``: the context's property lookup)."""
    return str(prop(PROPERTY, DEFAULT)).strip().lower() == "true"


def eligible(task: Any) -> bool:
    """A persistent task whose batches are independent of each other's commits (see the module doc)."""
    proc = getattr(task, "processor", None)
    if proc is None or not getattr(task, "commit", False) or getattr(task, "stores", True) \
            or getattr(task, "idle_ms", None) is not None or not hasattr(task, "committer"):
        return False
    if not getattr(task.log, "commits_in_threads", False):
        return False
    kind = type(proc)
    return all(getattr(kind, name, None) is getattr(BaseOperator, name) for name in ("flush", "after_commit", "abort"))


class Committer:
    """One committer thread shared by the pipelined tasks of a worker (or an engine)."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None

    def submit(self, fn: Any, *args: Any) -> Any:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ksqlpy-commit")
        return self._pool.submit(fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


_SHARED = Committer()  # one committer thread per process (a worker process, or an engine's inline queries)


def attach(tasks: list[Any], committer: Committer = _SHARED) -> int:
    """Pipeline the commits of the eligible ``tasks``; returns how many."""
    n = 0
    for t in tasks:
        if eligible(t):
            t.committer = committer
            n += 1
    return n
