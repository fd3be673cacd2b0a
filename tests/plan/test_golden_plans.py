"""Golden logical plans: SQL in (``golden/*.sql``), the plan EXPLAIN prints out (``golden/*.txt``).

Each case runs against the sources in ``SOURCES``. Every statement of a ``.sql`` file but the last is run
first (``--`` lines are comments); the last one is explained (``EXPLAIN <statement>``) and its
``executionPlan`` is the golden text. A persistent statement is then run as well, and ``EXPLAIN <query
id>`` of the running query must print the same plan. The files are the specification of what the planner
decides - review every changed line.

To accept changed output after reviewing it: ``KSQLPY_UPDATE_GOLDEN=1 pytest tests/plan``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.grammar import ast as A

GOLDEN = Path(__file__).parent / "golden"
SOURCES = [
    "CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, ITEM STRING, AMOUNT DOUBLE, TAGS ARRAY<STRING>, "
    "ADDRESS STRUCT<CITY STRING, ZIP INT>) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM MORE_ORDERS (ID INT KEY, CUSTOMER INT, ITEM STRING, AMOUNT DOUBLE, TAGS ARRAY<STRING>, "
    "ADDRESS STRUCT<CITY STRING, ZIP INT>) WITH (KAFKA_TOPIC='more_orders', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM PAYMENTS (ID INT KEY, ORDER_ID INT, PAID DOUBLE) "
    "WITH (KAFKA_TOPIC='payments', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM SHIPMENTS (ID INT KEY, ORDER_ID INT, CARRIER STRING) "
    "WITH (KAFKA_TOPIC='shipments', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM EVENTS (ID STRING KEY, KIND STRING, N INT) "
    "WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=1);",
    "CREATE STREAM READINGS (SENSOR STRING, VAL DOUBLE) WITH (KAFKA_TOPIC='readings', VALUE_FORMAT='JSON', "
    "PARTITIONS=4);",
    "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, NAME STRING, REGION STRING) "
    "WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE ACCOUNTS (ID INT PRIMARY KEY, CUSTOMER INT, BALANCE DOUBLE) "
    "WITH (KAFKA_TOPIC='accounts', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE REGIONS (NAME STRING PRIMARY KEY, MANAGER STRING) "
    "WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE JSON_REGIONS (NAME STRING PRIMARY KEY, MANAGER STRING) "
    "WITH (KAFKA_TOPIC='json_regions', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE PRICES (SKU STRING PRIMARY KEY, STORE INT PRIMARY KEY, PRICE DOUBLE) "
    "WITH (KAFKA_TOPIC='prices', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE VIEWS_PER_MINUTE (PAGE STRING PRIMARY KEY, VIEWS BIGINT) WITH (KAFKA_TOPIC='views_per_minute', "
    "VALUE_FORMAT='JSON', PARTITIONS=4, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 MINUTE');",
    "CREATE STREAM VIEW_COUNTS (PAGE STRING KEY, VIEWS BIGINT) WITH (KAFKA_TOPIC='view_counts', "
    "VALUE_FORMAT='JSON', PARTITIONS=4, WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 MINUTE');",
]


def statements(path: Path) -> list[str]:
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() + ";" for s in text.split(";") if s.strip()]


def explain(engine: Engine, sql: str) -> str:
    (result,) = engine.execute(f"EXPLAIN {sql}")
    return str(result.data["executionPlan"])


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path / "data"))
    for sql in SOURCES:
        e.execute(sql)
    yield e
    e.close()


CASES = sorted(p.stem for p in GOLDEN.glob("*.sql"))


@pytest.mark.parametrize("case", CASES)
def test_plan(case: str, engine: Engine) -> None:
    *setup, sql = statements(GOLDEN / f"{case}.sql")
    for s in setup:
        engine.execute(s)
    got = explain(engine, sql)
    expected = GOLDEN / f"{case}.txt"
    if os.environ.get("KSQLPY_UPDATE_GOLDEN"):
        expected.write_text(got)
    assert got == expected.read_text()
    (stmt,) = engine.parse(sql)
    if isinstance(stmt, (A.CreateAsSelect, A.InsertInto)):  # the running query explains itself the same way
        before = set(engine.queries)
        engine.execute(sql)
        (query_id,) = set(engine.queries) - before
        (result,) = engine.execute(f"EXPLAIN {query_id};")
        assert result.data["executionPlan"] == got


def test_every_case_has_its_plan() -> None:
    assert CASES and sorted(p.stem for p in GOLDEN.glob("*.txt")) == CASES
