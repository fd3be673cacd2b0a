"""Runtime statistics of an engine's persistent queries: what operators ask ("is it caught up?").

The engine's loop records, per query, every poll that processed records (count and wall time:
``QueryStats``); everything else is read when asked: input positions and lag from the log (committed
positions of the query's consumer group against the partitions' end offsets - right for inline queries
and worker processes alike), records produced from the query's sink writer, processing-log entries per
query, late records from its aggregation, state size from its directory, store positions from its
stores' changelog checkpoints.

Front doors show them: DESCRIBE EXTENDED (ksqlDB's "Local runtime statistics" line and consumer-group
offsets), SHOW QUERIES EXTENDED and EXPLAIN (per task state and lag), ``/clusterStatus`` (store lags),
``GET /metrics`` (Prometheus text, ksqlpy.server.metrics) and the shell's backlog progress line.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ksqlpy.runtime.query_stats import BATCH_BUCKETS, QueryStats, bucket, late_dropped, tasks_written

# a push query's life, start to end (seconds): a LIMIT query ends in moments, a dashboard's runs for hours
PUSH_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 60.0, 300.0, 1800.0, 3600.0)

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

class EngineStats:
    """Per-query stats and the engine's own counters (pull and push queries), thread-safe."""

    def __init__(self) -> None:
        self.queries: dict[str, QueryStats] = {}
        self.pull_count = 0
        self.pull_seconds: list[float] = []  # the last latencies (bounded), for the histogram
        self.pull_counts = [0] * (len(BATCH_BUCKETS) + 1)
        self.pull_sum_s = 0.0
        self.push_started = 0
        self.push_counts = [0] * (len(PUSH_BUCKETS) + 1)
        self.push_sum_s = 0.0
        self._lock = threading.Lock()

    def query(self, query_id: str) -> QueryStats:
        stats = self.queries.get(query_id)
        if stats is None:
            stats = self.queries[query_id] = QueryStats()
        return stats

    def polled(self, query_id: str, records: int, seconds: float, tasks: list[Any] | None = None) -> None:
        if records:
            with self._lock:
                stats = self.query(query_id)
                stats.record(records, seconds)
                if tasks:
                    stats.observe(tasks)

    def observe(self, query_id: str, tasks: list[Any]) -> None:
        """Take what the query's tasks in this process consumed and produced per topic since last seen (what
        an idle poll wrote - an EMIT FINAL window closed by time - is seen here when asked)."""
        if tasks:
            with self._lock:
                self.query(query_id).observe(tasks)

    def pull(self, seconds: float) -> None:
        with self._lock:
            self.pull_count += 1
            self.pull_sum_s += seconds
            self.pull_counts[bucket(seconds)] += 1

    def push_ended(self, seconds: float) -> None:
        """A push query ended (LIMIT reached, closed by its client, terminated): its latency, start to end,
        as ksqlDB records a push query's latency when it completes."""
        with self._lock:
            self.push_sum_s += seconds
            self.push_counts[bucket(seconds, PUSH_BUCKETS)] += 1

    def worker_status(self, query_id: str, now: dict[str, Any], before: dict[str, Any] | None) -> None:
        """A worker process's counters moved from ``before`` to ``now`` (``QueryStats.snapshot``)."""
        with self._lock:
            self.query(query_id).add(now, before)

    def forget(self, query_id: str) -> None:
        with self._lock:
            self.queries.pop(query_id, None)


# --------------------------------------------------------------------------- positions and lag


@dataclass
class PartitionPosition:
    topic: str
    partition: int
    start: int  # log start offset
    end: int  # log end offset
    committed: int | None  # the query's next offset to read (None: never committed)

    @property
    def lag(self) -> int:
        if self.committed is None:
            return max(0, self.end - self.start)
        return max(0, self.end - self.committed)


def query_group(engine: Engine, query_id: str) -> str:
    return (f"_confluent-ksql-{engine.prop('ksql.service.id', 'default_')}"
            f"{engine.prop('ksql.persistent.prefix', 'query_')}{query_id}")


def input_topics(engine: Engine, query: Any) -> list[str]:
    """The topics a query consumes: its sources' topics, then its repartition topics."""
    topics = [s.topic for name in getattr(query, "source_names", []) if (s := engine.catalog.source(name))]
    if not getattr(query, "source_names", None) and getattr(query, "sink", None) is not None:
        topics.append(query.sink.topic)  # a source table's own query reads the table's topic
    prefix = query_group(engine, query.query_id) + "-"
    topics += sorted(t.name for t in engine.log.list_topics()
                     if t.name.startswith(prefix) and t.name.endswith("-repartition"))
    return list(dict.fromkeys(topics))


def positions(engine: Engine, query: Any) -> list[PartitionPosition]:
    group = query_group(engine, query.query_id)
    out = []
    log = engine.log
    for topic in input_topics(engine, query):
        info = log.describe_topic(topic)
        if info is None:
            continue
        for p in range(info.partitions):
            out.append(PartitionPosition(topic, p, log.start_offset(topic, p), log.end_offset(topic, p),
                                         log.committed(group, topic, p)))
    return out


