"""Where ksqlDB's analysis errors carry the statement's location (``Line: l, Col: c:``) over REST: every
statement kind, positions counted in the whole request text (a statement on the request's second line is on
line 2), the sanitizer's errors behind ``Exception while preparing statement:``; errors ksqlDB raises without a
location (the join tree's) have none."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from app_client import serving  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402

SOURCES = ("CREATE STREAM PS (ID INT KEY, V STRING, X INT) WITH (kafka_topic='ps', partitions=1, value_format='JSON');"
           "CREATE STREAM PS2 (ID INT KEY, V STRING) WITH (kafka_topic='ps2', partitions=1, value_format='JSON');"
           "CREATE TABLE PT (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='pt', partitions=1, value_format='JSON');"
           "CREATE TABLE PT2 (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='pt2', partitions=1, format='JSON');"
           "CREATE TABLE PAGG AS SELECT ID, COUNT(*) AS C FROM PS GROUP BY ID;")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("positions")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": SOURCES})
        assert r.status_code == 200, r.text
        yield c


# the failing statement is the request's second line; the first is a statement that succeeds
FIRST = "SHOW STREAMS;\n"


@pytest.mark.parametrize("sql,message", [
    ("CREATE STREAM E1 AS SELECT NOPE FROM PS;", "Line: 2, Col: 28: SELECT column 'NOPE' cannot be resolved."),
    ("CREATE STREAM E2 AS SELECT ID FROM PS WHERE NOPE = 1;",
     "Line: 2, Col: 45: WHERE column 'NOPE' cannot be resolved."),
    ("CREATE TABLE E3 AS SELECT V, COUNT(*) FROM PS GROUP BY NOPE;",
     "Line: 2, Col: 56: GROUP BY column 'NOPE' cannot be resolved."),
    ("CREATE STREAM E4 AS SELECT * FROM PS PARTITION BY NOPE;",
     "Line: 2, Col: 51: PARTITION BY column 'NOPE' cannot be resolved."),
    ("CREATE TABLE E5 AS SELECT V, COUNT(*) FROM PS GROUP BY V HAVING NOPE > 1;",
     "Line: 2, Col: 65: HAVING column 'NOPE' cannot be resolved."),
    ("INSERT INTO PS SELECT ID, NOPE, X FROM PS2;", "Line: 2, Col: 27: SELECT column 'NOPE' cannot be resolved."),
    ("INSERT INTO NOPE SELECT * FROM PS;", "Line: 2, Col: 13: Source `NOPE` does not exist."),
    ("CREATE STREAM E6 (ID INT PRIMARY KEY) WITH (kafka_topic='e6', partitions=1, value_format='JSON');",
     "Line: 2, Col: 19: Column `ID` is a 'PRIMARY KEY' column: please use 'KEY' for streams."),
    ("CREATE TABLE E7 (ID INT KEY) WITH (kafka_topic='e7', partitions=1, value_format='JSON');",
     "Line: 2, Col: 18: Column `ID` is a 'KEY' column: please use 'PRIMARY KEY' for tables."),
    ("CREATE STREAM E8 AS SELECT V FROM PS WINDOW TUMBLING (SIZE 1 SECOND);",
     "Line: 2, Col: 45: WINDOW clause requires a GROUP BY clause."),
    ("CREATE STREAM E9 AS SELECT * FROM PS JOIN PS2 WITHIN 1 SECOND ON PS.NOPE = PS2.ID;",
     "Line: 2, Col: 66: JOIN ON column 'PS.NOPE' cannot be resolved."),
    ("CREATE STREAM E10 AS SELECT PS.ID FROM PS JOIN PS2 WITHIN 1 SECOND ON PS.ID = PS2.ID WHERE V = 'a';",
     "Exception while preparing statement: Line: 2, Col: 92: Column 'V' is ambiguous. Could be PS.V or PS2.V."),
    ("CREATE STREAM E11 AS SELECT * FROM PS JOIN PT ON PT.ID = PT2.ID JOIN PT2 ON PT.ID = PT2.ID;",
     "Cannot perform circular join - both `PT2` and PT.ID are already included in the current join tree"),
])
def test_analysis_errors_name_their_place_in_the_request(client: TestClient, sql: str, message: str) -> None:
    r = client.post("/ksql", json={"ksql": FIRST + sql})
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["@type"] == "statement_error" and body["error_code"] == 40001
    assert body["message"].startswith(message), body["message"]
    assert body["statementText"] == sql


def test_a_pull_query_error_names_its_place_on_the_query_endpoints(client: TestClient) -> None:
    for path, key in (("/query-stream", "sql"), ("/query", "ksql")):
        r = client.post(path, json={key: "SELECT NOPE\n  FROM PAGG WHERE ID = 1;"})
        assert r.status_code == 400, r.text
        assert r.json()["message"].startswith("Line: 1, Col: 8: SELECT column 'NOPE' cannot be resolved.")
