"""A task reading several input topics of one partition number: the unit that runs joins.

Its lifecycle is a task's (``runtime.processor``): ``init()`` restores the stores, loads the operators'
state and finds every input's position; each batch's join operators are fed record by record through
their input handlers, and what reaches the end of the sub-topology goes through ``finish`` - a
``Processor`` over the join's result events - to the task's writer.

Like ``runtime.task.Task`` it polls without waiting, and one log transaction carries a batch's outputs,
internal records (repartition, subscription and response topics), state changelogs and the positions of
every input. Across its inputs it processes the record with the lowest timestamp first (Kafka Streams'
stream synchronization); within an input, offset order is kept. When an input runs out of fetched
records but may have more - its batch was cut at the batch limit, or the sub-topology writing it in this
process still has records to process (``runtime.alignment``) - processing stops there, so that no record
of another input is processed ahead of an unread, older one.

Records fetched and decoded but not processed - an input read ahead of the others' time, which is most of a
table's batch when the stream side is ten times denser (q20 fetched its 60,000 auctions 633,613 times) -
stay decoded in the channel (``Channel.held``) and the next poll fetches after them: each record is read and
decoded once, and a bad one logged once.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import islice
from operator import itemgetter, le
from typing import Any

from ksqlpy.log.base import Log, ProducerRecord, RecordBatch
from ksqlpy.runtime.join_keys import migrate_store
from ksqlpy.runtime.malloc_tuning import tune_malloc
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import Lifecycle, Processor
from ksqlpy.runtime.repartition import encode_values
from ksqlpy.state.store import KeyValueStore

Event = tuple[int, int, tuple]  # (timestamp, offset, arguments of the channel's handler)


Run = Callable[[list[Event], int, int], None]


class Held:
    """An input's records from its position that a poll fetched but did not process: their offsets, the events
    they decoded to (a bad record has none) and the offset the next fetch starts at. What ``_process`` reads of
    a fetched batch (``offsets``, ``next_offset``), so held and newly fetched records go through it together."""

    __slots__ = ("offsets", "events", "next_offset")

    def __init__(self, offsets: list[int], events: list[Event], next_offset: int) -> None:
        self.offsets = offsets
        self.events = events
        self.next_offset = next_offset


class Channel:
    """One input topic of a task: how its records are decoded and where they go.

    ``handle(*args, ts)`` takes one event; ``run(events, i, j)``, when given, takes the run
    ``events[i:j]`` (consecutive in processing order) in one call - the operator's loop over it saves a
    call or two per record."""

    def __init__(self, topic: str, decode: Callable[[RecordBatch], list[Event]],
                 handle: Callable[..., None], start_at: str = "earliest", run: Run | None = None,
                 first_on_ties: bool = False) -> None:
        self.topic = topic
        self.decode = decode
        self.handle = handle  # handle(*args, ts)
        self.run = run
        self.start_at = start_at
        self.position = 0
        # on equal timestamps this input's records go before those of inputs without the flag (the table
        # of a stream-table join: a stream record joins the table as of its time, that time included)
        self.first_on_ties = first_on_ties
        # the in-process tasks writing this topic, waited for while they hold unprocessed records
        # (``runtime.alignment``); None: none in this process
        self.upstream: Any = None
        # records fetched and decoded but not processed yet (``Held``), from ``position`` on; None: none
        self.held: Held | None = None
        # (runs, side): an operator taking a batch's runs of all its inputs in one call, ``runs(schedule)``
        # with ``schedule`` a list of ``(side, events, i, j)`` in processing order, and this input's side -
        # used when every input of the task feeds that one operator (a stream-stream join's two sides)
        self.merge: tuple[Callable[[list[tuple[Any, list[Event], int, int]]], None], Any] | None = None

    def may_have_more(self, fetched_full: bool) -> bool:
        """Whether this input may still have records older than what another input would run to: its
        fetch stopped at the batch limit, or its upstream in this process has records to process."""
        return fetched_full or (self.upstream is not None and self.upstream.pending())


class ResultRows:
    """A join task's stream results as the rows of the join's virtual source, built as they come: key
    columns then the joined blocks, with their timestamps and headers (what ``JoinOutput`` made of the
    ``(key, new, old, ts, headers)`` changes - a change without a new row dropped, a NULL key's columns
    NULL). For a stream result without window bounds, where that is all ``JoinOutput`` did: the C loop of
    a stream-stream join (``_ssjoin``) builds each result row once, with no joined tuple and change tuple
    before it (``sink``). Such a join gets no pair prefilter (``JoinWiring.operator``): a pair the WHERE
    drops costs one tuple here, and the WHERE in the stage after the join evaluates every conjunct anyway -
    the prefilter's call per pair (q8: 60,000 calls to drop 3,339 rows) cost more than it saved."""

    __slots__ = ("headers", "nk", "null_head", "null_keys", "rows", "timestamps")

    def __init__(self, n_keys: int) -> None:
        self.nk = n_keys
        self.null_head = (None,) * n_keys
        self.rows: list[tuple] = []
        self.timestamps: list[int] = []
        self.headers: list[Any] = []
        self.null_keys: list[int] = []

    def add(self, key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        """An operator's ``emit``: one change of the join's result."""
        if new is None:
            return
        if key is None:  # an outer join's record with a null key: its key columns read NULL
            self.null_keys.append(len(self.rows))
            self.rows.append(self.null_head + new)
        else:
            self.rows.append(key[:self.nk] + new)
        self.timestamps.append(ts)
        self.headers.append(hdrs)

    def sink(self) -> tuple:
        """What the C loop appends to: the lists and the key width."""
        return (self.rows, self.timestamps, self.headers, self.null_keys, self.nk)

    def clear(self) -> None:
        self.rows, self.timestamps, self.headers, self.null_keys = [], [], [], []


class TaskContext:
    """What the operators of one task share: the partition, the stores, and the batch's outputs."""

    def __init__(self, partition: int, plog: ProcessingLog, query_id: str,
                 make_store: Callable[[str, str | None], KeyValueStore]) -> None:
        self.partition = partition
        self.plog = plog
        self.query_id = query_id
        self._make_store = make_store
        self.kvs: list[KeyValueStore] = []  # the task's stores: restored, flushed, committed by the task
        self.operators: list[Lifecycle] = []
        self.ops: dict[int, Any] = {}
        self.channels: list[Channel] = []
        self.final: list[tuple] = []
        # the join's stream result as rows (``ResultRows``), when the task's result is one; None: ``final``
        self.result_rows: ResultRows | None = None
        self.records: list[ProducerRecord] = []
        # internal topics written as columns (``Internal``): one produce_batch per topic and batch
        self.internal: dict[str, Internal] = {}
        # join stores to re-key after their restore (``join_keys.migrate_store``): (store, key, foreign key)
        self.migrations: list[tuple[KeyValueStore, Any, Any]] = []

    def store(self, name: str, changelog: str | None) -> KeyValueStore:
        kv = self._make_store(name, changelog)
        self.kvs.append(kv)
        return kv

    def add_store(self, kv: KeyValueStore) -> None:
        """Own a store made elsewhere (a materialized result's)."""
        if all(kv is not s for s in self.kvs):
            self.kvs.append(kv)

    def produce(self, record: ProducerRecord) -> None:
        self.records.append(record)

    def add_final(self, key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
        self.final.append((key, new, old, ts, hdrs))

    def internal_topic(self, topic: str) -> Internal:
        """The column buffer of an internal topic this task writes (one per topic, shared by its writers)."""
        buf = self.internal.get(topic)
        if buf is None:
            buf = self.internal[topic] = Internal(topic)
        return buf

    def produce_internal(self, tx: Any) -> None:
        for buf in self.internal.values():
            buf.write(tx)

    def clear_internal(self) -> None:
        for buf in self.internal.values():
            buf.clear()


class Internal:
    """The records of one internal topic in a batch, as columns: key bytes, ``(key, row)`` payloads,
    timestamps, headers. Written by one ``produce_batch`` (partitioned by key, in append order) with the
    payloads encoded by ``repartition.encode_values`` - a record object and a pickle call per record cost
    more than the join that made it. The lists are cleared in place: writers hold their ``append``."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.keys: list[bytes | None] = []
        self.payloads: list[tuple] = []
        self.timestamps: list[int] = []
        self.headers: list[Any] = []

    def write(self, tx: Any) -> None:
        if not self.payloads:
            return
        hdrs = self.headers
        tx.produce_batch(self.topic, None, self.keys, encode_values(self.payloads), self.timestamps,
                         [h or None for h in hdrs] if any(hdrs) else None)

    def clear(self) -> None:
        del self.keys[:], self.payloads[:], self.timestamps[:], self.headers[:]


_TS = itemgetter(0)


def _ascending(events: list[Event]) -> list[int] | None:
    """The events' timestamps if they never decrease (the common case: a run ends where the other inputs'
    head falls, found by bisection), else None (found by a scan)."""
    if len(events) < 2:
        return None
    times = list(map(_TS, events))
    return times if all(map(le, times, islice(times, 1, None))) else None


class JoinTask:
    def __init__(self, *, task_id: str, log: Log, group: str, ctx: TaskContext, finish: Processor | None,
                 writer: Any, max_batch: int = 10000, on_rows: Callable[[list[tuple]], None] | None = None,
                 commit: bool = True) -> None:
        tune_malloc()
        self.task_id = task_id
        self.log = log
        self.group = group
        self.ctx = ctx
        self.partition = ctx.partition
        self.finish = finish  # the join's result events -> rows for the writer (None: nothing leaves here)
        self.writer = writer
        self.max_batch = max_batch
        self.on_rows = on_rows
        self.commit = commit
        self.processed = 0
        self.consumed_topics: dict[str, int] = {}  # records processed per input topic (runtime statistics)
        self.initialized = False
        self.upstream_tasks: list[Any] = []  # in-process tasks writing the topics this one reads (alignment)
        self.drained = False  # the last fetches found nothing

    def init(self) -> None:
        """The restore phase: stores, then the operators' state, then the input positions; idempotent."""
        if self.initialized:
            return
        ctx, log = self.ctx, self.log
        for kv in ctx.kvs:
            if not kv.is_restored:
                kv.restore()
        self._migrate()
        for op in ctx.operators:
            op.init()
        if self.finish is not None:
            self.finish.init()
        pin: dict[tuple[str, int], int] = {}
        for ch in ctx.channels:
            committed = log.committed(self.group, ch.topic, self.partition) if self.commit else None
            if committed is not None:
                ch.position = committed
            elif ch.start_at == "earliest":
                ch.position = log.start_offset(ch.topic, self.partition)
            else:
                ch.position = log.end_offset(ch.topic, self.partition)
            if committed is None and self.commit:
                pin[(ch.topic, self.partition)] = ch.position
        if pin:
            # where a new persistent query starts, as ``Task.init`` pins it: "latest" stays its creation
            # across a restart before anything was processed, and an input that never gets a record still
            # has a committed position (a drain of worker processes waits for one on every input)
            with log.transaction() as tx:
                tx.commit_offsets(self.group, pin)
        self.initialized = True

    def _migrate(self) -> None:
        """Re-key join stores written with older key bytes (``join_keys``), committed at once as a batch's
        changes are (changelog, then the local files), so an abort or a crash after it keeps the new keys."""
        moved = [kv for kv, key, fk in self.ctx.migrations if migrate_store(kv, key, fk)]
        if not moved:
            return
        with self.log.transaction() as tx:
            for kv in moved:
                kv.flush(tx)
        for kv in moved:
            kv.commit_local()

    def close(self) -> None:
        for op in self.ctx.operators:
            op.close()
        if self.finish is not None:
            self.finish.close()
        for kv in self.ctx.kvs:
            kv.close()
        self.ctx.kvs = []

    # the single-input Task's attributes some callers read (pull queries, progress checks)
    @property
    def topic(self) -> str:
        return self.ctx.channels[0].topic

    @property
    def position(self) -> int:
        return self.ctx.channels[0].position

    def has_input(self) -> bool:
        """Whether an input may hold records this task has not processed (``Task.has_input``)."""
        return not self.drained

    def lag(self) -> int:
        return sum(max(0, self.log.end_offset(ch.topic, self.partition) - ch.position) for ch in self.ctx.channels)

    def prefetch(self) -> None:
        """Tell the log where the first fetches will be (see ``Log.prefetch``)."""
        if not self.initialized:
            self.init()
        for ch in self.ctx.channels:
            self.log.prefetch(ch.topic, self.partition, ch.position)

    def poll(self) -> int:
        """Process one batch across the inputs; returns the number of input records consumed."""
        if not self.initialized:
            self.init()
        ctx = self.ctx
        fetched = [self._fetch(ch) for ch in ctx.channels]
        any_records = any(f.offsets for f in fetched)
        self.drained = not any_records
        if not any_records:
            return 0
        # The inputs are fetched one after another: a record appended to an input that came back empty,
        # before another input's record that was fetched, would otherwise be processed after it although
        # it is older. Fetching the empty inputs once more sees every record appended before the fetches
        # that found some (Kafka Streams waits for an input with known lag rather than run ahead of it).
        for i, ch in enumerate(ctx.channels):
            if not fetched[i].offsets:
                fetched[i] = self._fetch(ch)
        new_positions, consumed, held = self._process(fetched)
        if not consumed:  # waiting for an input (``runtime.alignment``): nothing was processed
            for ch, h in zip(ctx.channels, held, strict=True):
                ch.held = h
            return 0
        try:
            with self.log.transaction() as tx:
                rows = self.finish.process(ctx.final, tx) if self.finish is not None else None
                ctx.produce_internal(tx)
                if ctx.records:
                    tx.produce_many(ctx.records)
                if self.writer is not None and rows:
                    self.writer.write(tx, rows)
                for op in ctx.operators:
                    op.flush(tx)
                if self.finish is not None:
                    self.finish.flush(tx)
                for kv in ctx.kvs:
                    kv.flush(tx)
                if self.commit:
                    offsets = {(ch.topic, self.partition): pos for ch, pos in zip(ctx.channels, new_positions,
                                                                                   strict=True)
                               if pos != ch.position}
                    if offsets:
                        tx.commit_offsets(self.group, offsets)
        except BaseException:
            self._abort()
            raise
        finally:
            ctx.final = []
            if ctx.result_rows is not None:
                ctx.result_rows.clear()
            ctx.records = []
            ctx.clear_internal()
        for kv in ctx.kvs:
            kv.commit_local()
        for op in ctx.operators:
            op.after_commit()
        if self.finish is not None:
            self.finish.after_commit()
        for ch, pos, h in zip(ctx.channels, new_positions, held, strict=True):
            ch.position = pos
            ch.held = h
        if self.on_rows is not None and rows:
            self.on_rows(rows)
        self.processed += consumed
        counts = self.consumed_topics
        for ch, f, h in zip(ctx.channels, fetched, held, strict=True):
            n = len(f.offsets) - (len(h.offsets) if h is not None else 0)
            if n:
                counts[ch.topic] = counts.get(ch.topic, 0) + n
        return consumed

    def _fetch(self, ch: Channel) -> Held:
        """The input's records from its position: those held from an earlier poll, then newly fetched and
        decoded ones, up to ``max_batch`` records in all."""
        held = ch.held
        if held is None:
            batch = self.log.fetch(ch.topic, self.partition, ch.position, self.max_batch)
            return Held(batch.offsets, ch.decode(batch) if batch.offsets else [], batch.next_offset)
        room = self.max_batch - len(held.offsets)
        if room <= 0:
            return held
        batch = self.log.fetch(ch.topic, self.partition, held.next_offset, room)
        if not batch.offsets:
            return held
        return Held(held.offsets + batch.offsets, held.events + ch.decode(batch), batch.next_offset)

    def _process(self, fetched: list[Held]) -> tuple[list[int], int, list[Held | None]]:
        """Run the fetched events through the channels in timestamp order; the inputs' new positions, the
        records consumed, and per input what was fetched but not processed (held for the next poll)."""
        channels = self.ctx.channels
        positions = [ch.position for ch in channels]
        # the heap orders by (timestamp, rank, event index): on equal timestamps the inputs flagged
        # ``first_on_ties`` first, then by input order
        by_rank = sorted(range(len(channels)), key=lambda c: (not channels[c].first_on_ties, c))
        rank = [0] * len(channels)
        for r, c in enumerate(by_rank):
            rank[c] = r
        heap: list[tuple[int, int, int]] = []
        for c, f in enumerate(fetched):
            if f.events:
                heap.append((f.events[0][0], rank[c], 0))
        heapq.heapify(heap)
        full = [len(f.offsets) >= self.max_batch for f in fetched]
        # an input with nothing to process now that may have more (cut at the batch limit, or records its
        # upstream in this process has not processed yet): nothing may run ahead of it
        stop = len(channels) > 1 and any(not f.events and channels[c].may_have_more(full[c])
                                         for c, f in enumerate(fetched))
        consumed_upto = [-1] * len(channels)
        heappop, heappush = heapq.heappop, heapq.heappush
        times = [_ascending(f.events) if len(fetched) > 1 else None for f in fetched]
        # every input feeds one operator taking the whole batch: the runs are collected, then handed over once
        merge = channels[0].merge
        if merge is not None and any(ch.merge is None or ch.merge[0] != merge[0] for ch in channels):
            merge = None
        schedule: list[tuple[Any, list[Event], int, int]] = []
        while heap and not stop:
            _, r, i = heappop(heap)
            c = by_rank[r]
            events = fetched[c].events
            n = len(events)
            # the run of this input's events up to the next input's head (the heap's order: timestamp, then
            # rank), handed over in one call, without a heap operation per event
            if not heap:
                j = n
            elif times[c] is not None:  # the input's times ascend: the run's end by bisection
                top_ts, top_r = heap[0][:2]
                j = (bisect_left if r > top_r else bisect_right)(times[c], top_ts, i + 1)  # type: ignore[arg-type]
            else:
                top_ts, top_r = heap[0][:2]
                j = i + 1
                while j < n:
                    t = events[j][0]
                    if t > top_ts or (t == top_ts and r > top_r):
                        break
                    j += 1
            ch = channels[c]
            if merge is not None:
                schedule.append((ch.merge[1], events, i, j))  # type: ignore[index]
            elif ch.run is not None:
                ch.run(events, i, j)
            else:
                handle = ch.handle
                for k in range(i, j):
                    handle(*events[k][2], events[k][0])
            consumed_upto[c] = j - 1
            if j == n:
                if heap and ch.may_have_more(full[c]):
                    stop = True
            else:
                heappush(heap, (events[j][0], r, j))
        if schedule:
            merge[0](schedule)  # type: ignore[index]
        consumed = 0
        held: list[Held | None] = [None] * len(channels)
        for c, batch in enumerate(fetched):
            if not batch.offsets:
                continue
            events = batch.events
            if consumed_upto[c] == len(events) - 1 or not events:
                if not stop or consumed_upto[c] == len(events) - 1:
                    positions[c] = batch.next_offset
                    consumed += len(batch.offsets)
                    continue
            if consumed_upto[c] >= 0:
                last = events[consumed_upto[c]][1]
                k = bisect_right(batch.offsets, last)  # (offsets ascend)
                consumed += k
                positions[c] = last + 1
                held[c] = Held(batch.offsets[k:], events[consumed_upto[c] + 1:], batch.next_offset)
            else:
                held[c] = batch
        return positions, consumed, held

    def _abort(self) -> None:
        for ch in self.ctx.channels:
            ch.held = None  # fetched again from the positions, which did not move
        for kv in self.ctx.kvs:
            kv.abort()
        for op in self.ctx.operators:
            op.abort()
        if self.finish is not None:
            self.finish.abort()
