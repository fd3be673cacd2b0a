"""One request-reading rule for every endpoint (server/models.py) and /query's refusal of statements that
are not queries - unit by unit, and against a real server over HTTP/1.1 and HTTP/2 with both JSON content
types."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ksqlpy.server.models import (
    BodyError,
    CloseQueryArgs,
    HeartbeatMessage,
    KsqlRequest,
    QueryStreamArgs,
    TerminateArgs,
    parse_body,
)
from ksqlpy.server.statement_classes import java_class

CONTENT_TYPES = ["application/json", "application/vnd.ksql.v1+json"]
# every endpoint that reads a JSON body (/inserts-stream reads its header line by the same rule)
BODY_ENDPOINTS = ["/ksql", "/query", "/query-stream", "/close-query", "/ksql/terminate", "/heartbeat", "/lag"]
PREFIX = "Invalid JSON in request: "


def _error(r: Any) -> dict[str, Any]:
    assert r.status_code == 400, (r.status_code, r.text)
    body = r.json()
    assert body["@type"] == "generic_error" and body["error_code"] == 40000, body
    return body


# ---------------------------------------------------------------------------- the rule, unit by unit

@pytest.mark.parametrize("raw, detail", [
    (b"", "No content to map due to end-of-input"),
    (b"   ", "No content to map due to end-of-input"),
    (b"[]", "Cannot deserialize value of type `io.confluent.ksql.rest.entity.KsqlRequest` from Array value"),
    (b'"x"', "Cannot deserialize value of type `io.confluent.ksql.rest.entity.KsqlRequest` from String value"),
    (b"5", "Cannot deserialize value of type `io.confluent.ksql.rest.entity.KsqlRequest` from Integer value"),
    (b"null", "Cannot deserialize value of type `io.confluent.ksql.rest.entity.KsqlRequest` from Null value"),
    (b'{"ksql":["a"]}', "Cannot deserialize value of type `java.lang.String` from Array value"),
    (b'{"ksql":{}}', "Cannot deserialize value of type `java.lang.String` from Object value"),
    (b'{"ksql":"x","streamsProperties":"p"}', "Cannot deserialize value of type `java.util.Map"),
    (b'{"ksql":"x","sessionVariables":[1]}', "Cannot deserialize value of type `java.util.Map"),
    (b'{"ksql":"x","commandSequenceNumber":"ten"}', 'Cannot deserialize value of type `java.lang.Long` from String "ten"'),
    (b'{"ksql":"x","commandSequenceNumber":true}', "Cannot deserialize value of type `java.lang.Long` from Boolean"),
])
def test_unreadable_bodies(raw: bytes, detail: str) -> None:
    with pytest.raises(BodyError) as e:
        parse_body(raw, KsqlRequest)
    assert e.value.detail.startswith(detail) and e.value.message == PREFIX + e.value.detail
    assert e.value.error_code == 40000 and e.value.status == 400
    if b'{"ksql":"x"' in raw or b'{"ksql":[' in raw or b'{"ksql":{' in raw:  # a field names its place
        assert 'through reference chain: io.confluent.ksql.rest.entity.KsqlRequest["' in e.value.detail


def test_malformed_json_names_its_place() -> None:
    for raw in (b"{bad", b'{"ksql": "x"', b'{"ksql": "x",}', b"\xff"):
        with pytest.raises(BodyError) as e:
            parse_body(raw, KsqlRequest)
        assert e.value.message.startswith(PREFIX) and "[line: 1, column: " in e.value.detail


def test_scalars_read_as_jackson_reads_them() -> None:
    """Numbers and booleans where text is expected are their text; a numeric string or a float where a
    number is expected is that number; null or absent is the default."""
    assert parse_body(b'{"ksql": 5}', KsqlRequest).ksql == "5"
    assert parse_body(b'{"ksql": true}', KsqlRequest).ksql == "true"
    assert parse_body(b'{"ksql": null}', KsqlRequest).ksql == ""
    assert parse_body(b'{}', KsqlRequest).ksql == ""
    req = parse_body(b'{"ksql":"x","commandSequenceNumber":"12","streamsProperties":null,"other":[1]}', KsqlRequest)
    assert req.commandSequenceNumber == 12 and req.streamsProperties == {}
    assert parse_body(b'{"ksql":"x","commandSequenceNumber":3.9}', KsqlRequest).commandSequenceNumber == 3
    assert parse_body(b'{"deleteTopicList":["a",1]}', TerminateArgs).deleteTopicList == ["a", "1"]
    assert parse_body(b'{"hostInfo":{"host":"h","port":1},"timestamp":"7"}', HeartbeatMessage).timestamp == 7


@pytest.mark.parametrize("model, field", [(QueryStreamArgs, "sql"), (CloseQueryArgs, "queryId")])
def test_required_properties(model: Any, field: str) -> None:
    for raw in (b"{}", json.dumps({field: None}).encode()):
        with pytest.raises(BodyError) as e:
            parse_body(raw, model)
        assert e.value.detail == f"Missing required creator property '{field}' (index 0)"


@pytest.mark.parametrize("sql, name", [
    ("SHOW STREAMS;", "ListStreams"), ("LIST TABLES;", "ListTables"), ("SHOW ALL TOPICS;", "ListTopics"),
    ("SHOW QUERIES EXTENDED;", "ListQueries"), ("SHOW PROPERTIES;", "ListProperties"),
    ("SHOW FUNCTIONS;", "ListFunctions"), ("SHOW TYPES;", "ListTypes"), ("SHOW VARIABLES;", "ListVariables"),
    ("SHOW SINK CONNECTORS;", "ListConnectors"), ("SHOW CONNECTOR PLUGINS;", "ListConnectorPlugins"),
    ("DESCRIBE S;", "ShowColumns"), ("DESCRIBE STREAMS EXTENDED;", "DescribeStreams"),
    ("DESCRIBE FUNCTION ABS;", "DescribeFunction"), ("EXPLAIN Q1;", "Explain"),
    ("CREATE STREAM X (A INT) WITH (kafka_topic='x', value_format='JSON');", "CreateStream"),
    ("CREATE TABLE X (A INT PRIMARY KEY) WITH (kafka_topic='x', value_format='JSON');", "CreateTable"),
    ("CREATE STREAM X AS SELECT * FROM S;", "CreateStreamAsSelect"),
    ("CREATE TABLE X AS SELECT A, COUNT(*) FROM S GROUP BY A;", "CreateTableAsSelect"),
    ("INSERT INTO X SELECT * FROM S;", "InsertInto"), ("INSERT INTO X (A) VALUES (1);", "InsertValues"),
    ("DROP STREAM X;", "DropStream"), ("DROP TABLE X;", "DropTable"), ("TERMINATE ALL;", "TerminateQuery"),
    ("PAUSE ALL;", "PauseQuery"), ("RESUME Q1;", "ResumeQuery"), ("CREATE TYPE T AS INT;", "RegisterType"),
    ("DROP TYPE T;", "DropType"), ("SET 'a'='b';", "SetProperty"), ("UNSET 'a';", "UnsetProperty"),
    ("ALTER STREAM X ADD COLUMN B INT;", "AlterSource"), ("ASSERT TOPIC t;", "AssertTopic"),
    ("SELECT * FROM S;", "Query"), ("PRINT t;", "PrintTopic"),
])
def test_java_class_per_statement_kind(sql: str, name: str) -> None:
    from ksqlpy import grammar

    [stmt] = grammar.parse(sql)
    assert java_class(stmt) == "io.confluent.ksql.parser.tree." + name


# ---------------------------------------------------------------------------- a real server

@pytest.mark.parametrize("content_type", CONTENT_TYPES)
@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS)
def test_malformed_body_on_every_endpoint(client: Any, endpoint: str, content_type: str) -> None:
    """The same 400/40000 on every endpoint, whatever the Content-Type (ksqlDB does not check it)."""
    for raw in (b"{bad", b"", b"[1]"):
        body = _error(client.post(endpoint, content=raw, headers={"Content-Type": content_type}))
        assert body["message"].startswith(PREFIX), (endpoint, raw, body)


def test_a_text_content_type_is_read_as_json(client: Any) -> None:
    r = client.post("/heartbeat", content=b'{"hostInfo":{"host":"h","port":1},"timestamp":1}',
                    headers={"Content-Type": "text/plain"})
    assert r.status_code == 200 and r.json() == {"isOk": True}


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
def test_ksql_field_absent_empty_or_wrong(client: Any, content_type: str) -> None:
    """``ksql`` absent, null, empty or blank: /query refuses it ('"ksql" field must be populated', its
    StreamedQueryResource's check); /ksql has no such check - no statement is parsed, so none is validated
    or run and the answer is ``200 []``, as for a ksql holding only comments. A number is read as its text
    (a statement that does not parse); an array or object refuses the body."""
    headers = {"Content-Type": content_type}
    nothing = ({}, {"ksql": None}, {"ksql": ""}, {"ksql": " \n\t "}, {"sql": "SHOW STREAMS;"})
    for body in nothing:
        r = client.post("/query", content=json.dumps(body), headers=headers)
        assert _error(r)["message"] == '"ksql" field must be populated', body
    for body in (*nothing, {"ksql": "-- only a comment"}, {"ksql": "/* a block */\n  -- and a line\n"}):
        r = client.post("/ksql", content=json.dumps(body), headers=headers)
        assert r.status_code == 200 and r.json() == [], (body, r.status_code, r.text)
    for endpoint in ("/ksql", "/query"):
        r = client.post(endpoint, content=b'{"ksql": 5}', headers=headers)
        assert r.status_code == 400 and r.json()["@type"] == "statement_error" and r.json()["statementText"] == "5"
        for wrong in (b'{"ksql": ["SHOW STREAMS;"]}', b'{"ksql": {"a": 1}}'):
            msg = _error(client.post(endpoint, content=wrong, headers=headers))["message"]
            assert msg.startswith(PREFIX + "Cannot deserialize value of type `java.lang.String`"), msg
    for body in ({}, {"sql": None}, {"ksql": "SELECT 1;"}):
        msg = _error(client.post("/query-stream", content=json.dumps(body), headers=headers))["message"]
        assert msg == PREFIX + "Missing required creator property 'sql' (index 0)"
    for body, n in (({"sql": ""}, 0), ({"sql": "   "}, 0), ({"sql": "-- nothing"}, 0),
                    ({"sql": "SELECT 1 FROM A; SELECT 2 FROM B;"}, 2), ({"sql": "SHOW STREAMS; SHOW TABLES;"}, 2)):
        r = client.post("/query-stream", json=body)
        assert r.status_code == 400 and r.json()["@type"] == "statement_error" and r.json()["error_code"] == 40001
        assert r.json()["message"] == f"Expected exactly one KSQL statement; found {n} instead"
    # /query looks at its first statement first: a non-query is refused as such, a query then counted
    two = client.post("/query", json={"ksql": "SHOW STREAMS; SELECT * FROM X;"})
    assert "not supported for this resource" in _error(two)["message"]
    r = client.post("/query", json={"ksql": "SELECT * FROM X; SHOW STREAMS;"})
    assert r.status_code == 400 and r.json()["message"] == "Expected exactly one KSQL statement; found 2 instead"


@pytest.mark.parametrize("sql", ["SHOW STREAMS;", "LIST TOPICS;", "DESCRIBE FUNCTION ABS;", "SHOW VARIABLES;",
                                 "CREATE STREAM QX (A INT) WITH (kafka_topic='qx', value_format='JSON', partitions=1);",
                                 "SET 'auto.offset.reset'='earliest';", "EXPLAIN NOPE;"])
def test_query_refuses_other_statements_naming_the_prepared_statement(client: Any, sql: str) -> None:
    """/query's refusal names ksqlDB's PreparedStatement wrapper, whatever the statement; nothing runs."""
    body = _error(client.post("/query", json={"ksql": sql}))
    assert body["message"] == ("Statement type `io.confluent.ksql.parser.KsqlParser$PreparedStatement' not "
                               "supported for this resource")
    streams = client.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]
    assert "QX" not in [s["name"] for s in streams]


def test_query_stream_refuses_other_statements_as_statement_errors(client: Any) -> None:
    r = client.post("/query-stream", json={"sql": "SHOW STREAMS;"})
    assert r.status_code == 400 and r.json()["@type"] == "statement_error" and r.json()["error_code"] == 40001


def test_variable_substitution_follows_the_request_properties(client: Any, unique: Any) -> None:
    """``ksql.variable.substitution.enable`` as each statement sees it: the request's overrides, then a SET
    or UNSET earlier in the request (ksqlDB prepares each statement with the session's properties then)."""
    s = unique("VS")
    create = f"CREATE STREAM {s} (ID INT KEY) WITH (kafka_topic='{s.lower()}', value_format='JSON', partitions=1);"
    assert client.post("/ksql", json={"ksql": create}).status_code == 200
    off = {"ksql.variable.substitution.enable": "false"}
    describe = f"DEFINE s = '{s}'; DESCRIBE ${{s}};"
    assert client.post("/ksql", json={"ksql": describe}).status_code == 200
    refused = [client.post("/ksql", json={"ksql": describe, "streamsProperties": off}),
               client.post("/ksql", json={"ksql": "SET 'ksql.variable.substitution.enable'='false'; " + describe})]
    for r in refused:
        assert r.status_code == 400 and r.json()["@type"] == "statement_error", r.text
    again = client.post("/ksql", json={"ksql": "UNSET 'ksql.variable.substitution.enable'; " + describe,
                                       "streamsProperties": off})
    assert again.status_code == 200 and again.json()[0]["sourceDescription"]["name"] == s
    # the query endpoints too, with their own properties field
    select = {"sql": "SELECT * FROM ${s};", "sessionVariables": {"S": s}}
    assert client.post("/query-stream", json=select).status_code == 200
    assert client.post("/query-stream", json=select | {"properties": off}).status_code == 400
    query = {"ksql": "SELECT * FROM ${s};", "sessionVariables": {"s": s}}
    assert client.post("/query", json=query, headers={"Accept": "application/json"}).status_code == 200
    assert client.post("/query", json=query | {"streamsProperties": off}).status_code == 400
