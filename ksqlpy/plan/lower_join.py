"""Lowering a join query: the join tree cut into sub-topologies at every internal topic, as ksqlDB's Kafka
Streams topology is (see docs/joins.md):

- a stream side joined on something other than its key (or in another key format) is first written to
  ``<app>-[L_]Join-left-repartition`` / ``-Join-right-repartition`` (stream-stream) or
  ``-Join-repartition`` (the stream of a stream-table join), keyed by the join key in the join's key
  format, so both sides of every join meet in the task of the same partition;
- a table side in another key format, or whose key format is schema-registry-enabled, is re-keyed through
  ``-Left|RightSourceKeyed-SelectKey-repartition`` and materialized as ``-Left|RightSourceKeyed-Materialize``;
  otherwise tables are materialized as ``-KafkaTopic_Left|Right-Reduce``;
- a foreign-key join is two sub-topologies talking through subscription and response topics.

``L_`` prefixes the names of nested joins. Store names Kafka Streams generates (stream-stream window
stores, foreign-key topics) use its name counter, advanced as its topology builder advances it for each
step ksqlDB adds. The rest of the query (WHERE, PARTITION BY, the projection - or GROUP BY, which reads
the join's results in the task that completes the join) follows the join in the last sub-topology.
"""

from __future__ import annotations

from typing import Literal

from ksqlpy.expr.bound import Expr
from ksqlpy.plan import naming
from ksqlpy.plan.internal_values import materialized_source_values
from ksqlpy.plan.join_columns import stream_columns_read
from ksqlpy.plan.join_prefilter import pair_prefilter, stream_prefilter, table_prefilter
from ksqlpy.plan.logical import (
    Aggregate,
    Filter,
    FlatMap,
    Join,
    JoinFlavor,
    JoinKind,
    ResultKind,
    RowSchema,
    Scan,
    SchemaColumn,
)
from ksqlpy.plan.lowering import (
    OUTER_JOIN_EMIT_INTERVAL_PROPERTY,
    Lowering,
    SubBuilder,
    emit_interval_ms,
    frozen_clock,
    lower_aggregation,
    materialize_key,
    result_groups,
)
from ksqlpy.plan.rules import FK_RESULTS_IN_LEFT_STORE, PROJECT_STORE_FOR_JOIN_TABLE
from ksqlpy.plan.topology import (
    ForeignKeyLeft,
    ForeignKeyRight,
    JoinChannel,
    JoinOperator,
    JoinResult,
    JoinStage,
    JoinWiring,
    KeyCodec,
    KeyFunction,
    Materialize,
    Node,
    NodeKind,
    StartAt,
    StoreKind,
    Target,
    ToOperator,
    TopicKey,
    TopicKind,
    ToRepartition,
    ToResult,
)
from ksqlpy.schema_registry.sources import serde_options

DAY_MS = 24 * 3600 * 1000


def join_key(node: Join, side: Literal["left", "right"] = "left",
             values: Literal["block", "source"] | None = "block", offsets: bool = True) -> TopicKey:
    """The key of the repartition topics and stores of a join step: its key columns in the step's key format
    and window (the left side's: a windowed source is never re-keyed out of its window), each named after
    the column it equals (``ALIAS_COL``; a synthetic key by its own name); the values in ``side``'s value
    format (its leftmost source's, as ksqlDB's join steps take each side's internal formats) with that
    source's value properties. ``values``: what the topic's values hold - ``block``, the side's rows as the
    join reads them (its sources' ``ALIAS_COL`` blocks: ksqlDB's PrependAlias projection, or an inner join's
    result); ``source``, the source's own value columns (a table materialized as read, before the alias
    step: ``KafkaTopic_Right-Reduce``, with ROWPARTITION and ROWOFFSET when ``offsets``:
    ``internal_values.materialized_source_values``); None, not modelled (an outer join's shared store holds
    either side)."""
    names = [k.display or (k.name if not k.name.startswith("$") else f"KSQL_COL_{i}")
             for i, k in enumerate(node.keys)]
    side_node = node.left if side == "left" else node.right
    source = side_node.leaves[0].source
    options = serde_options(source, False)
    columns = None
    if values == "block":
        columns = [(c.name, c.type) for c in _row_columns(side_node)]
    elif values == "source":
        columns = materialized_source_values(source, offsets)
    return TopicKey([(n, k.type) for n, k in zip(names, node.keys, strict=True)], node.key_format,
                    node.key_full_name, window=node.join_windowed, value_format=source.value_format,
                    values=columns, value_full_name=options["full_name"], value_nullable=options["nullable"])


