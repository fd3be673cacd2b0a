"""The ``Processor`` protocol: what a task drives, for single- and multi-input operators alike.

Kafka Streams' layering, over batches: a task owns its input positions and its state stores; it opens
the stores, restores them from their changelogs (the restore phase), then ``init()``s its processor,
which may now read what it keeps in them. Per batch the task calls ``process`` (outputs for the task's
writer), then ``flush`` (the batch's state changes onto their changelogs, inside the batch's log
transaction); once the transaction commits, ``after_commit`` (the local state files catch up), or, if it
failed, ``abort`` (uncommitted changes are dropped; the task resumes from its committed positions).
``punctuate`` is the wall-clock hook (EMIT FINAL windows closing on a quiet stream); ``close`` releases
what the processor holds when the task goes away.

A single-input task hands ``process`` a ``DecodedBatch`` of its one input; a multi-input task (joins)
hands it the records of all its inputs merged in timestamp order (``runtime.join_task``), which its
processor dispatches record by record to the join operators' input handlers. Those operators have the
same lifecycle (``Lifecycle``: init, flush, after_commit, abort, close) without a batch interface of
their own. Processors compose: a wrapper forwards the lifecycle calls to what it wraps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ksqlpy.log.base import LogTransaction

# a punctuation's work, run by the task in a log transaction: (tx) -> rows for the task's writer
Punctuation = Callable[[LogTransaction], list[tuple]]


class Lifecycle(Protocol):
    """The state lifecycle every processor and operator has (see the module docstring)."""

    def init(self) -> None:
        """The task's stores are restored: load what the processor keeps in them."""
        ...

    def flush(self, tx: LogTransaction) -> None:
        """Put what is held in memory into the stores: the task then writes the stores' changes to their
        changelogs, in the batch's transaction."""
        ...

    def after_commit(self) -> None:
        """The batch's transaction committed: local state catches up."""
        ...

    def abort(self) -> None:
        """The batch's transaction failed: the stores dropped their uncommitted changes; drop what is
        held in memory too (re-read it from the stores)."""
        ...

    def close(self) -> None:
        """The task goes away."""
        ...


class Processor(Lifecycle, Protocol):
    """One task's processing step (see the module docstring for when each method is called)."""

    def process(self, batch: Any, tx: LogTransaction) -> list[tuple]:
        """One batch: the rows for the task's writer. Records for other topics go into ``tx``."""
        ...

    def punctuate(self, idle_ms: int) -> Punctuation | None:
        """No input for ``idle_ms``: work due on wall-clock time, or None."""
        ...


class BaseOperator:
    """Nothing to load, flush, commit or close (override what applies)."""

    def init(self) -> None:
        pass

    def flush(self, tx: LogTransaction) -> None:
        pass

    def after_commit(self) -> None:
        pass

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass


class BaseProcessor(BaseOperator):
    """A processor with nothing to restore, flush, commit or close (override what applies)."""

    def process(self, batch: Any, tx: LogTransaction) -> list[tuple]:
        raise NotImplementedError

    def punctuate(self, idle_ms: int) -> Punctuation | None:
        return None


class Wrapping(BaseProcessor):
    """A processor around another one: lifecycle calls go on to ``inner`` (then to the wrapper's own)."""

    def __init__(self, inner: Processor) -> None:
        self.inner = inner

    def init(self) -> None:
        self.inner.init()

    def flush(self, tx: LogTransaction) -> None:
        self.inner.flush(tx)

    def after_commit(self) -> None:
        self.inner.after_commit()

    def abort(self) -> None:
        self.inner.abort()

    def punctuate(self, idle_ms: int) -> Punctuation | None:
        return self.inner.punctuate(idle_ms)

    def close(self) -> None:
        self.inner.close()
