"""EXPLAIN: the logical plan in ksqlDB's format, and the topology beside it, for a statement and for the
query it runs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.plan.explain import schema_text
from ksqlpy.plan.logical import ColumnRole, RowSchema, SchemaColumn
from ksqlpy.types import BIGINT, STRING, Struct

SQL = ("CREATE TABLE SALES AS SELECT C.REGION, COUNT(*) AS N FROM ORDERS O JOIN CUSTOMERS C "
       "ON O.CUSTOMER = C.ID GROUP BY C.REGION;")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path / "data"))
    e.execute("CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, AMOUNT DOUBLE) WITH (KAFKA_TOPIC='orders', "
              "VALUE_FORMAT='JSON', PARTITIONS=2);")
    e.execute("CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, REGION STRING) WITH (KAFKA_TOPIC='customers', "
              "VALUE_FORMAT='JSON', PARTITIONS=2);")
    yield e
    e.close()


def _check(described: dict) -> None:
    plan, topology = described["executionPlan"], described["topology"]
    lines = plan.splitlines()
    ops = [re.match(r"^(\t*) > \[ (\w+) \]", line) for line in lines]
    assert all(ops), plan
    # each input two tabs under what reads it; the join's both sources under it
    assert [(len(m.group(1)), m.group(2)) for m in ops if m] == [
        (0, "SINK"), (2, "PROJECT"), (4, "AGGREGATE"), (6, "JOIN"), (8, "SOURCE"), (8, "SOURCE")]
    assert "STREAM ORDERS AS O" in lines[4] and "TABLE CUSTOMERS AS C" in lines[5]
    assert "INNER STREAM_TABLE ON O_CUSTOMER = C_ID" in lines[3] and "Repartition: left" in lines[3]
    assert "Repartition: true" in lines[2]  # GROUP BY a column that is not the join key
    # the topology: the repartition topics and the stores
    for name in ("Join-repartition", "Aggregate-GroupBy-repartition", "KafkaTopic_Right-Reduce",
                 "Aggregate-Aggregate-Materialize"):
        assert name in topology
    assert "Sub-topology: 2" in topology


def test_explain_a_statement_and_its_running_query(engine: Engine) -> None:
    (explained,) = engine.execute(f"EXPLAIN {SQL}")
    _check(explained.data)
    (created,) = engine.execute(SQL)
    (running,) = engine.execute(f"EXPLAIN {created.query_id};")
    _check(running.data)
    assert running.data["executionPlan"] == explained.data["executionPlan"]
    assert running.data["topology"] == explained.data["topology"]
    assert explained.data["sources"] == ["ORDERS", "CUSTOMERS"]


def test_a_pull_query_has_a_plan_and_no_topology(engine: Engine) -> None:
    (explained,) = engine.execute("EXPLAIN SELECT * FROM CUSTOMERS WHERE ID = 3;")
    assert explained.data["topology"] == ""
    assert explained.data["queryType"] == "PULL"
    assert explained.data["executionPlan"].splitlines()[-1].endswith("Access: KEY_LOOKUP [3]")


def test_schema_text_is_ksqldb_logical_schema() -> None:
    schema = RowSchema([SchemaColumn("K", STRING, ColumnRole.KEY), SchemaColumn("a b", BIGINT, ColumnRole.VALUE),
                        SchemaColumn("S", Struct((("F", STRING),)), ColumnRole.VALUE),
                        SchemaColumn("H", STRING, ColumnRole.HEADER)])
    assert schema_text(schema) == "`K` STRING KEY, `a b` BIGINT, `S` STRUCT<`F` STRING>, `H` STRING HEADERS"
