"""``ksqlpy test --backfill-differential``: invariant 1 (same input + SQL -> same sink on both lowerings) over
QTT cases.

A case's expected outputs are not used: each case is run twice on fresh engines, once on the streaming
runtime and once with every ``CREATE STREAM/TABLE ... AS SELECT`` backfilled on Spark, and the two sinks are
compared. So that both sides see the same history, both do the same steps in the same order:

1. the harness's topics and schemas; the statements before the first CREATE ... AS SELECT;
2. the case's inputs, produced where their keys hash (Kafka's placement: the backfill's tasks read a real
   log, not the TopologyTestDriver's one partition), nothing running yet;
3. the remaining statements in order; each CREATE ... AS SELECT either starts at the earliest offset and
   is drained (streaming) or is backfilled (``ksqlpy.backfill.backfill``), so a later query reads the
   earlier one's complete sink on both sides.

Compared per sink of a CREATE ... AS SELECT: a stream's records per (partition, key) in order (those with a
null key as one bag: the producer's partitioner places them where it likes); a table's
records collapsed to the last value per (partition, key) (a tombstone removes it); and the processing-log
entries of both runs (without their wall-clock time). A case the backfill refuses (``BackfillUnsupported``)
is counted as unsupported with the refusal's feature, never as a difference; a case with an expected error,
a statement kind the differential cannot order against its inputs (INSERT, DROP, TERMINATE, ...), or a
CREATE ... AS SELECT over an existing source (a query upgrade: a backfill creates its sink), is not run.
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ksqlpy.testing.executor import HARNESS_PROPERTIES, EngineFactory, _Done, _Run
from ksqlpy.testing.model import Case
from ksqlpy.testing.partitioning import Placement

# EMIT FINAL and outer joins' waiting records unthrottled: their wall-clock throttles would make the streaming
# side depend on timing
DIFFERENTIAL_PROPERTIES: dict[str, Any] = {
    "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0,
    "ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0,
}

# statement kinds run as they come before and after the inputs (they read or write no records)
_PLAIN = ("CreateSource", "CreateType", "SetProperty", "UnsetProperty", "DefineVariable", "UndefineVariable")


class Outcome(Enum):
    EQUAL = "equal"
    DIFFERENT = "different"
    UNSUPPORTED = "unsupported"  # the backfill refuses one of the case's queries
    NOT_RUN = "not run"  # an expected error, a skipped case, an ordering the differential cannot keep


@dataclass(frozen=True)
class DiffResult:
    case_id: str
    outcome: Outcome
    reason: str = ""
    queries: int = 0
    records: int = 0  # sink records the streaming side wrote (0: the comparison checked empty sinks)


Record = tuple[int, bytes | None, bytes | None, int]


class _Side(_Run):
    """One lowering's run of a case (``spark`` None: the streaming runtime)."""

    def __init__(self, case: Case, factory: EngineFactory, data_dir: str, spark: Any, drain_timeout_s: float,
                 extra: dict[str, Any] | None = None, live: float = 0.0) -> None:
        super().__init__(case, factory, data_dir, extra or {}, drain_timeout_s, False, Placement.KAFKA)
        self.spark = spark
        # the inputs before the queries start (the history a backfill computes); the rest come after
        self.history = len(case.inputs) - int(len(case.inputs) * live)
        self.sinks: list[tuple[str, bool]] = []  # (sink name, is a table) per CREATE ... AS SELECT

    def run(self) -> None:
        props = {**HARNESS_PROPERTIES, **self.case.properties, **DIFFERENTIAL_PROPERTIES, **self.extra}
        self.engine = self.factory(self.data_dir, props)
        self.create_topics()
        fed = False
        for i, sql in enumerate(self.case.statements):
            self.stage = f"statement {i + 1}"
            stmts = self.engine.parse(sql)
            kinds = {type(s).__name__ for s in stmts}
            if kinds <= set(_PLAIN):
                self.engine.execute(sql)
                self.snapshot_sources()
                continue
            if kinds != {"CreateAsSelect"} or len(stmts) != 1:
                raise _Done(Outcome.NOT_RUN.value, f"statement kind {'/'.join(sorted(kinds))}")
            if not fed:
                self.stage = "producing the history"
                self.feed(self.case.inputs[:self.history])
                fed = True
            self.create_as_select(sql, stmts[0])
            self.snapshot_sources()
        if not self.sinks:
            raise _Done(Outcome.NOT_RUN.value, "no CREATE ... AS SELECT")
        if self.history < len(self.case.inputs):
            self.stage = "producing live inputs"
            self.feed(self.case.inputs[self.history:], drain=True)

    def feed(self, inputs: list[Any], drain: bool = False) -> None:
        """``inputs``, placed by their keys, a transaction per run of one topic (processed before the next
        when the queries run: ``drain``)."""
        topics = {r.topic for r in inputs}
        declared = {t.name for t in self.engine.log.list_topics()}
        for topic in sorted(topics - declared):
            self.engine.log.create_topic(topic, 4)
        group: list[Any] = []
        for r in inputs:
            if group and group[-1].topic != r.topic:
                self._produce(group, drain)
                group = []
            group.append(self.serialize(r))
        self._produce(group, drain)

    def _produce(self, records: list[Any], drain: bool) -> None:
        if records:
            with self.engine.log.transaction() as tx:
                tx.produce_many(records)
            if drain:
                self.engine.drain(self.drain_timeout_s)

    def create_as_select(self, sql: str, stmt: Any) -> None:
        if self.engine.catalog.source(stmt.name) is not None:
            # a query upgrade (CREATE OR REPLACE) or a no-op (IF NOT EXISTS): a backfill creates its sink
            raise _Done(Outcome.NOT_RUN.value, "CREATE ... AS SELECT over an existing source")
        self.sinks.append((stmt.name, stmt.kind == "TABLE"))
        if self.spark is None:
            self.engine.execute(sql, {"auto.offset.reset": "earliest"})
        else:
            from ksqlpy.backfill import backfill

            backfill(self.engine, sql, spark=self.spark)
        self.engine.drain(self.drain_timeout_s)


