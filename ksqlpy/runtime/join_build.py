"""Building the tasks of a join query from its JoinPlan.

The join tree is cut into sub-topologies at every internal topic, as ksqlDB's Kafka Streams topology is:

- a stream side joined on something other than its key (or in another key format) is first written to
  ``<app>-[L_]Join-left-repartition`` / ``-Join-right-repartition`` (stream-stream) or
  ``-Join-repartition`` (the stream of a stream-table join), keyed by the join key in the join's key
  format, so both sides of every join meet in the task of the same partition;
- a table side in another key format, or whose key format is schema-registry-enabled (AVRO, JSON_SR,
  PROTOBUF: ksqlDB always re-keys those sources), is re-keyed through ``-Left|RightSourceKeyed-SelectKey-
  repartition`` and materialized as ``-Left|RightSourceKeyed-Materialize``; otherwise tables are
  materialized as ``-KafkaTopic_Left|Right-Reduce``;
- a foreign-key join is two sub-topologies talking through subscription and response topics.

Each sub-topology runs one ``JoinTask`` per partition; ``L_`` prefixes the names of nested joins.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.expr.bound import Expr
from ksqlpy.log.base import ProducerRecord, RecordBatch
from ksqlpy.plan.logical import JoinLeaf, JoinNode, QueryPlan, RowSchema, SchemaColumn
from ksqlpy.private_files import private_dir
from ksqlpy.runtime.assignment import owns
from ksqlpy.runtime.join_fk import FkLeft, FkRight
from ksqlpy.runtime.join_rows import block_builder, key_encoder, key_function
from ksqlpy.runtime.join_store import OuterStore, TableStore, WindowStore
from ksqlpy.runtime.join_stream_stream import StreamStreamJoin, join_windows
from ksqlpy.runtime.join_stream_table import StreamTableJoin
from ksqlpy.runtime.join_table_table import TableTableJoin
from ksqlpy.runtime.join_task import Channel, JoinTask, TaskContext
from ksqlpy.runtime.reader import SourceReader, throws_on_invalid_timestamp
from ksqlpy.state.store import KeyValueStore

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

Emit = Callable[[Any, Any, Any, int, Any], None]
Wire = Callable[[TaskContext], None]
_dumps = pickle.dumps
_loads = pickle.loads
_HIGHEST = pickle.HIGHEST_PROTOCOL


@dataclass
class _Sub:
    index: int
    partitions: int
    wiring: list[Wire] = field(default_factory=list)
    final: bool = False


@dataclass
class JoinTasks:
    """The tasks of a join query and what to release with it."""

    tasks: list[JoinTask]
    stores: list[KeyValueStore] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)  # internal topics to delete with a transient query
    log: Any = None

    def close(self) -> None:
        for s in self.stores:
            try:
                s.close()
            except Exception:  # noqa: BLE001 - best effort
                pass
        self.stores = []
        for t in self.topics:
            try:
                self.log.delete_topic(t)
            except Exception:  # noqa: BLE001
                pass
        self.topics = []


def _row_columns(side: JoinNode | JoinLeaf) -> list[SchemaColumn]:
    leaves = side.leaves if isinstance(side, JoinNode) else [side]
    return [c for lf in leaves for c in lf.columns]


def _window_at(side: JoinNode | JoinLeaf) -> int | None:
    first = side.leaves[0] if isinstance(side, JoinNode) else side
    if first.source.windowed is None:
        return None
    cols = _row_columns(side)
    return next(i for i, c in enumerate(cols) if c.name == f"{first.alias}_WINDOWSTART")


class _Builder:
    def __init__(self, engine: Engine, plan: QueryPlan, query_id: str, *, persistent: bool, start_at: str) -> None:
        self.engine = engine
        self.plan = plan
        self.query_id = query_id
        self.persistent = persistent
        self.start_at = start_at
        service = str(engine.prop("ksql.service.id", "default_"))
        prefix = str(engine.prop("ksql.persistent.prefix", "query_")) if persistent else "transient_"
        self.app = f"_confluent-ksql-{service}{prefix}{query_id}"
        self.subs: list[_Sub] = []
        self.topics: list[str] = []
        self.counter = 0  # Kafka Streams' generated-name index (store names of stream-stream joins)
        self.window_size = _time_window_size(plan)
        self.functions = plan.functions

    # ------------------------------------------------------------------ helpers
    def sub(self, partitions: int) -> _Sub:
        s = _Sub(len(self.subs), partitions)
        self.subs.append(s)
        return s

    def topic(self, name: str, partitions: int) -> str:
        full = f"{self.app}-{name}"
        if not self.engine.log.topic_exists(full):
            self.engine.log.create_topic(full, partitions, 1, {"cleanup.policy": "delete"})
        self.topics.append(full)
        return full

    def partitions(self, side: JoinNode | JoinLeaf) -> int:
        leaf = side.leaves[0] if isinstance(side, JoinNode) else side
        info = self.engine.log.describe_topic(leaf.source.topic)
        return info.partitions if info is not None else 1

    def changelog(self, name: str) -> str:
        return f"{self.app}-{name}-changelog"

    def source_channel(self, leaf: JoinLeaf, key_fn: Callable[[tuple], Any], handle: Callable[..., None],
                       table: bool) -> Callable[[TaskContext], Channel]:
        engine, source = self.engine, leaf.source
        plog, qid = engine.plog, self.query_id
        strict_ts = throws_on_invalid_timestamp(engine)

        def make(ctx: TaskContext) -> Channel:
            reader = SourceReader(source, engine.key_serde(source), engine.value_serde(source), plog, qid,
                                  keep_tombstones=table, throw_on_invalid_timestamp=strict_ts)
            block = block_builder(source)

            def decode(batch: RecordBatch) -> list[tuple]:
                d = reader.decode(batch)
                out = []
                for i, row in enumerate(d.rows):
                    ts = d.timestamps[i]
                    b = block(row, ts, d.partitions[i], d.offsets[i])
                    try:
                        key = key_fn(b)
                    except Exception as e:  # noqa: BLE001 - a bad record never stops the query
                        plog.record_error(qid, f"Error computing the join key: {e}", row)
                        continue
                    out.append((ts, d.offsets[i], (key, None if d.tombstones[i] else b, d.headers[i])))
                return out

            emit = handle(ctx)
            return Channel(source.topic, decode, lambda key, row, hdrs, ts: emit(key, row, None, ts, hdrs),
                           self.start_at)

        return make

    @staticmethod
    def internal_channel(topic: str, handle: Callable[[TaskContext], Emit]) -> Callable[[TaskContext], Channel]:
        def make(ctx: TaskContext) -> Channel:
            def decode(batch: RecordBatch) -> list[tuple]:
                out = []
                for off, v, ts, h in zip(batch.offsets, batch.values, batch.timestamps, batch.headers, strict=True):
                    key, row = _loads(v)
                    out.append((ts, off, (key, row, h)))
                return out

            emit = handle(ctx)
            return Channel(topic, decode, lambda key, row, hdrs, ts: emit(key, row, None, ts, hdrs))

        return make

    @staticmethod
    def repartition_emit(ctx: TaskContext, topic: str, key_fn: Callable[[tuple], Any] | None,
                         key_bytes: Callable[[tuple], bytes]) -> Emit:
        """Emit into a repartition topic, re-keying each row with ``key_fn`` (None: keep the key)."""
        plog, qid = ctx.plog, ctx.query_id

        def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
            if key_fn is not None and new is not None:
                try:
                    key = key_fn(new)
                except Exception as e:  # noqa: BLE001
                    plog.record_error(qid, f"Error computing the join key: {e}", new)
                    return
            # a NULL join key goes on with a null Kafka key: an outer join side still emits the record
            kb = None if key is None else key_bytes(key)
            ctx.produce(ProducerRecord(topic, kb, _dumps((key, new), _HIGHEST), ts, hdrs))

        return emit

    # ------------------------------------------------------------------ the tree
    def build(self) -> list[_Sub]:
        join = self.plan.join
        assert join is not None
        root = self.sub(self.partitions(join.root))
        root.final = True
        self.node(join.root, root, lambda ctx: ctx.add_final)
        return self.subs

    def node(self, node: JoinNode, sub: _Sub, out: Callable[[TaskContext], Emit]) -> None:
        if node.flavor == "FOREIGN_KEY":
            self.fk(node, sub, out)
            return
        key_types = [k.type for k in node.keys]
        key_bytes = key_encoder(node.key_format, key_types, node.key_delimiter)
        lw, rw = len(_row_columns(node.left)), len(node.right.columns)
        me = id(node)
        slot = len(sub.wiring)  # the operator is created before anything feeding it
        to_left: Callable[[TaskContext], Emit] = lambda ctx: ctx.ops[me].on_left  # noqa: E731
        to_right: Callable[[TaskContext], Emit] = lambda ctx: ctx.ops[me].on_right  # noqa: E731
        table_rekey = node.flavor == "STREAM_TABLE" and node.repartition_right
        if table_rekey:
            # Kafka Streams builds a re-keyed table (source, select key, repartition, materialize: 12
            # generated names) before the stream side, which shifts the stream side's store names.
            self.counter += 12
        self.left_input(node, sub, to_left, key_bytes)
        self.right_input(node, sub, to_right, key_bytes, counted=table_rekey)

        if node.flavor == "STREAM_STREAM":
            self.counter += 4
            this, other, shared = self.stream_stream_stores(node)

            def make(ctx: TaskContext) -> None:
                outer = OuterStore(ctx.store(shared, self.changelog(shared))) if shared else None
                before, after, grace, _ = join_windows(node)
                retention = before + after + grace
                op = StreamStreamJoin(node, WindowStore(ctx.store(this, self.changelog(this)), retention),
                                      WindowStore(ctx.store(other, self.changelog(other)), retention), outer,
                                      out(ctx), lw, rw, key_bytes)
                ctx.operators.append(op)
                ctx.ops[me] = op
        elif node.flavor == "STREAM_TABLE":
            name = f"{node.context}{_table_store(node)}"

            def make(ctx: TaskContext) -> None:
                op = StreamTableJoin(node, TableStore(ctx.store(name, self.changelog(name))), out(ctx), rw, key_bytes)
                ctx.operators.append(op)
                ctx.ops[me] = op
        else:
            rname = f"{node.context}{_table_store(node)}"
            lname = (f"{node.context}Join-Left-Materialize" if not isinstance(node.left, JoinLeaf)
                     else f"{node.context}LeftSourceKeyed-Materialize" if node.repartition_left
                     else f"{node.context}KafkaTopic_Left-Reduce")

            def make(ctx: TaskContext) -> None:
                op = TableTableJoin(node, TableStore(ctx.store(lname, self.changelog(lname))),
                                    TableStore(ctx.store(rname, self.changelog(rname))), out(ctx), lw, rw, key_bytes)
                ctx.operators.append(op)
                ctx.ops[me] = op

        sub.wiring.insert(slot, make)

    def stream_stream_stores(self, node: JoinNode) -> tuple[str, str, str | None]:
        left_outer, right_outer = node.kind in ("LEFT", "FULL"), node.kind in ("RIGHT", "FULL")
        n = self.counter
        this = f"KSTREAM-{'OUTERTHIS' if right_outer else 'JOINTHIS'}-{n:010d}-store"
        other = f"KSTREAM-{'OUTEROTHER' if left_outer else 'JOINOTHER'}-{n + 1:010d}-store"
        self.counter += 2
        _, _, _, fix = join_windows(node)
        shared = None
        if fix and (left_outer or right_outer):
            shared = f"{this[:-len('-store')]}-{'outer' if right_outer else 'left'}-shared-join-store"
        return this, other, shared

    def left_input(self, node: JoinNode, sub: _Sub, target: Callable[[TaskContext], Emit],
                   key_bytes: Callable[[tuple], bytes]) -> None:
        left = node.left
        key_fn = key_function(node.left_exprs, _row_columns(left), self.functions, _window_at(left),
                              self.window_size)
        if isinstance(left, JoinLeaf):
            self.counter += 2
            if node.repartition_left:
                table = node.flavor == "TABLE_TABLE"
                suffix = ("LeftSourceKeyed-SelectKey-repartition" if table else
                          "Join-left-repartition" if node.flavor == "STREAM_STREAM" else "Join-repartition")
                topic = self.topic(f"{node.context}{suffix}", sub.partitions)
                self.repartition_source(left, key_fn, topic, key_bytes, table=table)
                self.internal_input(sub, topic, target)
                self.counter += 4
            else:
                table = node.flavor == "TABLE_TABLE"
                make = self.source_channel(left, key_fn, target, table)
                sub.wiring.append(lambda ctx: ctx.channels.append(make(ctx)))
        elif node.repartition_left:
            suffix = "Join-left-repartition" if node.flavor == "STREAM_STREAM" else "Join-repartition"
            topic = self.topic(f"{node.context}{suffix}", sub.partitions)
            child = self.sub(self.partitions(left))
            self.node(left, child, lambda ctx: self.repartition_emit(ctx, topic, key_fn, key_bytes))
            self.internal_input(sub, topic, target)
            self.counter += 4
        else:
            self.node(left, sub, target)

    def right_input(self, node: JoinNode, sub: _Sub, target: Callable[[TaskContext], Emit],
                    key_bytes: Callable[[tuple], bytes], *, counted: bool = False) -> None:
        """``counted``: the generated names of this side were already counted (built first)."""
        right = node.right
        key_fn = key_function(node.right_exprs, right.columns, self.functions, _window_at(right),
                              self.window_size)
        table = right.source.kind == "TABLE"
        self.counter += 0 if counted else 2
        if node.repartition_right:
            name = "RightSourceKeyed-SelectKey-repartition" if table else "Join-right-repartition"
            topic = self.topic(f"{node.context}{name}", sub.partitions)
            self.repartition_source(right, key_fn, topic, key_bytes, table=table)
            self.internal_input(sub, topic, target)
            self.counter += 0 if counted else 4
        else:
            make = self.source_channel(right, key_fn, target, table)
            sub.wiring.append(lambda ctx: ctx.channels.append(make(ctx)))

    def internal_input(self, sub: _Sub, topic: str, target: Callable[[TaskContext], Emit]) -> None:
        make = self.internal_channel(topic, target)
        sub.wiring.append(lambda ctx: ctx.channels.append(make(ctx)))

    def repartition_source(self, leaf: JoinLeaf, key_fn: Callable[[tuple], Any], topic: str,
                           key_bytes: Callable[[tuple], bytes], *, table: bool) -> None:
        """A sub-topology moving a source's records to ``topic``, keyed by the join key."""
        sub = self.sub(self.partitions(leaf))

        def emit_for(ctx: TaskContext) -> Emit:
            return self.repartition_emit(ctx, topic, None, key_bytes)

        make = self.source_channel(leaf, key_fn, emit_for, table)
        sub.wiring.append(lambda ctx: ctx.channels.append(make(ctx)))

    # ------------------------------------------------------------------ foreign-key joins
    def fk(self, node: JoinNode, sub: _Sub, out: Callable[[TaskContext], Emit]) -> None:
        left, right = node.left, node.right
        rsrc = right.source
        if isinstance(left, JoinLeaf):
            lsrc = left.source
            left_types = [c.type for c in lsrc.key_columns]
            left_bytes = key_encoder((lsrc.key_format or "KAFKA").upper(), left_types, lsrc.key_delimiter)
        else:  # the result of earlier joins, keyed by their key in their internal format
            left_types = [k.type for k in left.keys]
            left_bytes = key_encoder(left.key_format, left_types, left.key_delimiter)
        right_types = [c.type for c in rsrc.key_columns]
        right_bytes = key_encoder((rsrc.key_format or "KAFKA").upper(), right_types, rsrc.key_delimiter)
        right_key = key_function(_refs(right.columns, [f"{right.alias}_{c.name}" for c in rsrc.key_columns]),
                                 right.columns, self.functions)
        fk_of = key_function(node.left_exprs, _row_columns(left), self.functions)
        right_sub = self.sub(self.partitions(right))
        fk_partition = _partition_router(self.engine, rsrc, right_sub.partitions)
        n = 12 + self.counter
        sub_topic = self.topic(f"KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-{n:010d}-topic", right_sub.partitions)
        resp_topic = self.topic(f"KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-{n + 15:010d}-topic", sub.partitions)
        state = f"KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-{n + 1:010d}"
        lname = (f"{node.context}KafkaTopic_Left-Reduce" if isinstance(left, JoinLeaf)
                 else f"{node.context}Join-Left-Materialize")
        rname = f"{node.context}KafkaTopic_Right-Reduce"
        rw = len(right.columns)
        me = id(node)

        def make_left(ctx: TaskContext) -> None:
            op = FkLeft(TableStore(ctx.store(lname, self.changelog(lname))),
                        ctx.store(f"{node.context}FkJoin-Result", self.changelog(f"{node.context}FkJoin-Result")),
                        out(ctx), ctx.produce, inner=node.kind == "INNER", fk_of=fk_of, fk_bytes=right_bytes,
                        left_key_bytes=left_bytes, subscription_topic=sub_topic, right_width=rw,
                        partition=ctx.partition, fk_partition=fk_partition)
            ctx.operators.append(op)
            ctx.ops[me] = op

        sub.wiring.append(make_left)
        if isinstance(left, JoinLeaf):
            left_key = key_function(_refs(left.columns, [f"{left.alias}_{c.name}" for c in left.source.key_columns]),
                                    left.columns, self.functions)
            lmake = self.source_channel(left, left_key, lambda ctx: ctx.ops[me].on_left, True)
            sub.wiring.append(lambda ctx: ctx.channels.append(lmake(ctx)))
        else:
            self.node(left, sub, lambda ctx: ctx.ops[me].on_left)
        sub.wiring.append(lambda ctx: ctx.channels.append(
            self.internal_channel(resp_topic, lambda c: c.ops[me].on_response)(ctx)))

        def make_right(ctx: TaskContext) -> None:
            op = FkRight(TableStore(ctx.store(rname, self.changelog(rname))), ctx.store(state, self.changelog(state)),
                         ctx.produce, right_key_bytes=right_bytes, left_key_bytes=left_bytes, response_topic=resp_topic)
            ctx.operators.append(op)
            ctx.ops[me] = op

        right_sub.wiring.append(make_right)
        rmake = self.source_channel(right, right_key, lambda ctx: ctx.ops[me].on_right, True)
        right_sub.wiring.append(lambda ctx: ctx.channels.append(rmake(ctx)))
        right_sub.wiring.append(lambda ctx: ctx.channels.append(
            self.internal_channel(sub_topic, lambda c: c.ops[me].on_subscription)(ctx)))
        self.counter += 30


