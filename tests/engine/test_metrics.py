"""Runtime statistics on the embedded engine: counters match the records produced, lag falls to 0, and
DESCRIBE EXTENDED / EXPLAIN / SHOW QUERIES EXTENDED show them as the shell prints them."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ksqlpy.cli import render
from ksqlpy.cli.entities import to_entities
from ksqlpy.engine import Engine
from ksqlpy.engine import metrics as M
from ksqlpy.log.base import ProducerRecord


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);")
    yield e
    e.close()


def _feed(engine: Engine, n: int, bad: int = 0) -> None:
    with engine.log.transaction() as tx:
        tx.produce_many([ProducerRecord("s", struct.pack(">i", i % 3), b'{"V": %d}' % i, 1000 + i, None, i % 2) for i in range(n)])
        tx.produce_many([ProducerRecord("s", None, b"{broken", 5000, None, 0) for _ in range(bad)])


def test_counters_match_the_records_and_lag_falls_to_zero(engine: Engine) -> None:
    [res] = engine.execute("CREATE STREAM big AS SELECT * FROM s WHERE v >= 10;")
    q = engine.queries[res.query_id]
    _feed(engine, 50, bad=2)
    assert M.total_lag(engine, q) == 52
    engine.drain()
    stats = engine.stats.query(res.query_id)
    assert stats.consumed == 52
    assert M.produced(engine, q) == 40
    assert engine.plog.by_query[res.query_id] == 2
    assert M.total_lag(engine, q) == 0
    assert stats.batches >= 1 and sum(stats.batch_counts) == stats.batches
    assert [(p.topic, p.partition, p.committed, p.end) for p in M.positions(engine, q)] == [
        ("s", 0, 27, 27), ("s", 1, 25, 25)]


def test_describe_extended_shows_statistics_and_consumer_offsets(engine: Engine) -> None:
    [res] = engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    _feed(engine, 10)
    engine.drain()
    [sink] = engine.execute("DESCRIBE counts EXTENDED;")
    stats = sink.data["statistics"]
    assert "messages-per-sec:" in stats and "total-messages:" in stats and "last-message:" in stats
    assert "dropped-late-records: 0" in stats
    # the consumer groups are those of the queries writing the source, reading its inputs
    [group] = sink.data["queryOffsetSummaries"]
    assert group["groupId"] == f"_confluent-ksql-default_query_{res.query_id}"
    assert [t["kafkaTopic"] for t in group["topicSummaries"]] == ["s"]
    [source] = engine.execute("DESCRIBE s EXTENDED;")
    assert "consumer-total-messages:" in source.data["statistics"]
    assert "    consumer-lag:         0" in source.data["statistics"]
    assert "consumer-total-messages:        10" in source.data["statistics"]
    assert source.data["errorStats"] == " failed-messages:         0      last-failed:       n/a"
    assert source.data["queryOffsetSummaries"] == []  # no query writes s
    lines = "\n".join(line for e in to_entities(sink) for line in render.entity_lines(e, {}))
    assert "Local runtime statistics" in lines and "Consumer Groups summary:" in lines
    assert "Max lag              : 0" in lines
    assert " Partition | Start Offset | End Offset | Offset | Lag" in lines


def test_describe_extended_of_a_source_no_record_moved_yet_has_no_statistics(engine: Engine) -> None:
    """ksqlDB's collectors make a topic's sensors at its first record: before any, both lines are empty, the
    source read or written by a query alike; a side is listed once it moved a record."""
    engine.execute("CREATE STREAM copy AS SELECT * FROM s WHERE v > 100;")
    engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    for name in ("s", "copy", "counts"):
        [d] = engine.execute(f"DESCRIBE {name} EXTENDED;")
        assert (d.data["statistics"], d.data["errorStats"]) == ("", ""), name
    _feed(engine, 4)  # read by both queries, none passes copy's filter
    engine.drain()
    [src], [copy], [counts] = (engine.execute(f"DESCRIBE {n} EXTENDED;") for n in ("s", "copy", "counts"))
    assert src.data["statistics"].startswith("consumer-messages-per-sec:")
    assert src.data["errorStats"] == " failed-messages:         0      last-failed:       n/a"
    assert (copy.data["statistics"], copy.data["errorStats"]) == ("", "")
    assert counts.data["statistics"].startswith("messages-per-sec:")


def test_describe_extended_error_line_ends_in_the_last_failure_time(engine: Engine) -> None:
    engine.execute("CREATE STREAM copy AS SELECT * FROM s;")
    _feed(engine, 2, bad=3)
    engine.drain()
    [src] = engine.execute("DESCRIBE s EXTENDED;")
    errors = src.data["errorStats"]
    assert errors.startswith(" failed-messages:         3      last-failed: ") and errors.endswith("Z"), errors


def test_describe_extended_of_a_source_whose_topic_is_gone_warns(engine: Engine) -> None:
    """ksqlDB's ListSourceExecutor: a topic Kafka cannot describe is the entity's warning ('Error from Kafka:
    ...'), partitions and replication 0 - for DESCRIBE and SHOW/DESCRIBE STREAMS EXTENDED alike; without
    EXTENDED the topic is not described."""
    engine.execute("CREATE STREAM other (id INT KEY, v INT) WITH (kafka_topic='o', value_format='JSON', "
                   "partitions=1);")
    engine.log.delete_topic("s")
    [d] = engine.execute("DESCRIBE s EXTENDED;")
    assert d.warnings == ["Error from Kafka: Failed to Describe Kafka Topic(s): [s]"]
    assert (d.data["partitions"], d.data["replication"]) == (0, 0)
    [plain] = engine.execute("DESCRIBE s;")
    assert plain.warnings == []
    [listing] = engine.execute("SHOW STREAMS EXTENDED;")
    assert listing.warnings == ["Error from Kafka: Failed to Describe Kafka Topic(s): [s]"]
    assert {x["name"] for x in listing.data} >= {"S", "OTHER"}


def test_explain_and_show_queries_extended_list_tasks_with_lag(engine: Engine) -> None:
    [res] = engine.execute("CREATE STREAM copy AS SELECT * FROM s;")
    _feed(engine, 6)
    [before] = engine.execute(f"EXPLAIN {res.query_id};")
    assert [t["lag"] for t in before.data["tasksMetadata"]] == [3, 3]
    engine.drain()
    [listing] = engine.execute("SHOW QUERIES EXTENDED;")
    assert listing.kind == "query_descriptions"
    [d] = listing.data
    assert [(t["taskId"], t["taskState"], t["lag"]) for t in d["tasksMetadata"]] == [("0_0", "RUNNING", 0),
                                                                                     ("0_1", "RUNNING", 0)]
    lines = [line for e in to_entities(listing) for line in render.entity_lines(e, {})]
    assert " Task | State   | Input | Offset | End Offset | Lag" in lines
    assert " 0_0  | RUNNING | s-0   | 3      | 3          | 0  " in lines


def test_store_lags_name_each_store_and_partition(engine: Engine) -> None:
    [res] = engine.execute("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;")
    _feed(engine, 4)
    engine.drain()
    lags = M.host_store_lags(engine)
    key = f"_confluent-ksql-default_query_{res.query_id}#Aggregate-Aggregate-Materialize"
    assert set(lags[key]["lagByPartition"]) == {"0", "1"}
    assert all(p["offsetLag"] == 0 for p in lags[key]["lagByPartition"].values())


def _stat_value(text: str, name: str) -> str | None:
    """The value of ``name: value`` in a statistics line (None: not listed)."""
    import re

    m = re.search(r"(?:^|\s)" + re.escape(name) + r":\s+(\S+)", text)
    return m.group(1) if m else None


def _statistics(engine: Engine, name: str) -> str:
    [d] = engine.execute(f"DESCRIBE {name} EXTENDED;")
    return d.data["statistics"]


def test_statistics_are_per_topic_a_repartition_counts_its_source_once(engine: Engine) -> None:
    """ksqlDB's collectors count per Kafka topic: a GROUP BY on a value column reads s, then its own
    repartition topic - s's consumer count is the records of s, not twice them; the sink's producer count is
    what the query wrote to the sink's topic, its rate from those records."""
    engine.execute("CREATE TABLE by_v AS SELECT v, COUNT(*) AS n FROM s GROUP BY v;")
    _feed(engine, 12)
    engine.drain()
    src = _statistics(engine, "s")
    assert _stat_value(src, "consumer-total-messages") == "12", src
    assert _stat_value(src, "total-messages") is None  # nothing writes s
    sink = _statistics(engine, "by_v")
    assert _stat_value(sink, "total-messages") == "12", sink  # one update per record
    assert _stat_value(sink, "consumer-total-messages") is None  # nothing reads by_v's topic
    assert float(_stat_value(sink, "messages-per-sec") or 0) == pytest.approx(12 / 30, abs=0.01)


def test_statistics_of_a_join_count_each_input_under_its_own_topic(engine: Engine) -> None:
    engine.execute("CREATE TABLE t (id INT PRIMARY KEY, name STRING) WITH (kafka_topic='t', value_format='JSON', "
                   "partitions=2);")
    engine.execute("CREATE STREAM joined AS SELECT s.id, v, name FROM s LEFT JOIN t ON s.id = t.id;")
    with engine.log.transaction() as tx:
        tx.produce_many([ProducerRecord("t", struct.pack(">i", i), b'{"NAME": "n%d"}' % i, 500, None, i % 2)
                         for i in range(3)])
    _feed(engine, 9)
    engine.drain()
    assert _stat_value(_statistics(engine, "s"), "consumer-total-messages") == "9"
    assert _stat_value(_statistics(engine, "t"), "consumer-total-messages") == "3"
    assert _stat_value(_statistics(engine, "joined"), "total-messages") == "9"


def test_statistics_of_a_topic_written_by_two_queries_sum_both(engine: Engine) -> None:
    """The sink of a CSAS and of an INSERT INTO: both queries' records produced to its topic are counted; a
    second source over s's topic reads the same topic, so its reader counts for s too."""
    engine.execute("CREATE STREAM other (id INT KEY, v INT) WITH (kafka_topic='o', value_format='JSON', "
                   "partitions=1);")
    engine.execute("CREATE STREAM merged AS SELECT * FROM s;")
    engine.execute("INSERT INTO merged SELECT * FROM other;")
    engine.execute("CREATE STREAM s_again (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');")
    engine.execute("CREATE STREAM copy_again AS SELECT * FROM s_again;")
    with engine.log.transaction() as tx:
        tx.produce_many([ProducerRecord("o", struct.pack(">i", i), b'{"V": %d}' % i, 900, None, 0)
                         for i in range(4)])
    _feed(engine, 5)
    engine.drain()
    merged = _statistics(engine, "merged")
    assert _stat_value(merged, "total-messages") == "9", merged
    assert _stat_value(_statistics(engine, "s"), "consumer-total-messages") == "10"  # two queries read topic s
    assert _stat_value(_statistics(engine, "s_again"), "consumer-total-messages") == "10"
    _feed(engine, 2)  # not processed yet: both readers of the topic are behind by them
    assert _stat_value(_statistics(engine, "s_again"), "consumer-lag") == "4"
    assert _stat_value(_statistics(engine, "s"), "consumer-lag") == "4"
    assert _stat_value(_statistics(engine, "other"), "consumer-total-messages") == "4"


def test_statistics_from_worker_processes_are_per_topic(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest", "ksqlpy.workers": "process",
                               "num.stream.threads": 2})
    try:
        e.execute("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);")
        e.execute("CREATE TABLE by_v AS SELECT v, COUNT(*) AS n FROM s GROUP BY v;")
        _feed(e, 8)
        import time

        e.drain(timeout_s=120)  # worker processes start slowly on a loaded machine
        deadline = time.monotonic() + 30  # their last status reaches the engine a moment later
        while time.monotonic() < deadline and _stat_value(_statistics(e, "by_v"), "total-messages") != "8":
            time.sleep(0.2)
        assert _stat_value(_statistics(e, "s"), "consumer-total-messages") == "8"
        assert _stat_value(_statistics(e, "by_v"), "total-messages") == "8"
    finally:
        e.close()


