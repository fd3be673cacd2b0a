"""Resetting a persistent query so that it recomputes (ksqlDB's application reset tool, for one query).

Two front doors: ``ksqlpy reset QUERY_ID`` (``reset_query``) works on an engine whose catalog was restored
from the command topic but whose queries do not run (the data directory lock guarantees no other engine
runs them); the statement ``RESET QUERY id [TO EARLIEST | TO TIMESTAMP t]`` - ksqlpy's own, ksqlDB has
none - does the same in a running engine (``reset_running_query``): the query is stopped, reset, and
started again under its id. Either way:

1. the query's input positions (its consumer group on every source topic and partition) are set to the
   earliest offset, or to the first offset whose timestamp is at or after a given time;
2. its internal topics (changelogs, repartition topics: ``_confluent-ksql-<service><prefix><id>-...``) are
   deleted, and with them the positions on them;
3. its local state (``<data dir>/state/<query id>``) is deleted.

The query itself stays in the command topic (the statement is not recorded there: its effect is in the
log): on the next start it is built again under the same id, with empty state, and reads its inputs from
the reset positions - it recomputes. Sinks are not touched: a
recomputed table writes every key's updates again (readers of the table converge to the same rows); a
stream sink receives the recomputed records a second time. Drop and re-create the sink to start it empty.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

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


def parse_time(text: str | int) -> int:
    """Epoch milliseconds, or an ISO-8601 date-time (UTC unless it names a zone)."""
    if isinstance(text, int) or str(text).lstrip("-").isdigit():
        return int(text)
    try:
        when = datetime.fromisoformat(str(text))
    except ValueError:
        raise KsqlError(f"Not a time: '{text}'. Expected epoch milliseconds or an ISO-8601 date-time such as "
                        "2024-05-01T10:00:00") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def _query(engine: Engine, query_id: str) -> Any:
    query = engine.queries.get(query_id.upper())
    if query is None:
        known = ", ".join(sorted(engine.queries)) or "none"
        raise KsqlError(f"Unknown queryId: {query_id} (persistent queries: {known})")
    return query


def reset_query(engine: Engine, query_id: str, to_timestamp_ms: int | None = None) -> ResetResult:
    """Rewind, and clear the state of, the restored (not running) query ``query_id``."""
    query = _query(engine, query_id)
    if engine._runner is not None:  # noqa: SLF001 - the contract of this function
        raise KsqlError(f"Query {query.query_id} is running: stop the engine (shell or server) before resetting it, "
                        f"or use RESET QUERY {query.query_id}; in it")
    return _rewind(engine, query, to_timestamp_ms)


def reset_running_query(engine: Engine, query_id: str, to_timestamp_ms: int | None = None) -> ResetResult:
    """``RESET QUERY``: stop the query, reset it, and start it again under its id (paused stays paused)."""
    query = _query(engine, query_id)
    paused = query.state == "PAUSED"
    with engine.lock:
        result = _rewind(engine, query, to_timestamp_ms)
        again = engine.build_persistent(query.plan, query.sink, query.query_id, query.sql)
        again.statement_text = query.statement_text
        engine.start_persistent(again)
        if paused:
            again.state = "PAUSED"
            info = engine.catalog.query(query.query_id)
            if info is not None:
                info.state = "PAUSED"
    return result


def _rewind(engine: Engine, query: Any, to_timestamp_ms: int | None) -> ResetResult:
    qid = query.query_id
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