def _partition_router(engine: Engine, source: Any, partitions: int) -> Callable[[tuple], int | None]:
    """Key tuple -> the partition of ``source``'s topic its records are in: where the key written by the
    source's own key serde hashes (None, left to the log's partitioner, when that serde cannot write it)."""
    from ksqlpy.log.partitioner import partition_for_key

    try:
        serde = engine.key_serde(source)
    except Exception:  # noqa: BLE001 - no serde for the source's keys: leave routing to the log
        return lambda key: None

    def route(key: tuple) -> int | None:
        try:
            data = serde.serialize(key)
        except Exception:  # noqa: BLE001
            return None
        return None if data is None else partition_for_key(data, partitions)

    return route


def _time_window_size(plan: QueryPlan) -> int | None:
    """The size of the left-most source's time window: the window end of every join key (None: session
    windows, whose keys carry their own end, or no windows)."""
    join = plan.join
    if join is None:
        return None
    w = join.root.leaves[0].source.windowed
    if w is None or w.type.upper() == "SESSION" or not w.size_ms:
        return None
    return int(w.size_ms)


def _table_store(node: JoinNode) -> str:
    return "RightSourceKeyed-Materialize" if node.repartition_right else "KafkaTopic_Right-Reduce"


def _refs(columns: list[SchemaColumn], names: list[str]) -> list[Expr]:
    """Bound references to the columns ``names`` of a row of ``columns``."""
    schema = RowSchema(columns)
    return [schema.ref(n) for n in names]