def run_differential(case: Case, spark: Any, factory: EngineFactory, drain_timeout_s: float = 10.0,
                     backfill_properties: dict[str, Any] | None = None, live: float = 0.0) -> DiffResult:
    """Run ``case`` on both lowerings and compare; never raises. ``backfill_properties``: engine properties of
    the backfilled side only (``ksqlpy.backfill.task.records=2`` cuts every partition into two-record tasks, so
    stateless queries run as sub-ranges and aggregations as partial aggregates per chunk where exact;
    ``ksqlpy.backfill.tier=native``). ``live``: the share of the inputs (the last ones) produced after the
    queries started, so the backfilled queries' hand-off is checked too (nothing lost, nothing counted
    twice: the streaming query continues from the backfill's positions and state)."""
    if case.error or case.skip_reason:
        return DiffResult(case.id, Outcome.NOT_RUN, "skipped case")
    if case.expected_exception is not None:
        return DiffResult(case.id, Outcome.NOT_RUN, "expected error")
    from ksqlpy.backfill.support import BackfillUnsupported

    with tempfile.TemporaryDirectory(prefix="ksqlpy-diff-") as d:
        bf = _Side(case, factory, f"{d}/backfill", spark, drain_timeout_s, backfill_properties, live)
        try:
            bf.run()
        except _Done as done:
            bf.close()
            return DiffResult(case.id, Outcome.NOT_RUN, done.reason)
        except BackfillUnsupported as e:
            bf.close()
            return DiffResult(case.id, Outcome.UNSUPPORTED, _feature(str(e)))
        except Exception as e:  # noqa: BLE001 - a differential run reports, never stops
            bf.close()
            return DiffResult(case.id, Outcome.DIFFERENT, f"backfill error ({bf.stage}): {type(e).__name__}: {_short(e)}")
        ref = _Side(case, factory, f"{d}/streaming", None, drain_timeout_s, live=live)
        try:
            ref.run()
        except Exception as e:  # noqa: BLE001
            bf.close()
            ref.close()
            return DiffResult(case.id, Outcome.DIFFERENT,
                              f"streaming error where the backfill ran ({ref.stage}): {type(e).__name__}: {_short(e)}")
        try:
            reasons = differences(ref.engine, bf.engine, ref.sinks)
            records = sum(len(sink_records(ref.engine, name)) for name, _ in ref.sinks)
        finally:
            bf.close()
            ref.close()
    n = len(ref.sinks)
    if reasons:
        return DiffResult(case.id, Outcome.DIFFERENT, "; ".join(reasons), n, records)
    return DiffResult(case.id, Outcome.EQUAL, "", n, records)


