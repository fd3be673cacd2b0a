"""Partition counts and record placement of the statement-level runner, on the real engine.

ksqlDB's harness creates every topic a case names with 4 partitions unless the case declares a count, and
runs its queries in a TopologyTestDriver: every record in partition 0, one stream time per query. The
runner does the same by default (``Placement.TTD``); ``Placement.KAFKA`` puts records where their keys
hash, so a record routed to the wrong partition shows.
"""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case
from ksqlpy.testing.partitioning import Placement
from ksqlpy.testing.report import CaseResult

ACCOUNTS = ("CREATE TABLE ACCOUNTS (ID BIGINT PRIMARY KEY, OWNER STRING) "
            "WITH (kafka_topic='accounts', value_format='JSON');")
LIMITS = "CREATE TABLE LIMITS (ID BIGINT PRIMARY KEY, CAP INT) WITH (kafka_topic='limits', value_format='JSON');"
EVENTS = "CREATE STREAM EVENTS (ID STRING KEY, V INT) WITH (kafka_topic='events', value_format='JSON');"


def run(raw: dict[str, Any], placement: Placement = Placement.TTD) -> CaseResult:
    [case] = expand_case({"name": "partitions", **raw}, "mine.json")
    return run_case(case, default_factory(), timeout_s=60, placement=placement)


def partitions_of(**topics: int) -> dict[str, Any]:
    return {"topics": {"topics": [{"name": t, "partitions": n} for t, n in topics.items()]}}


def test_topics_the_case_gives_no_count_have_four_partitions() -> None:
    # the CREATE's topic, and the sink inheriting the count of its source
    raw = {"statements": [EVENTS, "CREATE STREAM COPY AS SELECT * FROM EVENTS;"],
           "inputs": [{"topic": "events", "key": "a", "value": {"V": 1}}],
           "outputs": [{"topic": "COPY", "key": "a", "value": {"V": 1}}],
           "post": partitions_of(events=4, COPY=4)}
    result = run(raw)
    assert result.status == "passed", result.reason


def test_a_topics_entry_without_a_count_takes_the_count_its_create_names() -> None:
    raw = {"statements": [EVENTS.replace("value_format='JSON'", "value_format='JSON', PARTITIONS=2")],
           "topics": [{"name": "events", "format": "JSON"}],
           "post": partitions_of(events=2)}
    result = run(raw)
    assert result.status == "passed", result.reason


def test_a_sink_named_only_by_outputs_keeps_the_count_it_inherits() -> None:
    # the harness creates topics only records name after the statements: the CSAS made this one first
    raw = {"statements": [EVENTS.replace("value_format='JSON'", "value_format='JSON', PARTITIONS=1"),
                          "CREATE STREAM COPY AS SELECT * FROM EVENTS;"],
           "inputs": [{"topic": "events", "key": "a", "value": {"V": 1}}],
           "outputs": [{"topic": "COPY", "key": "a", "value": {"V": 1}}],
           "post": partitions_of(COPY=1)}
    result = run(raw)
    assert result.status == "passed", result.reason


def test_a_topic_only_records_name_has_four_partitions() -> None:
    raw = {"statements": [EVENTS], "inputs": [{"topic": "elsewhere", "key": "a", "value": {"V": 1}}],
           "post": partitions_of(elsewhere=4)}
    result = run(raw)
    assert result.status == "passed", result.reason


