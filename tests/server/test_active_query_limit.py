"""``ksql.query.persistent.active.limit`` (the configuration reference's server setting): a request whose
CREATE ... AS SELECT or INSERT INTO ... SELECT would leave more persistent queries than the limit is refused with
ksqlDB's message, nothing of it run; every persistent query counts (a SOURCE table's CST_ query, a paused one);
CREATE OR REPLACE adds none; a TERMINATE earlier in the request makes room; a request cannot raise the limit."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from app_client import serving  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402

LIMIT_ERROR = ("Not executing query(ies) as it would cause the number of active, persistent queries to exceed the "
               "configured limit. Use the TERMINATE command to terminate existing queries, or increase the "
               "'ksql.query.persistent.active.limit' setting via the 'ksql-server.properties' file. Current "
               "persistent query count: {count}. Configured limit: 2.")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                             "ksql.query.persistent.active.limit": "2"})
    with serving(create_app(config)) as c:
        ok = c.post("/ksql", json={"ksql": "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', "
                                           "partitions=1, value_format='JSON');"})
        assert ok.status_code == 200, ok.text
        yield c


def _ksql(c: Any, sql: str, **body: Any) -> Any:
    return c.post("/ksql", json={"ksql": sql, **body})


def _refused(r: Any, count: int, statement: str) -> None:
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == 40001
    assert r.json()["message"] == LIMIT_ERROR.format(count=count)
    assert r.json()["statementText"] == statement


def _queries(c: Any) -> list[str]:
    return sorted(q["id"] for q in _ksql(c, "SHOW QUERIES;").json()[0]["queries"])


def test_a_query_past_the_limit_is_refused(client: Any) -> None:
    assert _ksql(client, "CREATE STREAM A AS SELECT * FROM S;").status_code == 200
    assert _ksql(client, "CREATE TABLE T AS SELECT ID, COUNT(*) AS N FROM S GROUP BY ID;").status_code == 200
    _refused(_ksql(client, "CREATE STREAM B AS SELECT * FROM S;"), 3, "CREATE STREAM B AS SELECT * FROM S;")
    _refused(_ksql(client, "INSERT INTO A SELECT * FROM S;"), 3, "INSERT INTO A SELECT * FROM S;")
    # the limit is the server's: a request's properties do not raise it
    r = _ksql(client, "CREATE STREAM B AS SELECT * FROM S;", streamsProperties={"ksql.query.persistent.active.limit": 10})
    assert r.status_code == 400 and r.json()["message"] == "Cannot override property 'ksql.query.persistent.active.limit'"
    assert "B" not in {s["name"] for s in _ksql(client, "SHOW STREAMS;").json()[0]["streams"]}
    # replacing a query adds none
    r = _ksql(client, "CREATE OR REPLACE STREAM A AS SELECT * FROM S WHERE V > 0;")
    assert r.status_code == 200, r.text
    assert _queries(client) == ["CSAS_A_1", "CTAS_T_2"] and r.json()[0]["commandStatus"]["queryId"] == "CSAS_A_1"


def test_a_request_is_validated_whole_and_a_terminate_makes_room(client: Any) -> None:
    assert _ksql(client, "CREATE STREAM A AS SELECT * FROM S;").status_code == 200
    paused = _ksql(client, "CREATE STREAM P AS SELECT * FROM S;").json()[0]["commandStatus"]["queryId"]
    assert _ksql(client, f"PAUSE {paused};").status_code == 200  # a paused query still counts
    # the first statement ran in the sandbox only: the request fails with nothing run
    request = ("CREATE STREAM S2 (ID INT KEY, V INT) WITH (kafka_topic='s2', partitions=1, "
               "value_format='JSON'); CREATE STREAM C AS SELECT * FROM S2;")
    r = _ksql(client, request)
    _refused(r, 3, request)  # the request's whole text names the refusal (RequestValidator's sql)
    assert "S2" not in {s["name"] for s in _ksql(client, "SHOW STREAMS;").json()[0]["streams"]}
    r = _ksql(client, f"TERMINATE {paused}; CREATE STREAM C AS SELECT * FROM S;")
    assert r.status_code == 200, r.text
    assert len(_queries(client)) == 2


def test_a_source_tables_query_counts(client: Any) -> None:
    assert _ksql(client, "CREATE SOURCE TABLE ST (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='st', "
                         "partitions=1, value_format='JSON');").status_code == 200
    assert _ksql(client, "CREATE STREAM A AS SELECT * FROM S;").status_code == 200
    _refused(_ksql(client, "CREATE STREAM B AS SELECT * FROM S;"), 3, "CREATE STREAM B AS SELECT * FROM S;")


@pytest.mark.parametrize("request_text", [
    "  CREATE STREAM B AS SELECT * FROM S;\n",
    "-- one more\nCREATE STREAM B AS SELECT * FROM S; -- past the limit",
    "SET 'auto.offset.reset'='earliest'; CREATE STREAM B AS SELECT * FROM S;",
    "CREATE STREAM B AS SELECT * FROM S; SHOW STREAMS;",
    "DEFINE x = 'S'; INSERT INTO A SELECT * FROM ${x};",
])
def test_the_refusal_names_the_whole_request(client: Any, request_text: str) -> None:
    """ksqlDB's RequestValidator.validate gives QueryCapacityUtil.throwTooManyActivePersistentQueriesException
    the request's text as it came (``request.getUnmaskedKsql()``: comments, blanks, the other statements,
    variables unsubstituted), not the statement that met the limit; KsqlResource answers it as the
    ``statementText`` (from memory)."""
    assert _ksql(client, "CREATE STREAM A AS SELECT * FROM S;").status_code == 200
    assert _ksql(client, "CREATE STREAM A2 AS SELECT * FROM S;").status_code == 200
    _refused(_ksql(client, request_text), 3, request_text)
    assert _queries(client) == ["CSAS_A2_2", "CSAS_A_1"]
