"""The REST wire of statement errors: /ksql answers a syntax error with the detail alone and the failing line
as statementText (the query endpoints keep the Statement: line), WITH-clause and INSERT VALUES errors with
ksqlDB's codes and texts."""

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


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("errors")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        r = c.post("/ksql", json={"ksql": "CREATE STREAM S (K STRING KEY, A INT) WITH (kafka_topic='s', "
                                          "partitions=1, value_format='JSON');"})
        assert r.status_code == 200, r.text
        yield c


def test_a_syntax_error_names_its_failing_line(client: TestClient) -> None:
    r = client.post("/ksql", json={"ksql": "CREATE STREAM X (\n  A INT,\n  B INT INT\n) WITH (kafka_topic='x');"})
    assert r.status_code == 400
    body = r.json()
    assert body["@type"] == "statement_error" and body["error_code"] == 40001
    assert body["message"].startswith("line 3:")
    assert "\nStatement:" not in body["message"]
    assert body["statementText"] == "  B INT INT"


def test_the_query_endpoint_keeps_the_statement_line(client: TestClient) -> None:
    r = client.post("/query", json={"ksql": "SELECT * FROM S WHERE;"})
    assert r.status_code == 400
    assert r.json()["message"] == "line 1:22: Syntax Error\n\nStatement: SELECT * FROM S WHERE;"


def test_with_clause_errors_fail_to_prepare(client: TestClient) -> None:
    r = client.post("/ksql", json={"ksql": "CREATE STREAM X (A INT) WITH (kafka_topic='x', value_format='DELIMITED', "
                                           "value_delimiter='');"})
    body = r.json()
    assert (r.status_code, body["error_code"]) == (400, 40001)
    assert body["message"].startswith("Failed to prepare statement: Configuration VALUE_DELIMITER is invalid: "
                                      "Delimiter cannot be empty")


def test_insert_values_errors(client: TestClient) -> None:
    r = client.post("/ksql", json={"ksql": "INSERT INTO S (K, A) VALUES ('k', 'x');"})
    body = r.json()
    assert (r.status_code, body["error_code"]) == (400, 40001)
    assert body["message"] == ("Failed to insert values into 'S'. Expected type INTEGER for field `A` but got "
                               "STRING(x)")
    r = client.post("/ksql", json={"ksql": "INSERT INTO `s` (K) VALUES ('k');"})
    body = r.json()
    assert (r.status_code, body["error_code"], body["@type"]) == (400, 40000, "generic_error")
    assert body["message"] == ("Cannot insert values into an unknown stream/table: `s`\nDid you mean S? Hint: try "
                               "removing double quotes from the source name.")
    r = client.post("/ksql", json={"ksql": "INSERT INTO S VALUES ('k', 7);"})
    assert r.status_code == 200, r.text


def test_positions_count_from_the_start_of_the_request(client: TestClient) -> None:
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS;\nSELEC x;"})
    body = r.json()
    assert body["message"] == "line 2:1: Syntax Error\nUnknown statement 'SELEC'\nDid you mean 'SELECT'?"
    assert body["statementText"] == "SELEC x;"
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS; SELEC x;"})
    assert r.json()["message"].startswith("line 1:15: ")
    assert r.json()["statementText"] == "SHOW STREAMS; SELEC x;"  # the failing line, as ksqlDB quotes it
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS;\n\nCREATE STREAM Y AS SELECT NOPE FROM S;"})
    assert r.json()["message"] == "Line: 3, Col: 27: SELECT column 'NOPE' cannot be resolved."


def test_an_empty_statement_is_refused_before_anything_runs(client: TestClient) -> None:
    """ksqlDB's grammar has no empty statement: a request with ';;' fails as a whole at the second ';'."""
    r = client.post("/ksql", json={"ksql": "CREATE STREAM EMPTY1 (A INT) WITH (kafka_topic='e1', partitions=1, "
                                           "value_format='JSON');\n;\n"})
    body = r.json()
    assert (r.status_code, body["@type"], body["error_code"]) == (400, "statement_error", 40001)
    assert body["message"] == "line 2:1: Syntax Error\nUnknown statement ';'\nDid you mean 'SET'?"
    assert body["statementText"] == ";"
    listed = client.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]
    assert "EMPTY1" not in [s["name"] for s in listed]
    r = client.post("/query", json={"ksql": "SELECT * FROM S;;"})
    assert r.status_code == 400
    assert r.json()["message"] == ("line 1:17: Syntax Error\nUnknown statement ';'\nDid you mean 'SET'?\n"
                                   "Statement: SELECT * FROM S;;")


