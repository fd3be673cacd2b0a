"""Driver side of a backfill: the staged files of the tasks become sink records, the streaming query's
state, and processing-log entries, so that the streaming query continues at the next offset.

The streaming query was created before the backfill read anything, with its input positions pinned at
the partitions' end offsets (``auto.offset.reset=latest``); the backfill read exactly up to them. Here
each file is committed batch by batch: sink records into the sink topic and each task partition's final
store entries - the payloads the task's private store committed - onto the query's own store's
changelog, each batch in a log transaction. Then every store replays its changelog as a restarted task's
does, and the aggregators reload their meta state (stream time, EMIT FINAL position, late count) from it.
So the next poll of a task sees the state as if it had processed every record itself: nothing lost
(records after the pinned positions are the task's), nothing counted twice.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.backfill.job import CHANGELOG, PLOG, SINK, SINK_CHUNK, STATE, SUMMARY, SinkLayout

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.engine.queries import PersistentQuery

AGGREGATE_STORE = "Aggregate-Materialize-"


@dataclass
class BackfillResult:
    query_id: str
    positions: dict[int, tuple[int, int]]  # source partition -> (first offset read, next offset: the handed-off position)
    records_read: int = 0
    sink_records: int = 0
    state_entries: int = 0
    processing_errors: int = 0
    late_records: int = 0
    details: dict[str, Any] = field(default_factory=dict)


class HandOff:
    """Commits the staged files of a run (``staging``), batch by batch: sink records into the sink topic,
    state entries into the query's stores, processing-log entries into the engine's log, counts into the
    result. The driver holds one batch at a time, whatever the size of the output."""

    def __init__(self, engine: Engine, query: PersistentQuery, result: BackfillResult, progress: Any = None,
                 layout: SinkLayout | None = None) -> None:
        self.engine = engine
        self.layout = layout  # the sink as the tasks packed their chunks for (``job.SinkLayout``)
        self._layout_checked = False
        # the sink and state rows were written by the tasks' own transactions (``writes``): only the
        # processing-log entries and counts remain for the driver
        self.tasks_wrote = False
        self.progress = progress  # ``progress.Progress``: counts what is committed
        self._skip: dict[tuple[str, str, int], int] = {}  # batches seen per resume key (committed or skipped)
        self.log = engine.log
        self.topic = query.sink.topic
        self.result = result
        self.stores: dict[int, Any] = {}
        self.changelog_topics: list[str] = []  # a replayed query's changelogs (``CHANGELOG`` rows' ``src``)
        self.aggregators: dict[int, Any] = {}
        built = query.aggregation
        if built is not None:
            for kv in built.stores:
                if os.path.basename(kv.directory).startswith(AGGREGATE_STORE):
                    self.stores[kv.partition] = kv
            for a in built.aggregators:
                self.aggregators[a.kv.partition] = a

    def commit_file(self, path: str, resume: tuple[str, str, int] | None = None) -> None:
        """Commit one staged file batch by batch, each batch in one log transaction. ``resume``: (group, topic,
        partition) under which the count of committed batches of that partition's files is kept, in the
        same transaction as the batch - so a run resumed after a crash skips exactly what was committed."""
        from ksqlpy.backfill.staging import read

        done = 0
        if resume is not None:
            group, topic, part = resume
            done = self.log.committed(group, topic, part) or 0
        for batch in read(path):
            if resume is not None and self._skip.get(resume, 0) < done:
                self._skip[resume] = self._skip.get(resume, 0) + 1  # committed by an earlier attempt
                continue
            with self.log.transaction() as tx:
                self.consume(batch, tx)
                if resume is not None:
                    self._skip[resume] = self._skip.get(resume, 0) + 1
                    tx.commit_offsets(resume[0], {(resume[1], resume[2]): self._skip[resume]})
            if self.progress is not None:
                self.progress.committed_records += batch.num_rows

    def consume(self, batch: Any, tx: Any) -> None:
        """One Arrow batch of stage rows (``staging.OUT_SCHEMA``), in the order the task produced them."""
        kinds = batch.column(0).to_pylist()
        if kinds[0] == SINK_CHUNK:  # (a batch of chunks holds nothing else: ``stages.Out.add_many``)
            if not self.tasks_wrote:
                self._write_chunks(batch, tx)
            return
        if all(k == SINK for k in kinds):
            if not self.tasks_wrote:
                self._write_sink(batch, tx)
            return
        import pyarrow.compute as pc

        if not self.tasks_wrote:
            sink = batch.filter(pc.equal(batch.column(0), SINK))
            if sink.num_rows:
                self._write_sink(sink, tx)
            state = batch.filter(pc.equal(batch.column(0), STATE))
            if state.num_rows:
                self._write_state(state, tx)
            logs = batch.filter(pc.equal(batch.column(0), CHANGELOG))
            if logs.num_rows:
                from ksqlpy.backfill.replay import write_changelogs

                self.result.state_entries += write_changelogs(tx, self.changelog_topics, logs)
        loads = pickle.loads
        values = batch.column(3)
        for i, kind in enumerate(kinds):
            if kind == PLOG:
                entry = loads(values[i].as_py())
                self.engine.plog._emit(entry["logger"], entry["message"])  # as if a streaming task had logged it
                self.result.processing_errors += 1
            elif kind == SUMMARY:
                summary = loads(values[i].as_py())
                self.result.records_read += summary.get("read", 0)
                self.result.late_records += summary.get("late", 0)
                if "arrow_batches" in summary:  # (the native tier: log batches decoded straight into Arrow)
                    details = self.result.details
                    details["arrow_batches"] = details.get("arrow_batches", 0) + summary["arrow_batches"]

    def finish(self) -> None:
        """Each store replays what its changelog now holds, as a restarted task would; the aggregators
        reload their meta state (stream time, late count, EMIT FINAL position): now the backfill's. The
        by-offset aggregates' sequence moves past the numbers the workers took, so values arriving from now
        on count as later than the backfilled ones (``offset.resync``)."""
        from ksqlpy.functions.aggregates.offset import resync

        resync()
        for kv in self.stores.values():
            kv.restore()
        for a in self.aggregators.values():
            a.load_meta()

    def _write_state(self, batch: Any, tx: Any) -> None:
        """State entries onto their store's changelog, as the payloads the task's store committed."""
        self.result.state_entries += write_state(tx, self.changelogs(), batch)

    def changelogs(self) -> dict[int, str]:
        """Each task partition's store changelog topic."""
        out = {}
        for p, kv in self.stores.items():
            if kv.topic is not None:
                out[p] = kv.topic
        return out

    def _write_sink(self, batch: Any, tx: Any) -> None:
        self.result.sink_records += write_sink(tx, self.topic, batch)

    def _write_chunks(self, batch: Any, tx: Any) -> None:
        """``SINK_CHUNK`` rows appended as they are, the layout they were packed for checked against the log
        once, before the first."""
        layout = self.layout
        if layout is None:
            raise RuntimeError("backfill: the tasks staged chunks of the embedded log, but no sink layout is known")
        if not self._layout_checked:
            now = self.log.topic_layout(layout.topic)
            if now != (layout.topic_id, layout.partitions):
                raise RuntimeError(f"backfill: the sink topic {layout.topic!r} changed while the backfill ran "
                                   f"(id and partitions {now}, the tasks packed for "
                                   f"{(layout.topic_id, layout.partitions)})")
            self._layout_checked = True
        self.result.sink_records += write_chunks(tx, layout, batch)