@pytest.mark.parametrize("placement", list(Placement))
def test_a_table_written_at_the_harness_count_joins_an_undeclared_table(placement: Placement) -> None:
    raw = {
        "statements": [ACCOUNTS, LIMITS, "CREATE TABLE ACCOUNTS_4 WITH (PARTITIONS=4) AS SELECT * FROM ACCOUNTS;",
                       "CREATE TABLE CAPPED AS SELECT A.ID, OWNER, CAP FROM ACCOUNTS_4 A JOIN LIMITS L ON A.ID = L.ID;"],
        "inputs": [
            {"topic": "accounts", "key": 7, "value": {"OWNER": "ada"}, "timestamp": 1},
            {"topic": "accounts", "key": 9, "value": {"OWNER": "bob"}, "timestamp": 2},
            {"topic": "limits", "key": 9, "value": {"CAP": 30}, "timestamp": 3},
            {"topic": "limits", "key": 7, "value": {"CAP": 10}, "timestamp": 4},
        ],
        # the join reads its inputs (limits: ACCOUNTS_4 still empty) before the earlier query's sink, whole
        # (ksqlDB's driver order, ``piping``): both rows join as ACCOUNTS_4's rows arrive, 7 then 9
        "outputs": [
            {"topic": "CAPPED", "key": 7, "value": {"OWNER": "ada", "CAP": 10}, "timestamp": 4},
            {"topic": "CAPPED", "key": 9, "value": {"OWNER": "bob", "CAP": 30}, "timestamp": 3},
        ],
        "post": partitions_of(limits=4, CAPPED=4),
    }
    result = run(raw, placement)
    assert result.status == "passed", result.reason


def test_a_stream_declared_at_one_partition_does_not_join_an_undeclared_table() -> None:
    # as in ksqlDB: the undeclared table has the harness's 4 partitions, the stream asked for 1
    raw = {
        "statements": ["CREATE STREAM PAYMENTS (ID BIGINT KEY, AMOUNT INT) "
                       "WITH (kafka_topic='payments', value_format='JSON', PARTITIONS=1);", LIMITS,
                       "CREATE STREAM CHECKED AS SELECT P.ID, AMOUNT, CAP FROM PAYMENTS P JOIN LIMITS L ON P.ID = L.ID;"],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": "Can't join `PAYMENTS` with `LIMITS` since the number of partitions don't match. "
                       "`PAYMENTS` partitions = 1; `LIMITS` partitions = 4."},
    }
    result = run(raw)
    assert result.status == "passed", result.reason


def _keys_on_two_partitions() -> tuple[str, str]:
    by_partition: dict[int, str] = {}
    for k in "abcdefgh":
        by_partition.setdefault(partition_for_key(k.encode(), 4), k)
    first, second = sorted(by_partition.values())[:2]
    return first, second


def test_under_ttd_every_record_is_in_partition_zero_and_offsets_count_the_topic() -> None:
    a, b = _keys_on_two_partitions()
    raw = {"statements": ["CREATE STREAM EVENTS (ID STRING KEY, V INT) "
                          "WITH (kafka_topic='events', value_format='JSON', key_format='KAFKA');",
                          "CREATE STREAM POS AS SELECT ID, ROWPARTITION AS P, ROWOFFSET AS O FROM EVENTS;"],
           "inputs": [{"topic": "events", "key": k, "value": {"V": 1}} for k in (a, b, a)],
           "outputs": [{"topic": "POS", "key": k, "value": {"P": 0, "O": i}} for i, k in enumerate((a, b, a))]}
    assert run(raw, Placement.TTD).status == "passed"
    # where keys hash, the second key is in another partition with its own offsets; the failure says where
    result = run(raw, Placement.KAFKA)
    assert result.status == "failed" and "value.O: expected 2, got 1" in result.reason, result.reason


def test_under_ttd_a_record_of_another_key_moves_the_one_stream_time() -> None:
    a, b = _keys_on_two_partitions()
    window = "WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)"
    raw = {"statements": ["CREATE STREAM EVENTS (ID STRING KEY, V INT) "
                          "WITH (kafka_topic='events', value_format='JSON', key_format='KAFKA');",
                          f"CREATE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM EVENTS {window} GROUP BY ID;"],
           "inputs": [{"topic": "events", "key": a, "value": {"V": 1}, "timestamp": 100},
                      {"topic": "events", "key": b, "value": {"V": 1}, "timestamp": 0}],
           # b's window [0, 10) closed when a's record moved stream time to 100: b's record is dropped
           "outputs": [{"topic": "COUNTS", "key": a, "value": {"N": 1}, "timestamp": 100,
                        "window": {"start": 100, "end": 110, "type": "time"}}]}
    assert run(raw, Placement.TTD).status == "passed"
    # on its own partition, b's record meets a stream time of its own and counts
    result = run(raw, Placement.KAFKA)
    assert result.status == "failed" and "expected 1 records, got 2" in result.reason


