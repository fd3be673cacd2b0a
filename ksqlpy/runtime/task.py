"""A task: one input partition number of one sub-topology, with its position and processing step.

``poll()`` is one unit of work: fetch what is available (up to a cap, never waiting to fill a batch),
decode it, run the fused pipeline, and in ONE log transaction produce the outputs and commit the
input position. That transaction is what makes a batch atomic on the embedded log.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from ksqlpy.log.base import Log
from ksqlpy.runtime.batch_writes import HeldWrites
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.reader import DecodedBatch, SourceReader
from ksqlpy.runtime.writer import SinkWriter

# process(decoded, tx) -> rows to write; a stateful processor also writes its state inside tx.
Processor = Callable[[DecodedBatch, Any], list[tuple]]


_GC_GEN0 = 50_000


def tune_gc() -> None:
    """Raise the cyclic GC's first-generation threshold (CPython's default: 700 allocations).

    A batch allocates tens of thousands of short-lived, acyclic tuples and dicts; with the default a
    young-generation collection runs every few dozen records and older ones follow - measured 15-30 %
    of a stateless query's CPU time. Reference counting frees batch objects anyway; the collector is
    only needed for cycles, and still runs, just less often.
    """
    g0, g1, g2 = gc.get_threshold()
    if 0 < g0 < _GC_GEN0:
        gc.set_threshold(_GC_GEN0, g1, g2)


class Task:
    def __init__(self, *, task_id: str, log: Log, group: str, topic: str, partition: int,
                 reader: SourceReader, processor: Processor, writer: SinkWriter | None,
                 plog: ProcessingLog, start_at: str = "latest", max_batch: int = 10000,
                 on_rows: Callable[[list[tuple]], None] | None = None, commit: bool = True) -> None:
        tune_gc()
        self.task_id = task_id
        self.log = log
        self.group = group
        self.topic = topic
        self.partition = partition
        self.reader = reader
        self.processor = processor
        self.writer = writer
        self.plog = plog
        self.max_batch = max_batch
        self.on_rows = on_rows
        self.commit = commit  # transient (push/pull) tasks keep their position in memory only
        committed = log.committed(group, topic, partition)
        if committed is not None:
            self.position = committed
        elif start_at == "earliest":
            self.position = log.start_offset(topic, partition)
        else:
            self.position = log.end_offset(topic, partition)
        if committed is None and commit:
            # pin where a new persistent query starts: "latest" means from its creation, even if it is
            # restarted before it has processed (and committed) anything
            with log.transaction() as tx:
                tx.commit_offsets(group, {(topic, partition): self.position})
        self.processed = 0
        self.idle_ms: int | None = None  # set for processors with work due on quiet input (idle_rows)

    def poll(self) -> int:
        """Process one batch; returns the number of input records consumed (0: caught up)."""
        batch = self.log.fetch(self.topic, self.partition, self.position, self.max_batch)
        if not batch.offsets:
            if self.idle_ms is not None:
                self._idle()
            return 0
        decoded = self.reader.decode(batch)
        try:
            held = HeldWrites()  # processed outside the log transaction (see runtime.batch_writes)
            rows = self.processor(decoded, held)
            if self.writer is not None and rows:
                self.writer.write(held, rows)
            if self.commit:
                held.commit_offsets(self.group, {(self.topic, self.partition): batch.next_offset})
            with self.log.transaction() as tx:
                held.replay(tx)
        except BaseException:
            self._abort()
            raise
        after = getattr(self.processor, "after_commit", None)
        if after is not None:
            after()
        if self.on_rows is not None and rows:
            self.on_rows(rows)
        self.position = batch.next_offset
        self.processed += len(batch.offsets)
        return len(batch.offsets)

    def _abort(self) -> None:
        """The batch's transaction failed: stateful processors drop their uncommitted changes."""
        abort = getattr(self.processor, "abort", None)
        if abort is not None:
            abort()

    def _idle(self) -> None:
        """No input: a processor may still have work due on a quiet stream (EMIT FINAL idle advance)."""
        idle_rows = getattr(self.processor, "idle_rows", None)
        step = idle_rows(self.idle_ms) if idle_rows is not None else None
        if step is None:
            return
        try:
            with self.log.transaction() as tx:
                rows = step(tx)
                if self.writer is not None and rows:
                    self.writer.write(tx, rows)
        except BaseException:
            self._abort()
            raise
        after = getattr(self.processor, "after_commit", None)
        if after is not None:
            after()
        if self.on_rows is not None and rows:
            self.on_rows(rows)


def stateless_processor(pipeline: Callable[..., None], plog: ProcessingLog, query_id: str) -> Processor:
    """Wrap a generated stateless pipeline as a task processor."""

    def process(d: DecodedBatch, tx: Any) -> list[tuple]:
        out: list[tuple] = []

        def err(i: int, what: str, exc: BaseException) -> None:
            plog.record_error(query_id, f"Error computing expression {what}: {exc}", d.rows[i])

        pipeline(d.rows, d.timestamps, d.partitions, d.offsets, d.headers, d.tombstones, out, err)
        return out

    return process
