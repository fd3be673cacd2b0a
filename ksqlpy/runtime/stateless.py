"""The stateless stage of a query as a task's processor: WHERE, PARTITION BY, table functions and the
projection, fused into one generated function per query (``plan.codegen``)."""

from __future__ import annotations

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


class TableWhereDeletes(Wrapping):
    """A table's WHERE with the previous row at hand, for a query that keeps no table of its own (a push
    query): a row failing WHERE, or a delete, goes out as a delete only if the key's previous row passed
    (ksqlDB filters a materialized table source, whose filter sends old values); otherwise nothing does.

    The keys whose last row passed are kept in a state store (``store``, by the input row's key columns):
    LMDB-backed, so a push query over a large table holds no per-key memory, and private to the query (no
    changelog; its files go when the query ends). A table's stage gives one output row per input row (no
    re-keying or table functions over tables), deletes with no value group."""

    def __init__(self, inner: Processor, key_positions: list[int], store: KeyValueStore) -> None:
        super().__init__(inner)
        self.key_positions = key_positions
        self.store = store

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        rows = self.inner.process(d, tx)
        if len(rows) != len(d.rows):  # (not a table's one-to-one stage: nothing to decide)
            return rows
        positions, kv = self.key_positions, self.store
        out = []
        for src, row in zip(d.rows, rows, strict=True):
            kb = encode_key(tuple(src[p] for p in positions))
            if row[1] is not None:
                if kv.get(kb) is None:
                    kv.put(kb, True)
                out.append(row)
            elif kv.get(kb) is not None:
                kv.delete(kb)
                out.append(row)
        return out


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