def join_windows(node: Join) -> tuple[int, int, int, bool]:
    """(before, after, grace, spurious-results fix) of a WITHIN clause, seen from the left stream's records,
    as ksqlDB builds JoinWindows: without GRACE PERIOD the grace is 24h minus twice the window (``before``)
    and unmatched outer records go out at once.

    ksqlDB runs a RIGHT join as ``right.leftJoin(left)`` with the JoinWindows of ``WITHIN (before, after)``
    unchanged, so the right stream is the side the window is written for: a right record at R meets the
    left records in [R - before, R + after] - seen from a left record, the window reversed."""
    w = node.within
    assert w is not None
    before, after = (w.after_ms, w.before_ms) if node.kind is JoinKind.RIGHT else (w.before_ms, w.after_ms)
    if w.grace_ms is None:
        return before, after, max(DAY_MS - 2 * w.before_ms, 0), False
    return before, after, w.grace_ms, True


def _row_columns(side: Join | Scan) -> list[SchemaColumn]:
    leaves = side.leaves if isinstance(side, Join) else [side]
    return [c for lf in leaves for c in lf.columns]


def _window_at(side: Join | Scan) -> int | None:
    first = side.leaves[0] if isinstance(side, Join) else side
    if first.source.windowed is None:
        return None
    cols = _row_columns(side)
    return next(i for i, c in enumerate(cols) if c.name == f"{first.alias}_WINDOWSTART")


def _refs(columns: list[SchemaColumn], names: list[str]) -> list[Expr]:
    """Bound references to the columns ``names`` of a row of ``columns``."""
    schema = RowSchema(columns)
    return [schema.ref(n) for n in names]