def test_ksql_answers_a_statement_error_without_its_statement_line(client: TestClient) -> None:
    """/ksql words a KsqlStatementException by its raw details and names the statement its ``Statement:``
    line named (for a WHERE's typing error, the expression); the query endpoints keep the line."""
    r = client.post("/ksql", json={"ksql": "CREATE STREAM BAD AS SELECT * FROM S WHERE A = 'x';"})
    body = r.json()
    assert (r.status_code, body["@type"], body["error_code"]) == (400, "statement_error", 40001)
    assert body["message"].endswith("Error in WHERE expression: Cannot compare A (INTEGER) to 'x' (STRING) with "
                                    "EQUAL.")
    assert body["statementText"] == "(A = 'x')"
    for route, key in (("/query", "ksql"), ("/query-stream", "sql")):
        r = client.post(route, json={key: "SELECT * FROM S WHERE A = 'x' EMIT CHANGES;"})
        assert r.status_code == 400
        assert r.json()["message"].endswith("with EQUAL.\nStatement: (A = 'x')")
    # in a request of several statements the sandbox's error is worded the same way
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS; CREATE STREAM BAD AS SELECT * FROM S WHERE A = 'x';"})
    assert r.status_code == 400 and "\nStatement:" not in r.json()["message"]
    assert r.json()["statementText"] == "(A = 'x')"


def test_a_time_text_that_is_no_timestamp_fails_the_statement(client: TestClient) -> None:
    """It was a 500 with the parser's text: a 400 statement error on every endpoint."""
    for route, key, sql in (("/ksql", "ksql", "CREATE STREAM BAD AS SELECT * FROM S WHERE ROWTIME > 'noon';"),
                            ("/query", "ksql", "SELECT * FROM S WHERE ROWTIME = 'noon';"),
                            ("/query-stream", "sql", "SELECT * FROM S WHERE ROWTIME < 'noon' EMIT CHANGES;")):
        r = client.post(route, json={key: sql})
        body = r.json()
        assert (r.status_code, body["@type"], body["error_code"]) == (400, "statement_error", 40001), route
        assert body["message"].startswith("Failed to parse timestamp 'noon': "), route


def test_a_pull_query_refused_without_scans_explains_what_a_lookup_needs(client: TestClient) -> None:
    r = client.post("/ksql", json={"ksql": "CREATE TABLE CT AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;"})
    assert r.status_code == 200, r.text
    r = client.post("/query-stream", json={"sql": "SELECT * FROM CT WHERE N = 2;",
                                           "properties": {"ksql.query.pull.table.scan.enabled": False}})
    body = r.json()
    assert (r.status_code, body["error_code"]) == (400, 40001)
    assert body["message"] == (
        "WHERE clause missing key column for disjunct: (N = 2). See https://cnfl.io/queries for more info.\n"
        "Add EMIT CHANGES if you intended to issue a push query.\nPull queries require a WHERE clause that:\n"
        " - includes a key equality expression, e.g. `SELECT * FROM X WHERE <key-column>=Y;`.\n"
        " - in the case of a multi-column key, is a conjunction of equality expressions that cover all key columns.\n"
        "If more flexible queries are needed, table scans can be enabled by setting "
        "ksql.query.pull.table.scan.enabled=true.\nStatement: SELECT * FROM CT WHERE N = 2;")


