"""A task: one input partition number of one sub-topology, with its position and processing step.

``poll()`` is one unit of work: fetch what is available (up to a cap, never waiting to fill a batch),
decode it, run the fused pipeline, and in ONE log transaction produce the outputs and commit the
input position. That transaction is what makes a batch atomic on the embedded log.

With ``commit_interval_s`` > 0 (worker processes: ``commit.interval.ms``, as Kafka Streams commits) the
writes of several batches are held and committed together - outputs, changelog records and the input
position in one log transaction, then the stores' local files - when the interval has passed, when the
input is caught up, or when the owner asks (``commit_now()``: revoke, stop). On Kafka that is one producer
flush and one offset commit (or one transaction) per interval instead of per batch. A crash loses only
held work, which is re-read from the committed position: the guarantees are those of one batch.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from ksqlpy.errors import StreamsError
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


def poll_batch(task: Any) -> int:
    """``task.poll()`` with the cyclic GC paused for the batch.

    A batch's rows, outputs and their tuples (five outputs per bid for a hopping count) are alive until
    the batch is written and die together when ``poll`` returns; a collection in between scans them all
    and promotes the survivors, so the older generations scan them again (measured: 17 % of a hopping
    count's CPU with every update emitted). Paused until ``poll`` has returned and freed them, the
    collector only sees what outlives a batch. Cycles made during a batch are collected afterwards.
    """
    if not gc.isenabled():
        return task.poll()
    gc.disable()
    try:
        return task.poll()
    finally:
        gc.enable()


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
        self.commit_interval_s = 0.0  # > 0: hold batches and commit them together (see the module doc)
        self.committed_position = self.position
        self._held: HeldWrites | None = None  # processed batches not committed yet
        self._held_rows: list[tuple] = []  # their rows, for on_rows after the commit
        self._held_since = 0.0

    def prefetch(self) -> None:
        """Tell the log where the first fetch will be (see ``Log.prefetch``)."""
        self.log.prefetch(self.topic, self.partition, self.position)

    def poll(self) -> int:
        """Process one batch; returns the number of input records consumed (0: caught up)."""
        batch = self.log.fetch(self.topic, self.partition, self.position, self.max_batch)
        if not batch.offsets:
            self.commit_now()  # caught up: what is held goes out now, not at the end of the interval
            if self.idle_ms is not None:
                self._idle()
            return 0
        decoded = self.reader.decode(batch)
        held = self._held
        try:
            if held is None:
                held = self._held = HeldWrites()  # processed outside the log transaction (runtime.batch_writes)
                self._held_since = time.monotonic()
            rows = self.processor(decoded, held)
            if self.writer is not None and rows:
                self.writer.write(held, rows)
            if self.commit:
                held.commit_offsets(self.group, {(self.topic, self.partition): batch.next_offset})
        except StreamsError:
            self._abort()
            raise
        except Exception as e:  # an operator or the sink failed on a record: the query stops (StreamsException)
            self._abort()
            raise StreamsError(self.task_id, self.topic, self.partition, batch.offsets[0], e) from e
        except BaseException:
            self._abort()
            raise
        if self.on_rows is not None and rows:
            self._held_rows.extend(rows)
        self.position = batch.next_offset
        self.processed += len(batch.offsets)
        if self.commit_interval_s <= 0 or time.monotonic() - self._held_since >= self.commit_interval_s:
            self.commit_now()
        return len(batch.offsets)

    @property
    def pending(self) -> bool:
        """Processed batches wait for their commit."""
        return self._held is not None

    def commit_now(self) -> None:
        """Commit the held batches: their writes and input position in one log transaction, then the
        processor's local state (``after_commit``)."""
        held = self._held
        if held is None:
            return
        try:
            with self.log.transaction() as tx:
                held.replay(tx)
        except BaseException:
            self._abort()
            raise
        self._held = None
        self.committed_position = self.position
        after = getattr(self.processor, "after_commit", None)
        if after is not None:
            after()
        rows, self._held_rows = self._held_rows, []
        if self.on_rows is not None and rows:
            self.on_rows(rows)

    def _abort(self) -> None:
        """The transaction failed: stateful processors drop their uncommitted changes and the task
        resumes from its committed position."""
        self._held = None
        self._held_rows = []
        self.position = self.committed_position
        abort = getattr(self.processor, "abort", None)
        if abort is not None:
            abort()

    def discard(self) -> None:
        """Forget held batches without committing them (the partition moved to another worker, or the
        held work failed): the next owner re-reads them from the committed position."""
        if self._held is not None:
            self._abort()

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


def prefetch_all(tasks: list[Any]) -> None:
    """Announce every task's first fetch before any task fetches (``Log.prefetch``)."""
    for t in tasks:
        pre = getattr(t, "prefetch", None)
        if pre is not None:
            pre()


def stateless_processor(pipeline: Callable[..., None], plog: ProcessingLog, query_id: str, *,
                        keep_null_keys: bool = False) -> Processor:
    """Wrap a generated stateless pipeline as a task processor.

    ``keep_null_keys``: the query keeps its input's key (no re-key) and writes ``(key group, value group,
    ...)`` rows: a record read with a null Kafka key goes out with a null key (``None`` for its key group)
    rather than a key of NULL columns, as ksqlDB passes the record's key object through. The records of a
    batch run through the pipeline in runs of null and non-null keys, in order.
    """

    def process(d: DecodedBatch, tx: Any) -> list[tuple]:
        out: list[tuple] = []

        def err(i: int, what: str, exc: BaseException) -> None:
            plog.expression_error(query_id, what, exc, d.rows[i])

        if not (keep_null_keys and d.null_keys):
            pipeline(d.rows, d.timestamps, d.partitions, d.offsets, d.headers, d.tombstones, out, err)
            return out
        for start, end, null in _key_runs(len(d.rows), d.null_keys):
            def run_err(i: int, what: str, exc: BaseException, _at: int = start) -> None:
                err(_at + i, what, exc)

            before = len(out)
            pipeline(d.rows[start:end], d.timestamps[start:end], d.partitions[start:end], d.offsets[start:end],
                     d.headers[start:end], d.tombstones[start:end], out, run_err)
            if null:
                out[before:] = [(None, *r[1:]) for r in out[before:]]
        return out

    return process


def _key_runs(n: int, null_keys: list[int]) -> list[tuple[int, int, bool]]:
    """``[start, end)`` runs of records covering ``range(n)``, each all null-keyed or all keyed."""
    runs: list[tuple[int, int, bool]] = []
    at = 0
    for i in null_keys:
        if i > at:
            runs.append((at, i, False))
        if runs and runs[-1][2] and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1, True)
        else:
            runs.append((i, i + 1, True))
        at = i + 1
    if at < n:
        runs.append((at, n, False))
    return runs
