"""A join query's tasks: the join sub-topologies, then the rest of the query.

Stateless rest (WHERE, PARTITION BY, projection): runs in the task completing the join, over the join's
virtual rows. Aggregation (GROUP BY after a join): the join's results go to the internal topic
``<app>-Join-Output`` and the aggregation reads it as its source, exactly as it reads any other source
(its own repartitioning, windows and state included).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import Source
from ksqlpy.plan.logical import OutputColumn, QueryPlan
from ksqlpy.runtime.join_build import JoinTasks, build_join_tasks
from ksqlpy.runtime.join_output import JoinOutput, JoinToTopic
from ksqlpy.runtime.writer import SinkWriter

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


@dataclass
class BuiltJoin:
    tasks: list[Any]
    source_names: list[str]
    resources: list[Any] = field(default_factory=list)
    aggregation: Any = None
    materialization: Any = None  # what pull queries read of a table result (runtime.materialize)

    def close(self) -> None:
        for r in self.resources:
            r.close()
        self.resources = []


def build_join(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]], *,
               persistent: bool, sink: Source | None, writer: Any, group: str, start_at: str,
               on_rows: Any = None) -> BuiltJoin:
    join = plan.join
    assert join is not None
    names = [lf.source.name for lf in join.leaves]
    if plan.aggregation is None:
        from ksqlpy.engine.queries import _processor_for

        factory, _ = _processor_for(engine, plan, query_id, groups, persistent=persistent)
        stores: dict[int, Any] = {}
        if persistent and sink is not None and sink.kind == "TABLE":
            factory = _materializing(engine, plan, query_id, sink, factory, stores)
        tasks = build_join_tasks(engine, plan, query_id, persistent=persistent, group=group, start_at=start_at,
                                 finish_for=lambda p: JoinOutput(plan, factory(p), p, window_keys=persistent),
                                 writer=writer,
                                 on_rows=on_rows)
        built = BuiltJoin(tasks.tasks, names, [tasks])
        if stores:
            from ksqlpy.engine.materialized import _sort_key
            from ksqlpy.runtime.materialize import StoreMaterialization

            assert sink is not None
            built.materialization = StoreMaterialization([stores[p] for p in sorted(stores)], sink.windowed,
                                                         _sort_key(sink))
            built.resources.append(_Closing([s.kv for s in stores.values()]))
        return built
    return _with_aggregation(engine, plan, query_id, groups, persistent=persistent, sink=sink, writer=writer,
                             group=group, start_at=start_at, on_rows=on_rows, names=names)


def _with_aggregation(engine: Engine, plan: QueryPlan, query_id: str, groups: list[list[OutputColumn]], *,
                      persistent: bool, sink: Source | None, writer: Any, group: str, start_at: str,
                      on_rows: Any, names: list[str]) -> BuiltJoin:
    from ksqlpy.runtime.aggregate import build_aggregate_tasks

    virtual = plan.source
    service = str(engine.prop("ksql.service.id", "default_"))
    prefix = str(engine.prop("ksql.persistent.prefix", "query_")) if persistent else "transient_"
    topic = f"_confluent-ksql-{service}{prefix}{query_id}-Join-Output"
    partitions = _partitions(engine, virtual.topic)
    if not engine.log.topic_exists(topic):
        engine.log.create_topic(topic, partitions, 1, {"cleanup.policy": "delete"})
    internal = dataclasses.replace(virtual, topic=topic, key_format="JSON", value_format="JSON",
                                   key_delimiter=None, value_delimiter=None, wrap_single_value=None)
    inner_writer = SinkWriter(topic, engine.key_serde(internal), engine.value_serde(internal), engine.plog, query_id,
                              keyless=not internal.key_columns)
    joined = build_join_tasks(engine, plan, query_id, persistent=persistent, group=group, start_at=start_at,
                              finish_for=lambda p: JoinToTopic(plan, p), writer=inner_writer)
    if not persistent:
        joined.topics.append(topic)
    agg_plan = dataclasses.replace(plan, source=internal)
    agg = build_aggregate_tasks(engine, agg_plan, query_id, groups, persistent=persistent, sink=sink, writer=writer,
                                group=group, start_at="earliest", partitions=partitions, on_rows=on_rows)
    built = BuiltJoin([*joined.tasks, *agg.tasks], names, [joined, agg], aggregation=agg)
    return built


def _materializing(engine: Engine, plan: QueryPlan, query_id: str, sink: Source, factory: Any,
                   stores: dict[int, Any]) -> Any:
    """Processors that also upsert the table's rows into a store per partition (for pull queries)."""
    import os

    from ksqlpy.runtime.materialize import MaterializingProcessor
    from ksqlpy.runtime.materialize import TableStore as MaterializedRows
    from ksqlpy.state.store import KeyValueStore

    service = str(engine.prop("ksql.service.id", "default_"))
    prefix = str(engine.prop("ksql.persistent.prefix", "query_"))
    changelog = f"_confluent-ksql-{service}{prefix}{query_id}-Materialize-changelog"
    partitions = _partitions(engine, plan.source.topic)
    if not engine.log.topic_exists(changelog):
        engine.log.create_topic(changelog, partitions, 1, {"cleanup.policy": "compact"})

    def make(p: int) -> Any:
        kv = KeyValueStore(os.path.join(engine.data_dir, "state", query_id, f"Materialize-{p}"), engine.log,
                           changelog, p)
        stores[p] = MaterializedRows(kv, len(sink.key_columns), sink.windowed is not None)
        return MaterializingProcessor(factory(p), stores[p])

    return make


class _Closing:
    def __init__(self, kvs: list[Any]) -> None:
        self.kvs = kvs

    def close(self) -> None:
        for kv in self.kvs:
            kv.close()
        self.kvs = []


def _partitions(engine: Engine, topic: str) -> int:
    info = engine.log.describe_topic(topic)
    return info.partitions if info is not None else 1


__all__ = ["BuiltJoin", "JoinTasks", "build_join"]