def total_lag(engine: Engine, query: Any) -> int:
    return sum(p.lag for p in positions(engine, query))


# --------------------------------------------------------------------------- what else a query holds


def produced(engine: Engine, query: Any) -> int:
    """Records the query wrote to its sink: by its tasks in this process, and by its worker processes."""
    return tasks_written(getattr(query, "tasks", [])) + engine.stats.query(query.query_id).produced


def state_bytes(engine: Engine, query_id: str) -> int:
    """The size of the query's local state: its stores in this process and in its worker processes'
    directories (``workers/<query id>/<n>``)."""
    total = 0
    for root in (os.path.join(engine.data_dir, "state", query_id), os.path.join(engine.data_dir, "workers", query_id)):
        for path, _, files in os.walk(root):
            for f in files:
                try:
                    total += os.path.getsize(os.path.join(path, f))
                except OSError:
                    pass
    return total


def late_records(engine: Engine, query: Any) -> int:
    """Records the query's aggregation dropped as late, here and in its worker processes."""
    return late_dropped(getattr(query, "aggregation", None)) + engine.stats.query(query.query_id).late


def stores(query: Any) -> list[Any]:
    """The query's state stores (found in its resources: stores expose a changelog checkpoint)."""
    from ksqlpy.state.store import KeyValueStore

    found: list[Any] = []
    seen: set[int] = set()

    def walk(obj: Any, depth: int) -> None:
        if depth > 4 or id(obj) in seen or obj is None or isinstance(obj, str | bytes | int | float):
            return
        seen.add(id(obj))
        if isinstance(obj, KeyValueStore):
            found.append(obj)
            return
        if isinstance(obj, dict):
            for v in obj.values():
                walk(v, depth + 1)
        elif isinstance(obj, list | tuple | set):
            for v in obj:
                walk(v, depth + 1)
        elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("ksqlpy"):
            for v in vars(obj).values():
                walk(v, depth + 1)

    walk(getattr(query, "resources", []), 0)
    walk(getattr(query, "tasks", []), 0)
    return found


def store_lags(engine: Engine, query: Any) -> dict[str, dict[str, dict[str, int]]]:
    """``{store: {partition: {currentOffsetPosition, endOffsetPosition, offsetLag}}}`` as ksqlDB reports them:
    how far each local store's changelog position is behind the changelog's end."""
    prefix = query_group(engine, query.query_id) + "-"
    out: dict[str, dict[str, dict[str, int]]] = {}
    # a query run by worker processes: its active stores are theirs, and they write the changelog, so their
    # position is its end; this process's copies catch up only as pull queries read them (a partition at a
    # time, pull_partitions.StandbyReads) and are not the host's stores (a cluster's server keeps its
    # copies caught up as standbys: those are reported as they are)
    active_elsewhere = getattr(query, "workers", None) is not None and not engine.hosting.standby_refresh
    for kv in stores(query):
        topic = getattr(kv, "topic", None)
        if not topic or kv.env is None:
            continue
        name = topic[len(prefix):] if topic.startswith(prefix) else topic
        name = name.removesuffix("-changelog")
        try:
            end = engine.log.end_offset(topic, kv.partition)
            current = end if active_elsewhere else int(kv.checkpoint())
        except Exception:  # noqa: BLE001 - a closed or deleted store has no lag to report
            continue
        current = min(current, end) if current >= 0 else 0
        out.setdefault(name, {})[str(kv.partition)] = {"currentOffsetPosition": current,
                                                        "endOffsetPosition": end, "offsetLag": max(0, end - current)}
    return out


def host_store_lags(engine: Engine) -> dict[str, dict[str, Any]]:
    """``/clusterStatus``'s ``stateStoreLags``: ``<group>#<store>`` -> ``{lagByPartition, size}`` for every
    store of every persistent query on this host."""
    out: dict[str, dict[str, Any]] = {}
    for qid, query in list(engine.queries.items()):
        group = query_group(engine, qid)
        for store, parts in store_lags(engine, query).items():
            out[f"{group}#{store}"] = {"lagByPartition": parts, "size": len(parts)}
    return out


# --------------------------------------------------------------------------- ksqlDB's text forms


def _timestamp_text(ms: int | None) -> str:
    if ms is None:
        return "n/a"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _stat(name: str, value: float) -> str:
    """ksqlDB's ``name: value`` column: counts as integers, rates with two decimals."""
    text = str(int(value)) if float(value).is_integer() and "per-sec" not in name else f"{value:.2f}"
    return f"{name:>16}: {text:>9}"