def test_error_statistics_are_per_topic(engine: Engine) -> None:
    """ksqlDB's deserialization handler records a failure against the topic of the record
    (StreamsErrorCollector.recordError(topic)): the source over that topic shows it, every source over it
    alike; the sink of the query that could not read it does not."""
    engine.execute("CREATE STREAM copy AS SELECT * FROM s;")
    engine.execute("CREATE STREAM s_again (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON');")
    _feed(engine, 3, bad=2)
    engine.drain()
    [src], [again], [copy] = (engine.execute(f"DESCRIBE {n} EXTENDED;") for n in ("s", "s_again", "copy"))
    assert src.data["errorStats"].startswith(" failed-messages:         2      last-failed: ")
    assert again.data["errorStats"] == src.data["errorStats"]
    assert copy.data["errorStats"] == " failed-messages:         0      last-failed:       n/a"


def test_a_running_push_query_counts_as_a_consumer_of_its_topic(engine: Engine) -> None:
    """ksqlDB's transient queries carry the same consumer collectors: while a push query runs, the records it
    consumed count for its source's topic; when it closes its collector goes, and its counts with it."""
    _feed(engine, 4)
    tq = engine.push_query("SELECT * FROM s EMIT CHANGES;", {"auto.offset.reset": "earliest"})
    while tq.poll():
        pass
    assert _stat_value(_statistics(engine, "s"), "consumer-total-messages") == "4"
    tq.close()
    tq.poll()
    assert _statistics(engine, "s") == ""