@pytest.mark.parametrize("where, reason", [
    ("K BETWEEN 'a' AND 'b'", "A comparison must directly reference a key column"),
    ("K LIKE 'a%'", "A comparison must directly reference a key column"),
    ("'a' <> K", "Bound on key columns '[`K` STRING KEY]' must currently be '='"),
    ("NOT K = 'a'", "Bound on key columns '[`K` STRING KEY]' must currently be '='"),
    ("K > 'a' AND K < 'c'", "A comparison condition on the key column cannot be combined with other comparisons "
                            "such as an IN predicate"),
    ("CAST(N AS STRING) = K", "A comparison must be between a key column and a resolvable expression"),
    ("1 < N", "WHERE clause missing key column for disjunct: (1 < N)"),
])
def test_both_query_endpoints_refuse_a_where_without_scans_alike(client: TestClient, where: str, reason: str) -> None:
    """/query and /query-stream plan a pull query the same way: one refusal, one text, one code."""
    r = client.post("/ksql", json={"ksql": "CREATE TABLE IF NOT EXISTS CT2 AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;"})
    assert r.status_code == 200, r.text
    sql = f"SELECT * FROM CT2 WHERE {where};"
    props = {"ksql.query.pull.table.scan.enabled": False}
    bodies = [client.post("/query", json={"ksql": sql, "streamsProperties": props}),
              client.post("/query-stream", json={"sql": sql, "properties": props})]
    for r in bodies:
        body = r.json()
        assert (r.status_code, body["@type"], body["error_code"]) == (400, "statement_error", 40001), r.text
        assert body["message"].startswith(f"{reason}. See https://cnfl.io/queries for more info.\n"), r.text
        assert body["message"].endswith(f"\nStatement: {sql}"), r.text
    assert bodies[0].json()["message"] == bodies[1].json()["message"]


def test_a_string_key_range_is_served_without_scans_on_both_endpoints(client: TestClient) -> None:
    """A single range on a single STRING key is a range scan (ksql.query.pull.range.scan.enabled), which table
    scans being off does not refuse - written either way round."""
    r = client.post("/ksql", json={"ksql": "CREATE TABLE IF NOT EXISTS CT2 AS SELECT K, COUNT(*) AS N FROM S GROUP BY K;"})
    assert r.status_code == 200, r.text
    props = {"ksql.query.pull.table.scan.enabled": False}
    for sql in ("SELECT * FROM CT2 WHERE K > 'a';", "SELECT * FROM CT2 WHERE 'a' < K;"):
        r = client.post("/query", json={"ksql": sql, "streamsProperties": props})
        assert r.status_code == 200 and '"columnNames":["K","N"]' in r.text, r.text
        r = client.post("/query-stream", json={"sql": sql, "properties": props})
        assert r.status_code == 200 and '"columnNames":["K","N"]' in r.text, r.text
    r = client.post("/query", json={"ksql": "SELECT * FROM CT2 WHERE K > 'a';", "streamsProperties": {
        "ksql.query.pull.table.scan.enabled": False, "ksql.query.pull.range.scan.enabled": False}})
    assert r.status_code == 400 and r.json()["message"].startswith("Query requires table scan to be enabled. "), r.text


def test_every_endpoint_wants_the_last_statements_semicolon(client: TestClient) -> None:
    """ksqlDB's grammar ends every statement in ';' (``singleStatement: statement ';'``): a text whose last
    statement lacks it is a syntax error at the end of the text on /ksql, /query and /query-stream alike."""
    missing = "Syntax Error\nmissing ';' at '<EOF>'"
    r = client.post("/ksql", json={"ksql": "SHOW STREAMS"})
    assert (r.status_code, r.json()["message"], r.json()["statementText"]) == (400, f"line 1:13: {missing}",
                                                                                "SHOW STREAMS")
    for path, key in (("/query", "ksql"), ("/query-stream", "sql")):
        r = client.post(path, json={key: "SELECT * FROM S EMIT CHANGES"})
        assert r.status_code == 400, (path, r.text)
        assert r.json()["message"] == f"line 1:29: {missing}\nStatement: SELECT * FROM S EMIT CHANGES", path


def test_websocket_wants_the_semicolon_too(client: TestClient) -> None:
    import json
    from urllib.parse import quote

    from starlette.websockets import WebSocketDisconnect

    url = "/ws/query?request=" + quote(json.dumps({"ksql": "SELECT * FROM S EMIT CHANGES", "streamsProperties": {}}))
    with client.websocket_connect(url) as ws:
        assert "missing ';' at '<EOF>'" in json.loads(ws.receive_text())["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1003
