"""The stateless stage of a query as a task's processor: WHERE, PARTITION BY, table functions and the
projection, fused into one generated function per query (``plan.codegen``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.topology import StatelessStage
from ksqlpy.runtime.aggregator import encode_key
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import BaseProcessor, Processor, Wrapping
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.state.store import KeyValueStore


class StatelessProcessor(BaseProcessor):
    """A generated stateless pipeline (``plan.codegen``) as a task's processor: an expression failing on
    a record goes to the processing log with the expression's name.

    ``keep_null_keys``: the query keeps its input's key (no re-key) and writes ``(key group, value group,
    ...)`` rows: a record read with a null Kafka key goes out with a null key (``None`` for its key group)
    rather than a key of NULL columns, as ksqlDB passes the record's key object through. The records of a
    batch run through the pipeline in runs of null and non-null keys, in order.
    """

    def __init__(self, pipeline: Callable[..., None], plog: ProcessingLog, query_id: str, *,
                 keep_null_keys: bool = False) -> None:
        self.pipeline = pipeline
        self.plog = plog
        self.query_id = query_id
        self.keep_null_keys = keep_null_keys
        # reads its input by columns (``SourceReader.columnar``)
        self.columnar = getattr(pipeline, "columnar", False)

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        out: list[tuple] = []
        plog, query_id, pipeline = self.plog, self.query_id, self.pipeline

        def err(i: int, what: str, exc: BaseException) -> None:
            plog.expression_error(query_id, what, exc, d.rows[i])

        if not (self.keep_null_keys and d.null_keys):
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


class WindowedKeys(Wrapping):
    """Over a windowed source without aggregation the stage computes WINDOWSTART/WINDOWEND as two more key
    columns (so deletes of a windowed table keep their window too); output keys ``(k..., start, end)``
    become the ``((k...), start, end)`` a windowed sink writes."""

    def process(self, d: Any, tx: Any) -> list[tuple]:
        # (a null key - a record read without one - stays null)
        return [((r[0][:-2], r[0][-2], r[0][-1]) if r[0] is not None else None,) + r[1:]
                for r in self.inner.process(d, tx)]


def filter_with_previous(d: DecodedBatch, tx: Any, where: Processor, project: Processor,
                         previous: Callable[[int], tuple[tuple, int] | None]) -> list[tuple]:
    """A table's WHERE as ksqlDB's table filter computes it over a materialized parent (Kafka Streams'
    KTableFilter sending old values; ksqlDB's filter step is a transformValues computing the WHERE of the new
    value, then of the old): each record's new row (not for a delete) and its key's previous row (when there
    is one) go through ``where`` (the WHERE alone: ``where_processor``), in that order, a failure logged
    each time. A new row that passes goes on through ``project`` (the stage without its WHERE); otherwise a
    delete of its key goes on if the previous row passed, nothing if it did not or there was none. The
    projection of a previous row is never computed.

    ``previous(i)``: record ``i``'s key's previous row and offset (or None), asked in record order - the
    caller then keeps record ``i`` as the key's row (a delete: none). The previous row is evaluated as the
    source step hands it to the filter: its own columns, ROWPARTITION and ROWOFFSET (materialized with it),
    and the ROWTIME of the record being processed (added from the processor context)."""
    w_rows: list[tuple] = []
    w_ts: list[int] = []
    w_parts: list[int] = []
    w_offs: list[int] = []
    slots: list[tuple[int, int]] = []  # per record: where its new and its previous row are (-1: none)
    for i, src in enumerate(d.rows):
        before = previous(i)
        n = o = -1
        ts, part = d.timestamps[i], d.partitions[i]
        if not d.tombstones[i]:
            n = len(w_rows)
            w_rows.append(src)
            w_ts.append(ts)
            w_parts.append(part)
            w_offs.append(d.offsets[i])
        if before is not None:
            o = len(w_rows)
            w_rows.append(before[0])
            w_ts.append(ts)
            w_parts.append(part)
            w_offs.append(before[1])
        slots.append((n, o))
    if not w_rows:
        return []
    passed = [r[1] is not None for r in where.process(
        DecodedBatch(w_rows, w_ts, w_parts, w_offs, [None] * len(w_rows), [False] * len(w_rows)), tx)]
    emit: list[int] = []
    deletes: list[bool] = []
    for i, (n, o) in enumerate(slots):
        if n >= 0 and passed[n]:
            emit.append(i)
            deletes.append(False)
        elif o >= 0 and passed[o]:
            emit.append(i)
            deletes.append(True)
    if not emit:
        return []
    null_keys = set(d.null_keys)
    return project.process(DecodedBatch(
        [d.rows[i] for i in emit], [d.timestamps[i] for i in emit], [d.partitions[i] for i in emit],
        [d.offsets[i] for i in emit], [d.headers[i] for i in emit], deletes,
        [j for j, i in enumerate(emit) if i in null_keys]), tx)


class SplitStage(BaseProcessor):
    """A table's stage as its WHERE alone and the stage without it (``where_processor``,
    ``projection_processor``), for a query that filters with the previous row and so compiles those two
    anyway: the whole stage's output - one row per input row, a delete for a row failing the WHERE - from
    them, without compiling the whole stage a third time. A pull query reads a CTAS's stored source rows
    through it."""

    def __init__(self, where: Processor, project: Processor) -> None:
        self.where = where
        self.project = project

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        if not d.rows:
            return []
        passed = self.where.process(d, tx)
        deletes = [tomb or r[1] is None for tomb, r in zip(d.tombstones, passed, strict=True)]
        return self.project.process(DecodedBatch(d.rows, d.timestamps, d.partitions, d.offsets, d.headers,
                                                 deletes, d.null_keys), tx)


class TableWhereDeletes(Wrapping):
    """A table's WHERE with the previous row at hand, for a query that keeps no table of its own (a push
    query, whose table source ksqlDB materializes too): ``filter_with_previous`` over the rows of the keys
    this task has read.

    The previous rows are kept in a state store (``store``, by the input row's key and window columns, the
    row and its offset): LMDB-backed, so a push query over a large table holds no per-key memory, and
    private to the query (no changelog; its files go when the query ends). ``inner`` is the whole stage (a
    table's stage gives one output row per input row: no re-keying or table functions over tables)."""

    def __init__(self, inner: Processor, key_positions: list[int], store: KeyValueStore, where: Processor,
                 project: Processor) -> None:
        super().__init__(inner)
        self.key_positions = key_positions
        self.store = store
        self.where = where
        self.project = project

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        positions, kv = self.key_positions, self.store

        def previous(i: int) -> tuple[tuple, int] | None:
            src = d.rows[i]
            kb = encode_key(tuple(src[p] for p in positions))
            before = kv.get(kb)
            if d.tombstones[i]:
                if before is not None:
                    kv.delete(kb)
            else:
                kv.put(kb, (src, d.offsets[i]))
            return before

        return filter_with_previous(d, tx, self.where, self.project, previous)


def stage_spec(stage: StatelessStage, functions: FunctionRegistry) -> StageSpec:
    """What the code generator takes, from the stage's config."""
    return StageSpec(
        input_schema=stage.input_schema, where=stage.where,
        rekey_exprs=list(stage.rekey) if stage.rekey is not None else None,
        projection_schema=stage.projection_schema, table_functions=list(stage.table_functions),
        outputs=[list(g) for g in stage.outputs], functions=functions,
        tombstone_on_filter=stage.tombstone_on_filter, pass_tombstones=stage.pass_tombstones,
        with_headers=stage.with_headers)


def stateless_processor(stage: StatelessStage, functions: FunctionRegistry, plog: ProcessingLog,
                        query_id: str) -> Processor:
    """The stage as a processor (one generated function; every task of the query can share it)."""
    proc: Processor = StatelessProcessor(build_stateless(stage_spec(stage, functions)), plog, query_id,
                                         keep_null_keys=stage.keep_null_keys)
    return WindowedKeys(proc) if stage.windowed_keys else proc


def where_processor(stage: StatelessStage, functions: FunctionRegistry, plog: ProcessingLog,
                    query_id: str) -> Processor:
    """The stage's WHERE alone (a table's stage, one output per input): a row that passes goes out as
    ``((), ())``, one that fails or errs (logged as the stage logs it) or a delete as ``((), None)``. What
    ksqlDB's table filter computes for a key's previous row, whose projection it never computes."""
    assert stage.where is not None and stage.tombstone_on_filter
    spec = dataclasses.replace(stage_spec(stage, functions), rekey_exprs=None, table_functions=[],
                               outputs=[[], []], key_group=0, with_headers=False, grouping=False)
    return StatelessProcessor(build_stateless(spec), plog, query_id)


def projection_processor(stage: StatelessStage, functions: FunctionRegistry, plog: ProcessingLog,
                         query_id: str) -> Processor:
    """The stage without its WHERE: for rows already filtered (a delete still goes out as one)."""
    return stateless_processor(dataclasses.replace(stage, where=None), functions, plog, query_id)