def test_under_ttd_a_topic_is_one_sequence_across_keys() -> None:
    # ksqlDB's TopologyTestDriver processes each input to completion and its harness compares a sink's
    # records in the order written, whatever their keys; Kafka orders only within a partition
    a, b = _keys_on_two_partitions()
    raw = {"statements": [EVENTS.replace("value_format='JSON'", "value_format='JSON', key_format='KAFKA'"),
                          "CREATE STREAM COPY AS SELECT * FROM EVENTS;"],
           "inputs": [{"topic": "events", "key": k, "value": {"V": n}} for k, n in ((a, 1), (b, 2), (a, 3))]}
    in_order = [{"topic": "COPY", "key": k, "value": {"V": n}} for k, n in ((a, 1), (b, 2), (a, 3))]
    b_first = [in_order[1], in_order[0], in_order[2]]
    assert run({**raw, "outputs": in_order}, Placement.TTD).status == "passed"
    result = run({**raw, "outputs": b_first}, Placement.TTD)
    assert result.status == "failed" and "record 1/3" in result.reason, result.reason
    assert run({**raw, "outputs": b_first}, Placement.KAFKA).status == "passed"


def _emit_final_case(first: str, second: str) -> dict[str, Any]:
    """Two keys' windows [0, 10) closed by one record of ``first`` (EMIT FINAL, looking after every record)."""
    window = "WINDOW TUMBLING (SIZE 10 MILLISECONDS, GRACE PERIOD 0 MILLISECONDS)"
    return {"properties": {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0},
            "statements": ["CREATE STREAM EVENTS (ID STRING KEY, V INT) "
                           "WITH (kafka_topic='events', value_format='JSON', key_format='KAFKA');",
                           f"CREATE TABLE COUNTS AS SELECT ID, COUNT(*) AS N FROM EVENTS {window} GROUP BY ID "
                           "EMIT FINAL;"],
            "inputs": [{"topic": "events", "key": k, "value": {"V": 1}, "timestamp": ts}
                       for k, ts in ((first, 1), (second, 2), (first, 10))]}


def test_under_ttd_windows_one_record_closes_are_one_sequence_across_partitions() -> None:
    # the closed windows go out ordered by (start, key bytes) and TopologyTestDriver keeps that order, though
    # the keys' windowed records belong to different partitions of the sink - here the first key's partition
    # comes after the second's
    a, b = next((x, y) for x in "abcdefgh" for y in "abcdefgh"
                if x < y and partition_for_key(x.encode(), 4) > partition_for_key(y.encode(), 4))
    raw = _emit_final_case(b, a)
    raw["outputs"] = [{"topic": "COUNTS", "key": k, "value": {"N": 1}, "timestamp": ts,
                       "window": {"start": 0, "end": 10, "type": "time"}} for k, ts in ((a, 2), (b, 1))]
    result = run(raw, Placement.TTD)
    assert result.status == "passed", result.reason


def test_on_kafka_placement_each_partition_closes_windows_on_its_own_stream_time() -> None:
    # the closing record moves only its own task's stream time: the other key's window stays open
    a, b = _keys_on_two_partitions()
    raw = _emit_final_case(a, b)
    raw["outputs"] = [{"topic": "COUNTS", "key": a, "value": {"N": 1}, "timestamp": 1,
                       "window": {"start": 0, "end": 10, "type": "time"}}]
    assert run(raw, Placement.KAFKA).status == "passed"
    result = run(raw, Placement.TTD)  # one stream time: both windows close
    assert result.status == "failed" and "expected 1 records, got 2" in result.reason, result.reason
