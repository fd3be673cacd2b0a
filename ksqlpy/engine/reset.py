"""Resetting a persistent query so that it recomputes (ksqlDB's application reset tool, for one query).

``reset_query`` works on an engine whose catalog was restored from the command topic but whose queries
do not run (``ksqlpy reset`` opens it so: the data directory lock guarantees no other engine runs them):

1. the query's input positions (its consumer group on every source topic and partition) are set to the
   earliest offset, or to the first offset whose timestamp is at or after a given time;
2. its internal topics (changelogs, repartition topics: ``_confluent-ksql-<service><prefix><id>-...``) are
   deleted, and with them the positions on them;
3. its local state (``<data dir>/state/<query id>``) is deleted.

The query itself stays in the command topic: on the next start it is built again under the same id, with
empty state, and reads its inputs from the reset positions - it recomputes. Sinks are not touched: a
recomputed table writes every key's updates again (readers of the table converge to the same rows); a
stream sink receives the recomputed records a second time. Drop and re-create the sink to start it empty.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ksqlpy.errors import KsqlError

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.log.base import Log


@dataclass
class ResetResult:
    query_id: str
    positions: dict[tuple[str, int], int] = field(default_factory=dict)  # (topic, partition) -> next offset
    deleted_topics: list[str] = field(default_factory=list)
    state_removed: bool = False


def offset_for_time(log: Log, topic: str, partition: int, timestamp_ms: int) -> int:
    """The first offset whose record timestamp is at or after ``timestamp_ms`` (the end if none is)."""
    offset, end = log.start_offset(topic, partition), log.end_offset(topic, partition)
    while offset < end:
        batch = log.fetch(topic, partition, offset, 10_000)
        if not batch.offsets:
            break
        for off, ts in zip(batch.offsets, batch.timestamps, strict=True):
            if ts >= timestamp_ms:
                return off
        offset = batch.offsets[-1] + 1
    return end


def internal_prefix(engine: Engine, query_id: str) -> str:
    return f"_confluent-ksql-{engine.prop('ksql.service.id', 'default_')}{engine.prop('ksql.persistent.prefix', 'query_')}{query_id}"


def reset_query(engine: Engine, query_id: str, to_timestamp_ms: int | None = None) -> ResetResult:
    """Rewind, and clear the state of, the restored (not running) query ``query_id``."""
    qid = query_id.upper()
    query = engine.queries.get(qid)
    if query is None:
        known = ", ".join(sorted(engine.queries)) or "none"
        raise KsqlError(f"Unknown queryId: {query_id} (persistent queries: {known})")
    if engine._runner is not None:  # noqa: SLF001 - the contract of this function
        raise KsqlError(f"Query {qid} is running: stop the engine (shell or server) before resetting it")
    result = ResetResult(qid)
    group = internal_prefix(engine, qid)
    topics = [s.topic for name in query.source_names if (s := engine.catalog.source(name)) is not None]
    if not query.source_names:  # a source table's own query reads the table's topic
        topics.append(query.sink.topic)
    # the query's stores and internal topics go first (closing what replay opened), then anything named
    # after the query that its build did not list
    prefix = f"{group}-"
    internal = [info.name for info in engine.log.list_topics() if info.name.startswith(prefix)]
    engine.stop_persistent(qid, cleanup=True)
    for name in internal:
        if engine.log.topic_exists(name):
            engine.log.delete_topic(name)
    result.deleted_topics = sorted(internal)
    state = os.path.join(engine.data_dir, "state", qid)
    if os.path.isdir(state):
        shutil.rmtree(state)
    result.state_removed = True
    for topic in dict.fromkeys(topics):
        info = engine.log.describe_topic(topic)
        if info is None:
            continue
        for p in range(info.partitions):
            target = (engine.log.start_offset(topic, p) if to_timestamp_ms is None
                      else offset_for_time(engine.log, topic, p, to_timestamp_ms))
            result.positions[(topic, p)] = target
    if result.positions:
        with engine.log.transaction() as tx:
            tx.commit_offsets(group, result.positions)
    return result
