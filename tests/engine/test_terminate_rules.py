"""TERMINATE and a SOURCE table's query (from memory of ksqlDB's TerminateQueryExecutor / TerminateQueryValidator):
TERMINATE ALL ends every persistent query but those of PersistentQueryType CREATE_SOURCE, the CST_ query that keeps
a CREATE SOURCE TABLE materialized; that query named alone is refused; only DROP of its table ends it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from app_client import serving  # noqa: E402

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.log.base import ProducerRecord

SOURCE_TABLE = ("CREATE SOURCE TABLE T (ID INT PRIMARY KEY, V STRING) "
                "WITH (kafka_topic='t', value_format='JSON', partitions=1);")
STREAM = "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON', partitions=1);"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def produce(engine: Engine, key: int, v: str) -> None:
    """A SOURCE table takes no INSERT: its records come from its topic."""
    engine.log.produce(ProducerRecord("t", key.to_bytes(4, "big"), orjson.dumps({"V": v}), key))


def pull(engine: Engine, sql: str) -> list[tuple]:
    [res] = engine.execute(sql)
    return list(res.data["rows"])


def test_terminate_all_keeps_the_source_tables_query(engine: Engine) -> None:
    [cst] = engine.execute(SOURCE_TABLE)
    engine.execute(STREAM)
    [csas] = engine.execute("CREATE STREAM S2 AS SELECT * FROM S;")
    [ctas] = engine.execute("CREATE TABLE T2 AS SELECT * FROM T;")
    engine.execute("TERMINATE ALL;")
    assert list(engine.queries) == [cst.query_id]
    assert csas.query_id not in engine.queries and ctas.query_id not in engine.queries


def test_a_source_table_goes_on_materializing_after_terminate_all(engine: Engine) -> None:
    engine.execute(SOURCE_TABLE)
    produce(engine, 1, "a")
    engine.drain()
    engine.execute("TERMINATE ALL;")
    produce(engine, 2, "b")
    engine.drain()
    assert sorted(pull(engine, "SELECT * FROM T;")) == [(1, "a"), (2, "b")]


def test_terminate_all_twice_and_with_only_a_source_table(engine: Engine) -> None:
    [cst] = engine.execute(SOURCE_TABLE)
    engine.execute("TERMINATE ALL;")
    engine.execute("TERMINATE ALL;")
    assert list(engine.queries) == [cst.query_id]


def test_the_source_tables_query_named_alone_is_refused_before_and_after_terminate_all(engine: Engine) -> None:
    [cst] = engine.execute(SOURCE_TABLE)
    message = f"Cannot terminate query '{cst.query_id}' because it is linked to a source table."
    for _ in range(2):
        with pytest.raises(KsqlStatementError, match=message):
            engine.execute(f"TERMINATE {cst.query_id.lower()};")
        engine.execute("TERMINATE ALL;")


def test_drop_of_the_source_table_ends_its_query(engine: Engine) -> None:
    engine.execute(SOURCE_TABLE)
    engine.execute("TERMINATE ALL;")
    engine.execute("DROP TABLE T;")
    assert not engine.queries


def test_over_rest_terminate_all_keeps_the_source_tables_query(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config

    with serving(create_app(build_config(data_dir=str(tmp_path)))) as c:

        def ksql(sql: str, status: int = 200) -> list[dict]:
            r = c.post("/ksql", json={"ksql": sql, "streamsProperties": {}})
            assert r.status_code == status, r.text
            return r.json()

        [created] = ksql(SOURCE_TABLE)
        qid = created["commandStatus"]["queryId"]
        ksql(STREAM)
        ksql("CREATE STREAM S2 AS SELECT * FROM S;")
        [done] = ksql("TERMINATE ALL;")
        assert done["commandStatus"]["message"] == "Query terminated."
        [shown] = ksql("SHOW QUERIES;")
        assert [q["id"] for q in shown["queries"]] == [qid]
        refused = ksql(f"TERMINATE {qid};", 400)
        assert refused["message"] == f"Cannot terminate query '{qid}' because it is linked to a source table."