def differences(ref: Any, eng: Any, sinks: list[tuple[str, bool]]) -> list[str]:
    """What differs between the streaming engine ``ref`` and the backfilled ``eng``: per sink, then the
    processing logs."""
    out = []
    for name, table in sinks:
        want, got = sink_records(ref, name), sink_records(eng, name)
        if table:
            if collapse(want) != collapse(got):
                out.append(f"table {name}: collapsed sink differs")
        elif by_key(want) != by_key(got):
            out.append(f"stream {name}: records per key differ")
        if stores(ref, name) != stores(eng, name):
            out.append(f"query of {name}: state stores differ")
        elif task_stores(ref, name) != task_stores(eng, name):
            out.append(f"query of {name}: join or table stores differ")
    if plog(ref) != plog(eng):
        out.append("processing log differs")
    return out


# EARLIEST/LATEST_BY_OFFSET's sequence numbers (wall-clock nanoseconds of the process that took them): the
# same arrival order has other numbers in every run
_SEQ = re.compile(r"(?<![0-9.])1[0-9]{18}(?![0-9])")


def stores(engine: Any, name: str) -> tuple[int, dict[int, list[tuple[bytes, Any]]]]:
    """The late records dropped by the query writing ``name`` and its aggregation stores per task partition
    (what the backfill hands over and the streaming query continues from)."""
    query = next((q for q in engine.queries.values() if getattr(q, "sink_name", None) == name), None)
    aggregation = getattr(query, "aggregation", None)
    if aggregation is None:
        return 0, {}
    return (sum(a.late for a in aggregation.aggregators),
            {a.kv.partition: [(k, _normal(v)) for k, v in a.kv.items(b"")] for a in aggregation.aggregators})


def task_stores(engine: Any, name: str) -> dict[tuple[str, int], list[tuple[bytes, Any]]]:
    """Every store of the tasks of the query writing ``name`` (join windows and tables, materialized tables,
    aggregations) by its directory's name and partition - what a restarted task restores and continues from."""
    import os

    query = next((q for q in engine.queries.values() if getattr(q, "sink_name", None) == name), None)
    out: dict[tuple[str, int], list[tuple[bytes, Any]]] = {}
    for task in getattr(query, "tasks", None) or []:
        ctx = getattr(task, "ctx", None)
        for kv in (ctx.kvs if ctx is not None else getattr(task, "stores", [])):
            out[(os.path.basename(kv.directory), kv.partition)] = [(k, _normal(v)) for k, v in kv.items(b"")]
    return out


