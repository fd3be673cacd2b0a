"""EXPLAIN of a CREATE ... AS SELECT checks the sink's name where executing it does: after the query is planned
(ksqlDB's ExplainExecutor runs the statement on a sandbox, EngineExecutor.maybeCreateSinkDdl on the plan), so a
fault of the query is what it reports. The statement itself: tests/cases/analysis/create-as-name-order.json."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from statement_errors import statement_error as error

from ksqlpy.engine import Engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
              "CREATE STREAM N AS SELECT * FROM S;"
              "CREATE SOURCE TABLE ST (K INT PRIMARY KEY, V INT) WITH (kafka_topic='st', value_format='JSON', "
              "partitions=1);")
    yield e
    e.close()


@pytest.mark.parametrize("verb", ["CREATE", "CREATE OR REPLACE"])
def test_explain_reports_the_querys_fault_before_the_name(engine: Engine, verb: str) -> None:
    assert error(engine, f"EXPLAIN {verb} STREAM N AS SELECT K, NOPE FROM S;").endswith(
        "SELECT column 'NOPE' cannot be resolved.")
    assert error(engine, f"EXPLAIN {verb} TABLE ST AS SELECT K, NOPE FROM S;").endswith(
        "SELECT column 'NOPE' cannot be resolved.")


def test_explain_of_a_query_that_plans_reports_the_name(engine: Engine) -> None:
    assert error(engine, "EXPLAIN CREATE STREAM N AS SELECT * FROM S;") == (
        "Cannot add stream 'N': A stream with the same name already exists")
    assert error(engine, "EXPLAIN CREATE OR REPLACE TABLE ST AS SELECT K, LATEST_BY_OFFSET(V) AS V FROM S "
                         "GROUP BY K;") == (
        "Cannot add table 'ST': CREATE OR REPLACE is not supported on source tables.")
    [res] = engine.execute("EXPLAIN CREATE OR REPLACE STREAM N AS SELECT * FROM S WHERE V > 0;")
    assert res.data["id"] == "CSAS_N_0"  # the running query it would replace


def test_a_refused_name_creates_no_topic(engine: Engine) -> None:
    """The sink topic's counts are judged before the name, its creation waits for every check."""
    assert error(engine, "CREATE STREAM N WITH (kafka_topic='fresh', partitions=2) AS SELECT * FROM S;") == (
        "Cannot add stream 'N': A stream with the same name already exists")
    assert not engine.log.topic_exists("fresh")


def test_the_counts_of_an_existing_sink_topic_come_before_the_name(engine: Engine) -> None:
    assert error(engine, "CREATE STREAM N WITH (partitions=2) AS SELECT * FROM S;").startswith(
        "A Kafka topic with the name 'N' already exists, with different partition/replica configuration")