def source_statistics(engine: Engine, source_name: str) -> tuple[str, str]:
    """(statistics, errorStats) of DESCRIBE EXTENDED: ksqlDB's ``name: value`` columns for the records
    produced to the source's topic and consumed from it, then consumer lag and late records.

    As ksqlDB's MetricCollectors (from memory of its ProducerCollector/ConsumerCollector and TopicSensors): the
    statistics are per Kafka topic, summed over every query's producer and consumer of that topic - a query
    writing the topic (its CSAS/CTAS, each INSERT INTO) counts what it produced there, a query reading it (any
    source over the topic) what it consumed from it; a query's repartition topic and a join's other input are
    topics of their own, so a record counts once for the source it came from. A collector's sensors for a
    topic are made by its first record, so a side is listed once a query wrote (read) a record of the topic,
    and a topic no query has moved a record of yet has neither line (""). The error line
    (``failed-messages``) is made with them: the records of the topic a query could not deserialize
    (StreamsErrorCollector.recordError(topic) in ksqlDB's deserialization exception handler) - a sink does not
    show its writers' failures to read their inputs; each line ends in its ``last-message`` / ``last-failed``
    time (``n/a`` when never)."""
    source = engine.catalog.source(source_name)
    if source is None:
        return "", ""
    topic = source.topic
    writers = [q for q in engine.queries.values() if q.sink_name == source_name]
    stats = engine.stats
    for q in engine.queries.values():
        stats.observe(q.query_id, getattr(q, "tasks", []))
    # the persistent queries consuming the topic: through this source or any other over the topic
    readers = [q for q in engine.queries.values() if source_name in getattr(q, "source_names", [])
               or topic in stats.query(q.query_id).consumed_topics]
    produced_meters = [m for qid in list(stats.queries) if (m := stats.query(qid).produced_topics.get(topic))]
    consumed_meters = [m for qid in list(stats.queries) if (m := stats.query(qid).consumed_topics.get(topic))]
    parts: list[str] = []
    total = sum(m.total for m in produced_meters)
    if total:
        parts += [_stat("messages-per-sec", sum(m.rate() for m in produced_meters)), _stat("total-messages", total)]
    consumed = sum(m.total for m in consumed_meters)
    if consumed:
        parts += [_stat("consumer-messages-per-sec", sum(m.rate() for m in consumed_meters)),
                  _stat("consumer-total-messages", consumed)]
        lag = 0
        for q in readers:
            lag += sum(p.lag for p in positions(engine, q) if p.topic == topic)
        parts.append(_stat("consumer-lag", lag))
    if not parts:
        return "", ""
    last = max((m.last_ms or 0 for m in produced_meters + consumed_meters), default=0) or None
    if total and any(getattr(q, "aggregation", None) is not None for q in writers):
        parts.append(f"dropped-late-records: {sum(late_records(engine, q) for q in writers)}")
    statistics = " ".join(parts) + f" {'last-message':>16}: {_timestamp_text(last):>9}"
    failed = engine.plog.failed_by_topic.get(topic, 0)
    last_failed = engine.plog.failed_topic_last_ms.get(topic) or None
    errors = _stat("failed-messages", failed) + f" {'last-failed':>16}: {_timestamp_text(last_failed):>9}"
    return statistics, errors


def offset_summaries(engine: Engine, source_name: str) -> list[dict[str, Any]]:
    """ksqlDB's ``queryOffsetSummaries``: the consumer groups of the queries writing the source, with the offsets
    of the topics they read - how far the source is behind its inputs (ListSourceExecutor passes the source's
    sink queries, from memory)."""
    out = []
    for q in engine.queries.values():
        if q.sink_name != source_name:
            continue
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for p in positions(engine, q):
            by_topic.setdefault(p.topic, []).append({
                "partition": p.partition, "logStartOffset": p.start, "logEndOffset": p.end,
                "consumerOffset": p.committed if p.committed is not None else p.start})
        out.append({"groupId": query_group(engine, q.query_id),
                    "topicSummaries": [{"kafkaTopic": t, "offsets": o} for t, o in by_topic.items()]})
    return out


def tasks_metadata(engine: Engine, query: Any) -> list[dict[str, Any]]:
    """Per task (partition): its state and the positions and lag of its inputs (SHOW QUERIES EXTENDED, EXPLAIN)."""
    state = getattr(query, "state", "RUNNING")
    run = getattr(query, "backfill", None)
    if run is not None:  # a backfilling query: its inputs' positions are how far the backfill has read
        topic = query.plan.input_source.topic
        return [{"taskId": f"0_{p['partition']}", "taskState": state,
                 "topicOffsets": [{"topicPartition": {"topic": topic, "partition": p["partition"]},
                                   "offset": p["offset"], "endOffset": p["endOffset"],
                                   "lag": p["endOffset"] - p["offset"]}],
                 "lag": p["endOffset"] - p["offset"]} for p in run.progress.snapshot()["partitions"]]
    by_partition: dict[int, list[PartitionPosition]] = {}
    for p in positions(engine, query):
        by_partition.setdefault(p.partition, []).append(p)
    out = []
    for partition, parts in sorted(by_partition.items()):
        out.append({"taskId": f"0_{partition}", "taskState": state,
                    "topicOffsets": [{"topicPartition": {"topic": p.topic, "partition": p.partition},
                                      "offset": p.committed if p.committed is not None else p.start,
                                      "endOffset": p.end, "lag": p.lag} for p in parts],
                    "lag": sum(p.lag for p in parts)})
    return out