def _normal(value: Any) -> Any:
    """A state value compared by what it holds: sets as sets (their repr follows insertion history), the
    by-offset sequence numbers as one placeholder."""
    if isinstance(value, set | frozenset):
        return frozenset(_normal(v) for v in value)
    if isinstance(value, list | tuple):
        return tuple(_normal(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted(((repr(k), _normal(v)) for k, v in value.items()), key=repr))
    text = repr(value)
    return _SEQ.sub("<seq>", text) if isinstance(value, int) else text


def sink_records(engine: Any, name: str) -> list[Record]:
    """Every record of the sink topic of ``name``: (partition, key, value, timestamp) in offset order."""
    src = engine.catalog.source(name)
    if src is None:
        return []
    out: list[Record] = []
    for p in range(engine.log.partition_count(src.topic) or 0):
        offset = 0
        while True:
            b = engine.log.fetch(src.topic, p, offset)
            if not b.offsets:
                break
            out += [(p, k, v, ts) for k, v, ts in zip(b.keys, b.values, b.timestamps, strict=True)]
            offset = b.next_offset
    return out


def collapse(records: Iterable[Record]) -> dict[tuple[int, bytes | None], tuple[bytes, int]]:
    """A table topic as its final table: the last (value, timestamp) per (partition, key)."""
    table: dict[tuple[int, bytes | None], tuple[bytes, int]] = {}
    for p, k, v, ts in records:
        if v is None:
            table.pop((p, k), None)
        else:
            table[(p, k)] = (v, ts)
    return table


def by_key(records: Iterable[Record]) -> dict[tuple[int, bytes | None] | None, list[tuple[bytes | None, int]]]:
    """A stream topic as each (partition, key)'s records in order. Records with a null key are one bag
    (under ``None``, sorted): the producer places them where it likes (Kafka's sticky partitioner: a
    partition per batch, ours per transaction), so neither their partition nor their order across
    partitions is defined, and the backfill commits a transaction per staged file where streaming commits
    one per batch it processed."""
    out: dict[tuple[int, bytes | None] | None, list[tuple[bytes | None, int]]] = {}
    for p, k, v, ts in records:
        out.setdefault(None if k is None else (p, k), []).append((v, ts))
    if None in out:
        out[None].sort(key=lambda r: (r[0] is not None, r[0] or b"", r[1]))
    return out


def plog(engine: Any) -> Counter[str]:
    """The processing-log entries without their wall-clock time."""
    return Counter(repr((e.get("logger"), e.get("message"))) for e in list(engine.plog.entries))


def _feature(message: str) -> str:
    m = re.search(r"does not support (.*?)(?::| yet|;)", message)
    return m.group(1) if m else message.splitlines()[0]


def _short(e: BaseException) -> str:
    return str(e).splitlines()[0][:160] if str(e) else ""


def run_all_differential(cases: list[Case], spark: Any, factory: EngineFactory, drain_timeout_s: float = 10.0,
                         progress: Callable[[int, int, DiffResult], None] | None = None,
                         backfill_properties: dict[str, Any] | None = None, live: float = 0.0) -> list[DiffResult]:
    out = []
    for i, case in enumerate(cases):
        out.append(run_differential(case, spark, factory, drain_timeout_s, backfill_properties, live))
        if progress:
            progress(i + 1, len(cases), out[-1])
    return out


def summary(results: list[DiffResult], top: int = 15, verbose: bool = False) -> str:
    """Counts (run / supported / equal / different / unsupported / not run) and the top reasons of each."""
    by = Counter(r.outcome for r in results)
    supported = by[Outcome.EQUAL] + by[Outcome.DIFFERENT]
    empty = sum(1 for r in results if r.outcome is Outcome.EQUAL and not r.records)
    lines = [f"Backfill differential: {len(results)} cases, {supported} supported (run on both lowerings), "
             f"{by[Outcome.EQUAL]} equal ({empty} of them with empty sinks), {by[Outcome.DIFFERENT]} different, {by[Outcome.UNSUPPORTED]} unsupported, "
             f"{by[Outcome.NOT_RUN]} not run"]
    for outcome in (Outcome.DIFFERENT, Outcome.UNSUPPORTED, Outcome.NOT_RUN):
        reasons = Counter(_reason_group(r.reason) for r in results if r.outcome is outcome)
        if reasons:
            lines.append(f"{outcome.value}, by reason:" if outcome is not Outcome.UNSUPPORTED
                         else "unsupported, by the feature the backfill refuses:")
            lines += [f"  {n:5d}  {reason}" for reason, n in reasons.most_common(top)]
    shown = [r for r in results if r.outcome is Outcome.DIFFERENT or verbose]
    lines += [f"{r.outcome.value:11} {r.case_id}: {r.reason or f'{r.records} sink records'}" for r in shown]
    return "\n".join(lines)


def _reason_group(reason: str) -> str:
    """A reason without its sink names, so alike reasons count as one."""
    reason = re.sub(r"\b(table|stream) \S+:", r"\1 X:", reason)
    return reason[:140]
