"""Partition counts of the topics a case does not declare, on the real engine.

ksqlDB's harness registers them with 4 partitions (the counts its join checks compare) but runs every topic
on one partition. The runner runs one partition while no count is declared, and the harness's 4 once one is,
so a declared topic meets undeclared ones with the counts ksqlDB compared.
"""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case
from ksqlpy.testing.report import CaseResult

ACCOUNTS = ("CREATE TABLE ACCOUNTS (ID BIGINT PRIMARY KEY, OWNER STRING) "
            "WITH (kafka_topic='accounts', value_format='JSON');")
LIMITS = "CREATE TABLE LIMITS (ID BIGINT PRIMARY KEY, CAP INT) WITH (kafka_topic='limits', value_format='JSON');"


def run(raw: dict[str, Any]) -> CaseResult:
    [case] = expand_case({"name": "partitions", **raw}, "mine.json")
    return run_case(case, default_factory(), timeout_s=60)


@pytest.mark.parametrize("declared", [True, False])
def test_a_table_written_at_a_declared_count_joins_an_undeclared_table(declared: bool) -> None:
    # ACCOUNTS_4 is declared at 4 partitions; LIMITS is not: ksqlDB's harness gives it 4 too, so the
    # join is co-partitioned. Without a declared count everything runs on one partition.
    sink = "CREATE TABLE ACCOUNTS_4 WITH (PARTITIONS=4) AS SELECT * FROM ACCOUNTS;" if declared else \
        "CREATE TABLE ACCOUNTS_4 AS SELECT * FROM ACCOUNTS;"
    raw = {
        "statements": [ACCOUNTS, LIMITS, sink,
                       "CREATE TABLE CAPPED AS SELECT A.ID, OWNER, CAP FROM ACCOUNTS_4 A JOIN LIMITS L ON A.ID = L.ID;"],
        "topics": [{"name": "ACCOUNTS_4", "format": "JSON", "partitions": 4}] if declared else [],
        "inputs": [
            {"topic": "accounts", "key": 7, "value": {"OWNER": "ada"}, "timestamp": 1},
            {"topic": "accounts", "key": 9, "value": {"OWNER": "bob"}, "timestamp": 2},
            {"topic": "limits", "key": 9, "value": {"CAP": 30}, "timestamp": 3},
            {"topic": "limits", "key": 7, "value": {"CAP": 10}, "timestamp": 4},
        ],
        "outputs": [
            {"topic": "CAPPED", "key": 9, "value": {"OWNER": "bob", "CAP": 30}, "timestamp": 3},
            {"topic": "CAPPED", "key": 7, "value": {"OWNER": "ada", "CAP": 10}, "timestamp": 4},
        ],
        "post": {"topics": {"topics": [{"name": "limits", "partitions": 4 if declared else 1},
                                       {"name": "CAPPED", "partitions": 4 if declared else 1}]}},
    }
    result = run(raw)
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
