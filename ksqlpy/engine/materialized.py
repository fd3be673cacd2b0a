"""Which tables pull queries can read, and the queries that keep them materialized.

* CTAS with GROUP BY: the aggregation's own stores (``AggregateMaterialization``).
* CTAS without aggregation: a store per task fed by the query's output (``materialize_tasks``).
* CREATE SOURCE TABLE: ksqlDB starts an internal query ``CST_<NAME>_<n>`` that reads the topic into a
  store (``start_source_table_query``), unless ``ksql.source.table.materialization.enabled`` is false.
* A plain CREATE TABLE has no materialization: pulling from it is an error, as in ksqlDB.
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import Source
from ksqlpy.runtime.materialize import (
    AggregateMaterialization,
    Materialization,
    MaterializingProcessor,
    SourceTableProcessor,
    StoreMaterialization,
    TableStore,
)
from ksqlpy.runtime.reader import SourceReader
from ksqlpy.runtime.task import Task
from ksqlpy.state.store import KeyValueStore

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.engine.queries import PersistentQuery


class _Stores:
    """Closes a query's table stores with the query; deletes them (and the changelog) on TERMINATE."""

    def __init__(self, stores: list[KeyValueStore], log: Any = None, changelog: str | None = None) -> None:
        self.stores = stores
        self.log = log
        self.changelog = changelog
        self.dirs = [s.directory for s in stores]

    def close(self) -> None:
        for s in self.stores:
            s.close()
        self.stores = []

    def cleanup(self) -> None:
        self.close()
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        if self.log is not None and self.changelog and self.log.topic_exists(self.changelog):
            self.log.delete_topic(self.changelog)


def _internal(engine: Engine, query_id: str) -> str:
    return f"_confluent-ksql-{engine.prop('ksql.service.id', 'default_')}{engine.prop('ksql.persistent.prefix', 'query_')}{query_id}"


def _store(engine: Engine, query_id: str, changelog: str, partition: int, partitions: int) -> KeyValueStore:
    if not engine.log.topic_exists(changelog):
        engine.log.create_topic(changelog, partitions, 1, {"cleanup.policy": "compact"})
    path = os.path.join(engine.data_dir, "state", query_id, f"Materialize-{partition}")
    return KeyValueStore(path, engine.log, changelog, partition)


def attach_aggregate(query: PersistentQuery, built: Any) -> None:
    query.materialization = AggregateMaterialization(built, query.sink.windowed)  # type: ignore[attr-defined]


def materialize_tasks(engine: Engine, query: PersistentQuery) -> None:
    """Make a non-aggregate table query queryable: its tasks also upsert their output into stores."""
    sink = query.sink
    changelog = f"{_internal(engine, query.query_id)}-Materialize-changelog"
    stores: list[TableStore] = []
    kvs: list[KeyValueStore] = []
    for task in query.tasks:
        kv = _store(engine, query.query_id, changelog, task.partition, len(query.tasks))
        width = len(sink.key_columns) + len(sink.value_columns) + (2 if sink.windowed is not None else 0)
        ts = TableStore(kv, len(sink.key_columns), sink.windowed is not None, width)
        task.processor = MaterializingProcessor(task.processor, ts)
        stores.append(ts)
        kvs.append(kv)
    query.materialization = StoreMaterialization(stores, sink.windowed, _sort_key(sink))
    query.resources.append(_Stores(kvs, engine.log, changelog))


def start_source_table_query(engine: Engine, source: Source, sql: str) -> PersistentQuery | None:
    """ksqlDB's ``CST_`` query: materialize a SOURCE table so pull queries can read it."""
    enabled = str(engine.prop("ksql.source.table.materialization.enabled", "true")).lower() != "false"
    if not enabled or source.kind != "TABLE":
        return None
    from ksqlpy.analysis.query import analyze_query
    from ksqlpy.engine.queries import PersistentQuery
    from ksqlpy.grammar import parse

    query_id = engine.next_query_id("CST", source.name)
    (stmt,) = parse(f"SELECT * FROM `{source.name}`;")
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None,  # type: ignore[attr-defined]
                         persistent=False)
    if getattr(engine, "sandbox", False):  # validating a request (sandbox.py): planned, nothing built
        stand_in = engine.build_persistent(plan, source, query_id, sql)
        stand_in.source_names = []
        source.created_by_query = query_id
        engine.start_persistent(stand_in)
        return None
    info = engine.log.describe_topic(source.topic)
    partitions = info.partitions if info is not None else 1
    group = _internal(engine, query_id)
    changelog = f"{group}-Reduce-changelog"
    key_in, value_in = engine.key_serde(source), engine.value_serde(source)
    stores: list[TableStore] = []
    kvs: list[KeyValueStore] = []
    tasks = []
    for p in range(partitions):
        kv = _store(engine, query_id, changelog, p, partitions)
        store = TableStore(kv, len(source.key_columns), source.windowed is not None)
        reader = SourceReader(source, key_in, value_in, engine.plog, query_id, keep_tombstones=True)
        tasks.append(Task(task_id=f"0_{p}", log=engine.log, group=group, topic=source.topic, partition=p,
                          reader=reader, processor=SourceTableProcessor(store), writer=None, plog=engine.plog,
                          start_at="earliest"))
        stores.append(store)
        kvs.append(kv)
    query = PersistentQuery(query_id, sql, plan, source, tasks)
    query.source_names = []  # it reads the table's own topic: not a reader that blocks DROP
    query.materialization = StoreMaterialization(stores, source.windowed, _sort_key(source))
    query.resources.append(_Stores(kvs, engine.log, changelog))
    source.created_by_query = query_id
    engine.start_persistent(query)
    return query


def _sort_key(table: Source) -> Any:
    """Key tuple -> the table's serialized key bytes (the order ksqlDB's stores iterate in)."""
    from ksqlpy.runtime.aggregator import encode_key
    from ksqlpy.runtime.repartition import safe_key_bytes
    from ksqlpy.serde import key_serde

    try:
        ks = key_serde(table.key_format, [(c.name, c.type) for c in table.key_columns],
                       delimiter=table.key_delimiter)
    except Exception:  # noqa: BLE001
        return encode_key
    return safe_key_bytes(ks.serialize)


def materialization_for(engine: Engine, table: Source) -> Materialization | None:
    """The materialized state of ``table``, if a running query keeps one."""
    for q in engine.queries.values():
        mat = getattr(q, "materialization", None)
        if q.sink_name == table.name and mat is not None and q.state != "TERMINATED":
            # the query runs in worker processes: read what they committed (a server of a cluster keeps
            # its copies caught up in the background instead: server/membership.py)
            if not q.tasks and not getattr(engine, "standby_refresh", False):
                mat.refresh()
            from ksqlpy.engine.pull_partitions import restrict

            return restrict(q, mat)  # the partitions this thread's pull query may read (a cluster's routing)
    return None
