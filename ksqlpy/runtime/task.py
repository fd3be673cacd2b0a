"""A task: one input partition number of one sub-topology, with its position, its state stores and its
processor (``runtime.processor``).

``init()`` is the restore phase: the task's stores replay their changelogs, then the processor loads what
it keeps in them, then the task finds its input position. Only then does it poll.

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
from ksqlpy.runtime.malloc_tuning import tune_malloc
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import Processor
from ksqlpy.runtime.reader import SourceReader
from ksqlpy.runtime.writer import SinkWriter
from ksqlpy.state.store import KeyValueStore

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

    The collection the batch made due runs here, in the task's thread, before ``poll_batch`` returns: the
    collector is paused process-wide, so otherwise it ran in whichever thread allocated next - in the
    server, often the event loop answering a key lookup, which then waited for the runner's garbage.
    """
    if not gc.isenabled():
        return task.poll()
    gc.disable()
    try:
        return task.poll()
    finally:
        gc.enable()
        collect_due()


def collect_due() -> None:
    """Run here the collection that is due. CPython runs it at the next allocation of a tracked object -
    ``gc.get_count()`` returning its tuple is one, in this thread; an interpreter that defers it past
    the allocation gets an explicit young collection instead."""
    if gc.get_count()[0] > gc.get_threshold()[0] > 0:
        gc.collect(0)