def build_join_tasks(engine: Engine, plan: QueryPlan, query_id: str, *, persistent: bool, group: str,
                     start_at: str, finish_for: Callable[[int], Any], writer: Any,
                     on_rows: Callable[[list[tuple]], None] | None = None) -> JoinTasks:
    """Tasks for every sub-topology and partition. ``finish_for(partition)`` is the final stage of the
    task completing the join (see ``join_output``); ``writer`` writes what it returns."""
    builder = _Builder(engine, plan, query_id, persistent=persistent, start_at=start_at)
    subs = builder.build()
    result = JoinTasks([], log=engine.log)
    state_root = (os.path.join(engine.data_dir, "state", query_id) if persistent
                  else tempfile.mkdtemp(prefix=f"{query_id}-", dir=_transient_root(engine)))
    if not persistent:
        result.topics.extend(builder.topics)
    for sub in reversed(subs):
        for p in range(sub.partitions):
            if not owns(engine, p):  # a worker builds only the partitions it runs
                continue

            def make_store(name: str, changelog: str | None, sub: _Sub = sub, p: int = p) -> KeyValueStore:
                if changelog is not None and persistent and not engine.log.topic_exists(changelog):
                    engine.log.create_topic(changelog, sub.partitions, 1, {"cleanup.policy": "compact"})
                kv = KeyValueStore(os.path.join(state_root, f"{sub.index}_{p}", name),
                                   engine.log if persistent else None, changelog if persistent else None, p)
                result.stores.append(kv)
                return kv

            ctx = TaskContext(p, engine.plog, query_id, make_store)
            for wire in sub.wiring:
                wire(ctx)
            task = JoinTask(task_id=f"{sub.index}_{p}", log=engine.log, group=group, ctx=ctx,
                            finish=finish_for(p) if sub.final else None, writer=writer if sub.final else None,
                            on_rows=on_rows if sub.final else None, commit=persistent)
            result.tasks.append(task)
    return result


def _transient_root(engine: Engine) -> str:
    root = private_dir(os.path.join(engine.data_dir, "state", "transient"))
    return root
