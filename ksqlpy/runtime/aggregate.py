"""Aggregation queries as tasks: GROUP BY with optional TUMBLING / HOPPING / SESSION windows and HAVING.

The work splits in two halves (``group_by.Grouper``: WHERE, group key, aggregate arguments; and an
``Aggregator``: state, windows, emission). When the group key is not the source key and the source has
several partitions, the halves run in two sub-topologies joined by a repartition topic
(``repartition``); otherwise one task per source partition runs both, with no topic in between - which
the query's topology decides (``plan.lowering``). Here: the processors, and what every task of one
aggregation shares (``AggregateSpec``), built from the topology's ``AggregateStage``.

Every task's state lives in one ``KeyValueStore`` (LMDB + changelog); a batch's state changes go to the
changelog inside the batch's log transaction and to LMDB right after it commits (``after_commit``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.topology import AggregateStage, WindowConfig, WindowType
from ksqlpy.runtime.accumulate import Accumulators
from ksqlpy.runtime.agg_loop import build_batch_loop
from ksqlpy.runtime.aggregator import AggregateSpec, Aggregator, encode_key
from ksqlpy.runtime.combine import PARTIAL_ITEM, Combiner
from ksqlpy.runtime.emit import build_projector
from ksqlpy.runtime.group_by import Grouper
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.processor import BaseProcessor, Punctuation
from ksqlpy.runtime.reader import DecodedBatch
from ksqlpy.runtime.record_cache import collapse
from ksqlpy.runtime.repartition import safe_key_bytes
from ksqlpy.runtime.session_windows import SessionAggregator
from ksqlpy.runtime.windows import TimeWindowAggregator
from ksqlpy.serde import key_serde, placed
from ksqlpy.state.store import KeyValueStore
from ksqlpy.types import SqlType


# ---------------------------------------------------------------------------------------------- processors
class AggregateProcessor(BaseProcessor):
    """One task doing both halves: source batch -> items -> aggregator -> output rows."""

    def __init__(self, grouper: Grouper | None, aggregator: Aggregator, *, table: bool) -> None:
        self.grouper = grouper
        self.aggregator = aggregator
        self.table = table
        self.columnar = grouper is not None and grouper.columnar  # (``SourceReader.columnar``)

    def init(self) -> None:
        self.aggregator.load_meta()

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        items = self.grouper(d) if self.grouper is not None else d.rows
        out: list[tuple] = []
        if self.table:
            self.aggregator.table(items, out)
        elif self.grouper is None and any(len(item) == PARTIAL_ITEM for item in items):
            self.aggregator.merge_partials(items, out)  # combined before the repartition topic
        else:
            self.aggregator.stream(items, out)
        self.aggregator.end_batch(out)
        entries = self.aggregator.spec.cache_entries
        if entries and not self.aggregator.cached:  # the generic loops emit every update: fold them here
            return collapse(out, entries, self.aggregator.unseen)
        return out

    def abort(self) -> None:
        self.aggregator.load_meta()

    def punctuate(self, idle_ms: int) -> Punctuation | None:
        """A step to run in a transaction if the quiet stream should advance (EMIT FINAL), else None."""
        out: list[tuple] = []
        if not self.aggregator.idle(idle_ms, out):
            return None

        def step(tx: Any) -> list[tuple]:
            self.aggregator.end_batch(out)
            return out

        return step


class GroupProcessor(BaseProcessor):
    """First sub-topology of a repartitioned aggregation: source batch -> items for the repartition topic,
    combined per key when ``combiner`` is given (``runtime.combine``)."""

    def __init__(self, grouper: Grouper, combiner: Combiner | None = None) -> None:
        self.grouper = grouper
        self.combiner = combiner
        self.columnar = grouper.columnar  # the source batch may come as columns (``SourceReader.columnar``)

    def process(self, d: DecodedBatch, tx: Any) -> list[tuple]:
        items = self.grouper(d)
        return self.combiner(items) if self.combiner is not None else items


# ---------------------------------------------------------------------------------------------- building
@dataclass
class Aggregation:
    """An aggregation's state across its tasks: the aggregators (pull queries read them, one per partition
    in partition order), their shared spec, and their stores."""

    spec: AggregateSpec
    aggregators: list[Aggregator] = field(default_factory=list)
    stores: list[KeyValueStore] = field(default_factory=list)

    def late_records(self) -> int:
        """Records dropped because their window had closed (stream time past end + grace), all tasks."""
        return sum(a.late for a in self.aggregators)


def key_bytes(columns: list[tuple[str, SqlType]], fmt: str, delimiter: str | None) -> Callable[[tuple], bytes]:
    """Group key -> bytes in its internal key format (``plan.group_key``: ksqlDB's store and partitioning
    order)."""
    try:
        ks = key_serde(fmt, columns, delimiter=delimiter)
    except Exception:  # noqa: BLE001 - a format that cannot hold the key: private bytes still place it
        return encode_key
    return safe_key_bytes(placed(fmt, ks.serialize))  # the same bytes in every process (``serde.placed``)


def aggregate_spec(stage: AggregateStage, functions: FunctionRegistry, function_config: dict[str, Any],
                   plog: ProcessingLog, query_id: str, *,
                   cache_entries: int | None = None) -> AggregateSpec:
    """What every task of the aggregation shares: accumulators (the functions resolved again from their
    names, argument types and literals), the projection with HAVING, window settings, the record cache
    (``cache_entries`` overrides the stage's)."""
    resolved = [functions.aggregates[c.function].resolve(list(c.arg_types), list(c.literals), function_config)
                for c in stage.calls]
    groups = [list(g) for g in stage.outputs]
    having = stage.having
    projection = build_projector(stage.projection_schema, functions, groups, having, plog, query_id)
    spec = AggregateSpec(accs=Accumulators(resolved, stage.arg_counts), project=projection.project,
                         having=having is not None,
                         emit_final=stage.emit_final,
                         sort_key=key_bytes(stage.key_columns, stage.key_format, stage.key_delimiter),
                         cache_entries=stage.cache_entries if cache_entries is None else cache_entries)
    w = stage.window
    if w is not None:
        spec.window_type = w.type.value
        spec.size, spec.advance, spec.grace, spec.retention = w.size, w.advance, w.grace, w.retention
        spec.idle_advance_ms = stage.idle_advance_ms
        spec.emit_interval_ms = getattr(stage, "emit_interval_ms", 1000)  # (a plan pickled before it existed)
    spec.batch_loop = build_batch_loop(spec, projection.inline)
    return spec


def aggregator_class(window: WindowConfig | None) -> type[Aggregator]:
    if window is None:
        return Aggregator
    return SessionAggregator if window.type is WindowType.SESSION else TimeWindowAggregator