class Task:
    def __init__(self, *, task_id: str, log: Log, group: str, topic: str, partition: int,
                 reader: SourceReader, processor: Processor, writer: SinkWriter | None,
                 plog: ProcessingLog, start_at: str = "latest", max_batch: int = 10000,
                 on_rows: Callable[[list[tuple]], None] | None = None, commit: bool = True,
                 stores: list[KeyValueStore] | None = None) -> None:
        tune_gc()
        tune_malloc()
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
        self.stores: list[KeyValueStore] = []  # owned: restored, flushed, committed and closed by the task
        for kv in stores or []:
            self.add_store(kv)
        self.start_at = start_at
        self.initialized = False
        self.position = 0
        self.processed = 0
        self.idle_ms: int | None = None  # set for processors with work due on quiet input (punctuate)
        self.commit_interval_s = 0.0  # > 0: hold batches and commit them together (see the module doc)
        self.committed_position = 0
        self._held: HeldWrites | None = None  # processed batches not committed yet
        self._held_rows: list[tuple] = []  # their rows, for on_rows after the commit
        self._held_since = 0.0
        # the log's packing of a columnar batch before its write transaction (EmbeddedLog.prepare_batch)
        self._prepare = getattr(log, "prepare_batch", None)
        # a committer thread writing held batches while the next one is processed (runtime.commit_pipeline)
        self.committer: Any = None
        self._inflight: tuple[Any, int, list[tuple]] | None = None  # (future, position, rows) of that commit
        self.upstream_tasks: list[Any] = []  # in-process tasks writing this one's topic (runtime.alignment)
        self.drained = False  # the last fetch found nothing

    def has_input(self) -> bool:
        """Whether the task may hold records not processed (its last fetch found some, or it has not
        fetched yet: as the consumer's lag tells Kafka Streams, without asking the log), or processed ones
        not in the log yet."""
        return not self.drained or self._held is not None or self._inflight is not None

    def add_store(self, kv: KeyValueStore) -> None:
        """Own ``kv`` (once, however many of the task's operators use it)."""
        if all(kv is not s for s in self.stores):
            self.stores.append(kv)

    def init(self) -> None:
        """The restore phase (see the module docstring); idempotent."""
        if self.initialized:
            return
        for kv in self.stores:
            if not kv.is_restored:
                kv.restore()
        self.processor.init()
        log, group, topic, partition = self.log, self.group, self.topic, self.partition
        committed = log.committed(group, topic, partition)
        if committed is not None:
            self.position = committed
        elif self.start_at == "earliest":
            self.position = log.start_offset(topic, partition)
        else:
            self.position = log.end_offset(topic, partition)
        if committed is None and self.commit:
            # pin where a new persistent query starts: "latest" means from its creation, even if it is
            # restarted before it has processed (and committed) anything
            with log.transaction() as tx:
                tx.commit_offsets(group, {(topic, partition): self.position})
        self.committed_position = self.position
        self.initialized = True

    def close(self) -> None:
        """The task goes away: its processor, then its stores (held work is the owner's to commit first;
        a commit in flight finishes)."""
        if self._inflight is not None:
            self.discard()
        self.processor.close()
        for kv in self.stores:
            kv.close()
        self.stores = []

    def prefetch(self) -> None:
        """Tell the log where the first fetch will be (see ``Log.prefetch``)."""
        if not self.initialized:
            self.init()
        self.log.prefetch(self.topic, self.partition, self.position)

    def poll(self) -> int:
        """Process one batch; returns the number of input records consumed (0: caught up)."""
        if not self.initialized:
            self.init()
        if self._inflight is not None:
            self._settle(wait=False)
        batch = self.log.fetch(self.topic, self.partition, self.position, self.max_batch)
        self.drained = not batch.offsets
        if not batch.offsets:
            self.commit_now()  # caught up: what is held goes out now, not at the end of the interval
            if self.idle_ms is not None:
                self._idle()
            return 0
        decoded = self.reader.decode(batch)
        held = self._held
        try:
            if held is None:
                held = self._held = HeldWrites(self._prepare)  # processed outside the log transaction (batch_writes)
                self._held_since = time.monotonic()
            rows = self.processor.process(decoded, held)
            if self.writer is not None and rows:
                self.writer.write(held, rows)
            self.processor.flush(held)
            for kv in self.stores:
                kv.flush(held)
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
            if self.committer is not None:
                self._commit_behind()
            else:
                self.commit_now()
        return len(batch.offsets)

    def _commit_behind(self) -> None:
        """Hand the held batches to the committer thread and return (``runtime.commit_pipeline``): at most
        one commit in flight, so this first waits for the previous one."""
        self._settle(wait=True)
        held = self._held
        if held is None:
            return
        rows, self._held, self._held_rows = self._held_rows, None, []
        self._inflight = (self.committer.submit(self._write, held), self.position, rows)

    def _write(self, held: HeldWrites) -> None:
        with self.log.transaction() as tx:
            held.replay(tx)

    def _settle(self, *, wait: bool) -> None:
        """Take the result of the commit in flight (``wait``: block until it is done): done, its
        position is committed; failed, the task aborts to its committed position and raises."""
        inflight = self._inflight
        if inflight is None:
            return
        fut, position, rows = inflight
        if not wait and not fut.done():
            return
        self._inflight = None
        try:
            fut.result()
        except BaseException:
            self._abort()
            raise
        self._committed(position, rows)

    def _committed(self, position: int, rows: list[tuple]) -> None:
        self.committed_position = position
        for kv in self.stores:
            kv.commit_local()
        self.processor.after_commit()
        if self.on_rows is not None and rows:
            self.on_rows(rows)

    @property
    def pending(self) -> bool:
        """Processed batches wait for their commit."""
        return self._held is not None or self._inflight is not None

    def commit_now(self) -> None:
        """Commit the held batches: their writes and input position in one log transaction, then the
        processor's local state (``after_commit``). A commit in flight finishes first."""
        if self._inflight is not None:
            self._settle(wait=True)
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
        rows, self._held_rows = self._held_rows, []
        self._committed(self.position, rows)

    def _abort(self) -> None:
        """The transaction failed: stateful processors drop their uncommitted changes and the task
        resumes from its committed position (after the commit in flight, whose outcome decides it)."""
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            fut, position, rows = inflight
            try:
                fut.result()
            except BaseException:  # noqa: BLE001, S110 - not committed: its batch is re-read as well
                pass
            else:
                self._committed(position, rows)
        self._held = None
        self._held_rows = []
        self.position = self.committed_position
        for kv in self.stores:
            kv.abort()
        self.processor.abort()

    def discard(self) -> None:
        """Forget held batches without committing them (the partition moved to another worker, or the
        held work failed): the next owner re-reads them from the committed position. A commit in flight
        is let finish (it is the same transaction either way)."""
        if self._held is not None or self._inflight is not None:
            self._abort()

    def _idle(self) -> None:
        """No input: a processor may still have work due on a quiet stream (EMIT FINAL idle advance)."""
        assert self.idle_ms is not None
        step = self.processor.punctuate(self.idle_ms)
        if step is None:
            return
        try:
            with self.log.transaction() as tx:
                rows = step(tx)
                if self.writer is not None and rows:
                    self.writer.write(tx, rows)
                self.processor.flush(tx)
                for kv in self.stores:
                    kv.flush(tx)
        except BaseException:
            self._abort()
            raise
        for kv in self.stores:
            kv.commit_local()
        self.processor.after_commit()
        if self.on_rows is not None and rows:
            self.on_rows(rows)


def prefetch_all(tasks: list[Any]) -> None:
    """Announce every task's first fetch before any task fetches (``Log.prefetch``)."""
    for t in tasks:
        pre = getattr(t, "prefetch", None)
        if pre is not None:
            pre()


def init_all(tasks: list[Any]) -> None:
    """The restore phase of every task, before any of them polls."""
    for t in tasks:
        t.init()