def write_state(tx: Any, changelogs: dict[int, str], batch: Any) -> int:
    """STATE rows onto their task partition's changelog (``changelogs``: partition -> topic), as the payloads
    the task's store committed; the number written. Used by the driver and by the tasks' own transactions
    (``writes``)."""
    parts = batch.column(1).to_pylist()
    keys, values = batch.column(2).to_pylist(), batch.column(3).to_pylist()
    by_part: dict[int, list[int]] = {}
    for i, p in enumerate(parts):
        by_part.setdefault(p, []).append(i)
    for p, idx in by_part.items():
        topic = changelogs.get(p)
        if topic is None:
            raise RuntimeError(f"backfill: no state store with a changelog for task partition {p}")
        tx.produce_batch(topic, p, [keys[i] for i in idx], [values[i] for i in idx])
    return len(parts)


def write_sink(tx: Any, topic: str, batch: Any) -> int:
    """SINK rows into ``topic``, per partition in their order (part -1: the default partitioner; else the
    partition the sink writer chose, as for windowed keys); the number written."""
    parts = batch.column(1).to_pylist()
    keys, values = batch.column(2).to_pylist(), batch.column(3).to_pylist()
    tss, hcol = batch.column(4).to_pylist(), batch.column(5)
    loads = pickle.loads
    hdrs = [None if h is None else loads(h) for h in hcol.to_pylist()] if hcol.null_count < len(hcol) else None
    if len(set(parts)) == 1:
        p = parts[0]
        tx.produce_batch(topic, None if p < 0 else p, keys, values, tss, hdrs)
    else:
        idx_by: dict[int, list[int]] = {}
        for i, p in enumerate(parts):
            idx_by.setdefault(p, []).append(i)
        for p, idx in idx_by.items():
            tx.produce_batch(topic, None if p < 0 else p, [keys[i] for i in idx],
                             [values[i] for i in idx], [tss[i] for i in idx],
                             None if hdrs is None else [hdrs[i] for i in idx])
    return len(parts)


def write_chunks(tx: Any, layout: SinkLayout, batch: Any) -> int:
    """``SINK_CHUNK`` rows (``stages.Out``: chunks the tasks packed for ``layout``) appended to the sink's
    partitions in their order, at the partitions' next offsets - what ``produce_batch`` of the same records
    would have stored; the number of records."""
    from ksqlpy.log.embedded_prepare import PreparedBatch, PreparedPartition
    from ksqlpy.log.record_codec import chunk_count

    parts, chunks = batch.column(1).to_pylist(), batch.column(3).to_pylist()
    n = 0
    for p, chunk in zip(parts, chunks, strict=True):
        count = chunk_count(chunk)
        n += count
        # (the call's own arguments are produced only if the topic changed since: the caller checked it did not)
        tx.produce_prepared(PreparedBatch(layout.topic, layout.topic_id, layout.partitions,
                                          [PreparedPartition(p, count, [(0, chunk)])], (layout.topic, p, [], [])))
    return n