class JoinLowering:
    """The join tree of ``lo.plan`` into ``lo``'s sub-topologies (see the module docstring)."""

    def __init__(self, lo: Lowering) -> None:
        self.lo = lo
        self.plan = lo.plan
        root = lo.plan.bottom
        assert isinstance(root, Join)
        self.root = root
        self.wiring: dict[int, list[JoinWiring]] = {}
        self.next_operator = 0
        self.window_size = self._time_window_size()
        self.columns_read = stream_columns_read(self.plan, root)

    def _time_window_size(self) -> int | None:
        """The size of the left-most source's time window: the window end of every join key (None: session
        windows, whose keys carry their own end, or no windows)."""
        w = self.root.leaves[0].source.windowed
        if w is None or w.type.upper() == "SESSION" or not w.size_ms:
            return None
        return int(w.size_ms)

    # ------------------------------------------------------------------ helpers
    @property
    def counter(self) -> int:
        return self.lo.index

    def advance(self, n: int) -> None:
        self.lo.index += n

    def sub(self, side: Join | Scan) -> SubBuilder:
        leaf = side.leaves[0] if isinstance(side, Join) else side
        s = self.lo.sub(self.lo.partitions_of(leaf.source.topic) or 1)
        self.wiring[s.id] = []
        return s

    def key_function(self, exprs: list[Expr], columns: list[SchemaColumn], window_at: int | None = None,
                     window_size: int | None = None) -> KeyFunction:
        return KeyFunction(list(exprs), list(columns), window_at, window_size)

    def repartition_topic(self, described: str, partitions: int, node: Join, side: Literal["left", "right"]) -> str:
        return self.lo.internal_topic(described, TopicKind.REPARTITION, partitions, join_key(node, side))

    def store(self, name: str, kind: StoreKind, sub: SubBuilder, node: Join | None = None,
              side: Literal["left", "right"] = "left", values: Literal["block", "source"] | None = "block") -> str:
        """A store of the join task (holding ``side``'s rows, as ``values`` says); one keyed by ``node``'s
        join key logs it with that key's format."""
        return self.lo.add_store(name, kind, sub, key=join_key(node, side, values, self.lo.offsets) if node is not None else None)

    def operator_id(self) -> int:
        self.next_operator += 1
        return self.next_operator

    # ------------------------------------------------------------------ description nodes
    def leaf_nodes(self, sub: SubBuilder, leaf: Scan, index: int, side: str, context: str,
                   stores: list[str] | None = None) -> Node:
        """A join source as Kafka Streams describes it: source node, ksqlDB's pseudo columns (a table
        materialized in ``stores``), the alias prefix."""
        source = leaf.source
        node = sub.node(NodeKind.SOURCE, naming.generated("KSTREAM-SOURCE", index), topics=[source.topic])
        if source.kind == ResultKind.TABLE:
            node = sub.node(NodeKind.PROCESSOR, naming.generated("KTABLE-SOURCE", index + 1), node, stores=stores)
        else:
            node = sub.node(NodeKind.PROCESSOR, naming.generated("KSTREAM-TRANSFORMVALUES", index + 1), node)
        return sub.node(NodeKind.PROCESSOR, f"{context}PrependAlias{side.capitalize()}", node)

    @staticmethod
    def repartition_nodes(sub: SubBuilder, after: Node, described: str) -> None:
        step = described.removesuffix("-repartition")
        node = sub.node(NodeKind.PROCESSOR, f"{step}-repartition-filter", after)
        sub.node(NodeKind.SINK, f"{step}-repartition-sink", node, topics=[described])

    @staticmethod
    def repartition_source_node(sub: SubBuilder, described: str) -> Node:
        step = described.removesuffix("-repartition")
        return sub.node(NodeKind.SOURCE, f"{step}-repartition-source", topics=[described])

    # ------------------------------------------------------------------ the tree
    def lower(self) -> None:
        root = self.sub(self.root)
        out = self.node(self.root, root, ToResult())
        self.rest(root, out)
        for sub in self.lo.subs:
            if sub.id in self.wiring:
                sub.operators.insert(0, JoinStage(self.wiring[sub.id]))

    def node(self, node: Join, sub: SubBuilder, out: Target) -> Node:
        """Wire ``node`` into ``sub`` emitting to ``out``; the description node of its result."""
        if node.flavor is JoinFlavor.FOREIGN_KEY:
            return self.fk(node, sub, out)
        codec = KeyCodec(node.key_format, [k.type for k in node.keys], node.key_delimiter)
        lw, rw = len(_row_columns(node.left)), len(node.right.columns)
        me = self.operator_id()
        wiring = self.wiring[sub.id]
        slot = len(wiring)  # the operator is created before anything feeding it
        table_rekey = node.flavor is JoinFlavor.STREAM_TABLE and node.repartition_right
        if table_rekey:
            # Kafka Streams builds a re-keyed table (source, select key, repartition, materialize: 12
            # generated names) before the stream side, which shifts the stream side's store names.
            self.advance(12)
        right_store = None
        if node.flavor in (JoinFlavor.STREAM_TABLE, JoinFlavor.TABLE_TABLE):
            right_store = self.store(f"{node.context}{self._table_store(node)}", StoreKind.KEY_VALUE, sub, node,
                                     "right", "block" if node.repartition_right else "source")
        left = self.left_input(node, sub, ToOperator(me, "on_left"), codec)
        right = self.right_input(node, sub, ToOperator(me, "on_right"), codec, counted=table_rekey,
                                 table_store=right_store)
        ctx = node.context
        if node.flavor is JoinFlavor.STREAM_STREAM:
            self.advance(4)
            within = join_windows(node)
            this, other, shared = naming.stream_stream_stores(self.counter, node.kind, within[3])
            self.advance(2)
            # the operator's "this" store holds the left stream's records; Kafka's holds its this side's,
            # the right stream's for a RIGHT join (right.leftJoin(left))
            this_side, other_side = (right, left) if node.kind is JoinKind.RIGHT else (left, right)
            # (a RIGHT join's this store holds the right stream's rows, in its formats)
            this_of, other_of = ("right", "left") if node.kind is JoinKind.RIGHT else ("left", "right")
            this_store, other_store = (self.store(this, StoreKind.WINDOW, sub, node, this_of),
                                        self.store(other, StoreKind.WINDOW, sub, node, other_of))
            stores = ({"this": other_store, "other": this_store} if node.kind is JoinKind.RIGHT
                      else {"this": this_store, "other": other_store})
            if shared:
                stores["outer"] = self.store(shared, StoreKind.KEY_VALUE, sub, node, values=None)
            op = JoinOperator(me, JoinFlavor.STREAM_STREAM, node.kind, stores, lw, rw, codec, out, within,
                              pair_prefilter=pair_prefilter(self.plan.find(Filter), node) if node is self.root
                              else [],
                              emit_interval_ms=emit_interval_ms(self.lo.prop(OUTER_JOIN_EMIT_INTERVAL_PROPERTY),
                                                               frozen_clock(self.lo)))
            extra = [shared] if shared else []
            this_w = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-this-windowed", this_side, stores=[this])
            other_w = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-other-windowed", other_side, stores=[other])
            this_j = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-this-join", this_w, stores=[other, *extra])
            other_j = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-other-join", other_w, stores=[this, *extra])
            result = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-merge", [this_j, other_j])
        elif node.flavor is JoinFlavor.STREAM_TABLE:
            assert right_store is not None
            op = JoinOperator(me, JoinFlavor.STREAM_TABLE, node.kind, {"table": right_store}, lw, rw, codec, out,
                              right_prefilter=table_prefilter(self.plan.find(Filter), node) if node is self.root
                              else [])
            result = sub.node(NodeKind.PROCESSOR, f"{ctx}Join", left, stores=[right_store])
            right.successors.append(result.name)
        else:
            assert right_store is not None
            lname = (f"{ctx}Join-Left-Materialize" if not isinstance(node.left, Scan)
                     else naming.join_table_store(ctx, "left", rekeyed=node.repartition_left))
            left_store = self.store(lname, StoreKind.KEY_VALUE, sub, node, "left",
                                    "source" if isinstance(node.left, Scan) and not node.repartition_left else "block")
            op = JoinOperator(me, JoinFlavor.TABLE_TABLE, node.kind, {"left": left_store, "right": right_store}, lw, rw,
                              codec, out)
            this_j = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-join-this", left, stores=[right_store])
            other_j = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-join-other", right, stores=[left_store])
            result = sub.node(NodeKind.PROCESSOR, f"{ctx}Join-merge", [this_j, other_j])
        wiring.insert(slot, op)
        return result

    @staticmethod
    def _table_store(node: Join) -> str:
        return "RightSourceKeyed-Materialize" if node.repartition_right else "KafkaTopic_Right-Reduce"

    def left_input(self, node: Join, sub: SubBuilder, target: Target, codec: KeyCodec) -> Node:
        left = node.left
        key = self.key_function(node.left_exprs, _row_columns(left), _window_at(left), self.window_size)
        ctx = node.context
        if isinstance(left, Scan):
            first = self.counter
            self.advance(2)
            table = node.flavor is JoinFlavor.TABLE_TABLE
            prefilter = stream_prefilter(self.plan.find(Filter), node) if node is self.root else []
            if node.repartition_left:
                described = naming.join_repartition(ctx, node.flavor, "left", table=table)
                topic = self.repartition_topic(described, sub.partitions, node, "left")
                self.repartition_source(left, key, topic, described, codec, table=table, index=first,
                                        side="left", context=ctx, prefilter=prefilter)
                self.wiring[sub.id].append(JoinChannel(topic, target))
                self.advance(4)
                node_in = self.repartition_source_node(sub, described)
                if table:
                    lstore = naming.join_table_store(ctx, "left", rekeyed=True)
                    node_in = sub.node(NodeKind.PROCESSOR, f"{ctx}LeftSourceKeyed-Materialize", node_in,
                                       stores=[lstore])
                return node_in
            self.wiring[sub.id].append(JoinChannel(left.source.topic, target, left.source, key, table,
                                                   self.start_at(table, left.source.topic), prefilter, self.columns_read.get(id(left))))
            self.lo.add_topic(left.source.topic, TopicKind.SOURCE, sub.partitions)
            lstore = naming.join_table_store(ctx, "left", rekeyed=False) if table else None
            return self.leaf_nodes(sub, left, first, "left", ctx, [lstore] if lstore else None)
        if node.repartition_left:
            described = naming.join_repartition(ctx, node.flavor, "left", table=False)
            topic = self.repartition_topic(described, sub.partitions, node, "left")
            child = self.sub(left)
            child_out = self.node(left, child, ToRepartition(topic, key, codec))
            self.repartition_nodes(child, child.node(NodeKind.PROCESSOR, f"{ctx}LeftSourceKeyed-SelectKey",
                                                     child_out), described)
            self.wiring[sub.id].append(JoinChannel(topic, target))
            self.advance(4)
            return self.repartition_source_node(sub, described)
        return self.node(left, sub, target)

    def start_at(self, table: bool, topic: str) -> StartAt:
        """Where a join reads a source: a table side from its start whatever ``auto.offset.reset`` says (ksqlDB
        builds a joined table complete, or its earlier rows would never be joined); a stream as configured.
        Under the test harness as ksqlDB's TestExecutor pipes records (``harness_start``)."""
        piped = self.lo.harness_start(topic)
        if piped is not None:
            return piped
        return "earliest" if table else self.lo.start_at

    def right_input(self, node: Join, sub: SubBuilder, target: Target, codec: KeyCodec, *, counted: bool,
                    table_store: str | None) -> Node:
        """``counted``: the generated names of this side were already counted (built first)."""
        right = node.right
        key = self.key_function(node.right_exprs, right.columns, _window_at(right), self.window_size)
        table = right.result_kind is ResultKind.TABLE
        first = self.counter - (12 if counted else 0)
        self.advance(0 if counted else 2)
        ctx = node.context
        if node.repartition_right:
            described = naming.join_repartition(ctx, node.flavor, "right", table=table)
            topic = self.repartition_topic(described, sub.partitions, node, "right")
            self.repartition_source(right, key, topic, described, codec, table=table, index=first, side="right",
                                    context=ctx)
            self.wiring[sub.id].append(JoinChannel(topic, target))
            self.advance(0 if counted else 4)
            node_in = self.repartition_source_node(sub, described)
            if table:
                node_in = sub.node(NodeKind.PROCESSOR, f"{ctx}RightSourceKeyed-Materialize", node_in,
                                   stores=[table_store] if table_store else None)
            return node_in
        self.wiring[sub.id].append(JoinChannel(right.source.topic, target, right.source, key, table,
                                               self.start_at(table, right.source.topic), columns_read=self.columns_read.get(id(right))))
        self.lo.add_topic(right.source.topic, TopicKind.SOURCE, sub.partitions)
        return self.leaf_nodes(sub, right, first, "right", ctx, [table_store] if (table and table_store) else None)

    def repartition_source(self, leaf: Scan, key: KeyFunction, topic: str, described: str, codec: KeyCodec, *,
                           table: bool, index: int, side: str, context: str,
                           prefilter: list[Expr] | None = None) -> None:
        """A sub-topology moving a source's records to ``topic``, keyed by the join key (``prefilter``: the
        WHERE conjuncts its records are dropped by first, ``plan.join_prefilter``)."""
        sub = self.sub(leaf)
        self.wiring[sub.id].append(JoinChannel(leaf.source.topic, ToRepartition(topic, None, codec), leaf.source,
                                               key, table, self.start_at(table, leaf.source.topic), list(prefilter or []),
                                               self.columns_read.get(id(leaf))))
        self.lo.add_topic(leaf.source.topic, TopicKind.SOURCE, sub.partitions)
        node = self.leaf_nodes(sub, leaf, index, side, context)
        node = sub.node(NodeKind.PROCESSOR, f"{context}{side.capitalize()}SourceKeyed-SelectKey", node)
        self.repartition_nodes(sub, node, described)

    # ------------------------------------------------------------------ foreign-key joins
    def fk(self, node: Join, sub: SubBuilder, out: Target) -> Node:
        left, right = node.left, node.right
        rsrc = right.source
        if isinstance(left, Scan):
            lsrc = left.source
            left_codec = KeyCodec((lsrc.key_format or "KAFKA").upper(), [c.type for c in lsrc.key_columns],
                                  lsrc.key_delimiter)
        else:  # the result of earlier joins, keyed by their key in their internal format
            left_codec = KeyCodec(left.key_format, [k.type for k in left.keys], left.key_delimiter)
        right_codec = KeyCodec((rsrc.key_format or "KAFKA").upper(), [c.type for c in rsrc.key_columns],
                               rsrc.key_delimiter)
        right_key = self.key_function(_refs(right.columns, [f"{right.alias}_{c.name}" for c in rsrc.key_columns]),
                                      right.columns)
        fk_of = self.key_function(node.left_exprs, _row_columns(left))
        right_sub = self.sub(right)
        n = 12 + self.counter
        sub_described, resp_described, state = naming.fk_topics(n)
        sub_topic = self.lo.internal_topic(sub_described, TopicKind.SUBSCRIPTION, right_sub.partitions)
        resp_topic = self.lo.internal_topic(resp_described, TopicKind.RESPONSE, sub.partitions)
        ctx = node.context
        lname = (f"{ctx}KafkaTopic_Left-Reduce" if isinstance(left, Scan) else f"{ctx}Join-Left-Materialize")
        rekeyed = node.repartition_right  # (``partitioning.foreign_key_right_rekeyed``)
        rname = f"{ctx}RightSourceKeyed-Materialize" if rekeyed else f"{ctx}KafkaTopic_Right-Reduce"
        me = self.operator_id()
        stores = {"left": self.store(lname, StoreKind.KEY_VALUE, sub)}
        # the results the join applied live in the left table's store, as Kafka Streams' join has no store
        # of its own for them; a query created before keeps the ``FkJoin-Result`` store it was built with
        rules = self.plan.plan_rules
        if rules is not None and rules < FK_RESULTS_IN_LEFT_STORE:
            stores["results"] = self.store(f"{ctx}FkJoin-Result", StoreKind.KEY_VALUE, sub)
        self.wiring[sub.id].append(ForeignKeyLeft(me, stores, node.kind is JoinKind.INNER, fk_of, right_codec, left_codec,
                                                  sub_topic, len(right.columns), out, rsrc, right_sub.partitions,
                                                  rekeyed))
        if isinstance(left, Scan):
            left_key = self.key_function(_refs(left.columns, [f"{left.alias}_{c.name}"
                                                              for c in left.source.key_columns]), left.columns)
            self.wiring[sub.id].append(JoinChannel(left.source.topic, ToOperator(me, "on_left"), left.source,
                                                   left_key, True, self.start_at(True, left.source.topic)))
            self.lo.add_topic(left.source.topic, TopicKind.SOURCE, sub.partitions)
            left_node = self.leaf_nodes(sub, left, self.counter, "left", ctx, [lname])
        else:
            left_node = self.node(left, sub, ToOperator(me, "on_left"))
        self.wiring[sub.id].append(JoinChannel(resp_topic, ToOperator(me, "on_response")))
        rstores = {"right": self.store(rname, StoreKind.KEY_VALUE, right_sub),
                   "subscriptions": self.store(state, StoreKind.KEY_VALUE, right_sub)}
        self.wiring[right_sub.id].append(ForeignKeyRight(me, rstores, right_codec, left_codec, resp_topic))
        if rekeyed:  # the right table's rows, re-keyed by a sub-topology of their own
            described = naming.join_repartition(ctx, node.flavor, "right", table=True)
            topic = self.lo.internal_topic(described, TopicKind.REPARTITION, right_sub.partitions,
                                           self.fk_right_key(right))
            self.repartition_source(right, right_key, topic, described, right_codec, table=True, index=n - 10,
                                    side="right", context=ctx)
            self.wiring[right_sub.id].append(JoinChannel(topic, ToOperator(me, "on_right")))
        else:
            self.wiring[right_sub.id].append(JoinChannel(rsrc.topic, ToOperator(me, "on_right"), rsrc, right_key,
                                                         True, self.start_at(True, rsrc.topic)))
            self.lo.add_topic(rsrc.topic, TopicKind.SOURCE, right_sub.partitions)
        self.wiring[right_sub.id].append(JoinChannel(sub_topic, ToOperator(me, "on_subscription")))
        # the description: registration out of the left side, the right side answering, the left resolving
        registration = sub.node(NodeKind.PROCESSOR, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION", left_node)
        sub.node(NodeKind.SINK, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-sink", registration,
                 topics=[sub_described])
        incoming = right_sub.node(NodeKind.SOURCE, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-source",
                                  topics=[sub_described])
        processor = right_sub.node(NodeKind.PROCESSOR, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR", incoming,
                                   stores=[state, rname])
        if rekeyed:
            right_node = right_sub.node(NodeKind.PROCESSOR, f"{ctx}RightSourceKeyed-Materialize",
                                  self.repartition_source_node(right_sub, described), stores=[rname])
        else:
            right_node = self.leaf_nodes(right_sub, right, n - 10, "right", ctx, [rname])  # (the left leaf: n - 12)
        changes = right_sub.node(NodeKind.PROCESSOR, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-CHANGES", right_node,
                                 stores=[state])
        right_sub.node(NodeKind.SINK, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-sink", [processor, changes],
                       topics=[resp_described])
        response = sub.node(NodeKind.SOURCE, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-source",
                            topics=[resp_described])
        result = sub.node(NodeKind.PROCESSOR, f"{ctx}KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER", response,
                          stores=list(stores.values()))
        self.advance(30)
        return result

    @staticmethod
    def fk_right_key(right: Scan) -> TopicKey:
        """The key of a foreign-key join's re-keyed right table (``RightSourceKeyed-SelectKey-repartition``):
        the table's own key columns (``ALIAS_COL``) in its own key format and full name; its rows as the join
        reads them, in its value format."""
        src = right.source
        key, value = serde_options(src, True), serde_options(src, False)
        return TopicKey([(f"{right.alias}_{c.name}", c.type) for c in src.key_columns],
                        (src.key_format or "KAFKA").upper(), key["full_name"], value_format=src.value_format,
                        values=[(c.name, c.type) for c in _row_columns(right)], value_full_name=value["full_name"],
                        value_nullable=value["nullable"])

    # ------------------------------------------------------------------ the rest of the query
    def rest(self, sub: SubBuilder, after: Node) -> None:
        """What follows the join, in the task completing it: its results as rows of the virtual source,
        then the stateless stage (and a table's materialization) or the aggregation."""
        lo, plan = self.lo, self.plan
        join = self.root
        table = join.result_kind is ResultKind.TABLE
        windowed = join.windowed is not None
        aggregating = plan.find(Aggregate) is not None
        where = plan.find(Filter)
        # (a push query's rows are its values alone: no window keys)
        sub.operators.append(JoinResult(len(join.key_columns), join.width, table, windowed,
                                        window_keys=windowed and not aggregating and lo.persistent,
                                        input_schema=join.schema,
                                        where=where.predicate if table and where is not None else None))
        if aggregating:
            lower_aggregation(lo, sub, after)
            return
        persistent = lo.persistent
        stream_nulls = persistent and not table and where is None and plan.find(FlatMap) is None
        stage = lo.stateless_stage(result_groups(lo), table=table, pass_tombstones=table or stream_nulls)
        sub.operators.append(stage)
        stores = []
        if persistent and lo.sink is not None and lo.sink.kind == "TABLE":
            key = materialize_key(lo.sink, join.leaves[0].source, join.key_format, join.key_full_name,
                                  join.join_windowed)
            rules = plan.plan_rules
            name = (naming.MATERIALIZE_STORE if rules is not None and rules < PROJECT_STORE_FOR_JOIN_TABLE
                    else naming.PROJECT_STORE)  # (a query created before keeps its store)
            stores = [lo.add_store(name, StoreKind.KEY_VALUE, sub, key=key)]
            sub.operators.append(Materialize(name, lo.sink))
        # (a push query over a table join keeps no filter store: its WHERE already saw each change's new and
        # previous joined rows in JoinOutput, as ksqlDB's filter over the join's result)
        node = lo.stateless_nodes(sub, after, stores=stores)
        lo.write_sink(sub, node, table=table)


def lower_join(lo: Lowering) -> None:
    JoinLowering(lo).lower()
