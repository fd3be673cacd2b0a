"""Lowering a query's logical plan (``plan.logical``) to its physical topology (``plan.topology``).

The logical plan has decided what moves between partitions (``Aggregate.repartition``,
``Rekey.repartition``, a join's ``repartition_left``/``repartition_right``); lowering turns that into the
physical form, once, for every backend: where the query is cut into sub-topologies (at the GROUP BY's
repartition topic; joins at every re-keyed side, see ``plan.lower_join``), which stores hold what, the
name of every internal topic and store (``plan.naming``), the properties each operator is configured
with (start offsets, the record cache, window grace and retention, EMIT FINAL's idle advance), and the
Kafka Streams node names EXPLAIN prints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.plan import naming
from ksqlpy.plan.logical import Aggregate, Join, JoinFlavor, ResultKind, Scan, Sink
from ksqlpy.plan.lower_join import lower_join
from ksqlpy.plan.lowering import Lowering, Settings, lower_aggregation, lower_stateless, source_table_key
from ksqlpy.plan.partitioning import group_by_repartition
from ksqlpy.plan.rules import SOURCE_TABLE_STORE_FOR_CST, TABLE_JOIN_GROUP_BY_REPARTITION
from ksqlpy.plan.source_topics import check_source_topics
from ksqlpy.plan.topology import (
    Materialize,
    MaterializedRows,
    NodeKind,
    ReadSource,
    StoreKind,
    TopicKind,
    Topology,
)


def lower(plan: Sink, query_id: str, settings: Settings, *, sink: Source | None, persistent: bool,
          partitions: Callable[[str], int | None], properties: dict[str, Any] | None = None) -> Topology:
    """The topology of ``plan`` run as ``query_id``: a persistent query writing ``sink``, or (``sink`` None)
    a transient one whose rows go to its caller. ``partitions(topic)``: a topic's partition count (None if it
    does not exist); ``properties``: the request's own, over ``settings``."""
    check_source_topics(plan)  # Kafka Streams refuses the topology before anything is built
    lo = Lowering(plan, query_id, sink, settings, persistent=persistent, partitions=partitions,
                  properties=properties)
    bottom = plan.bottom
    agg = plan.find(Aggregate)
    rules = plan.plan_rules
    if (agg is not None and isinstance(bottom, Join) and bottom.result_kind is ResultKind.TABLE
            and bottom.flavor is not JoinFlavor.FOREIGN_KEY and rules is not None
            and rules < TABLE_JOIN_GROUP_BY_REPARTITION and agg.repartition):
        # a query placed before: grouped by the join key in the join's task, where its state is (plan.rules)
        agg.repartition = group_by_repartition(agg.group_by, agg.input, table_joins_move=False)
    if isinstance(bottom, Join):
        lower_join(lo)
    elif plan.find(Aggregate) is not None:
        assert isinstance(bottom, Scan)
        lower_aggregation(lo, lo.sub(lo.source_partitions(bottom.source.topic)), None)
    else:
        lower_stateless(lo)
    return lo.topology()


def lower_source_table(source: Source, query_id: str, settings: Settings,
                       partitions: Callable[[str], int | None], rules: int | None = None) -> Topology:
    """ksqlDB's ``CST_`` query of a SOURCE table: its topic read into a store per partition - the table
    source materialized as read (``KsqlTopic-Reduce``, with the source's key and value schemas), or under
    plan rules ``rules`` before ``SOURCE_TABLE_STORE_FOR_CST`` the ``Reduce`` store it was created with."""
    lo = Lowering(None, query_id, None, settings, persistent=True, partitions=partitions)
    sub = lo.sub(partitions(source.topic) or 1)
    lo.add_topic(source.topic, TopicKind.SOURCE, sub.partitions)
    sub.operators.append(ReadSource(source, True, "earliest", strict_timestamps=False))
    node = sub.node(NodeKind.SOURCE, lo.generated("KSTREAM-SOURCE"), topics=[source.topic])
    if rules is not None and rules < SOURCE_TABLE_STORE_FOR_CST:
        store = lo.add_store(naming.CST_STORE, StoreKind.KEY_VALUE, sub)
    else:
        store = lo.add_store(naming.SOURCE_TABLE_STORE, StoreKind.KEY_VALUE, sub,
                             key=source_table_key(source, lo.offsets))
    sub.operators.append(Materialize(store, source, MaterializedRows.SOURCE))
    sub.node(NodeKind.PROCESSOR, lo.generated("KTABLE-SOURCE"), node, stores=[store])
    topo = lo.topology()
    topo.sources = []  # it reads the table's own topic: not a reader that blocks DROP
    return topo
