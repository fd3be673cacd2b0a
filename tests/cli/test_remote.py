"""The remote backend against a stand-in for ksqlDB's REST API (httpx MockTransport).

These pin the wire format the shell speaks (reference §1); the pty tests run the same shell
against a real ``ksqlpy server`` once it exists.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from ksqlpy.cli.backend import BackendError  # noqa: E402
from ksqlpy.cli.console import Console  # noqa: E402
from ksqlpy.cli.remote import KSQL_JSON, RemoteBackend  # noqa: E402
from ksqlpy.cli.session import Session  # noqa: E402


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[tuple[str, Any]] = []
        self.closed: list[str] = []

    def __call__(self, request: Any) -> Any:
        path = request.url.path
        body = json.loads(request.content) if request.content else None
        self.requests.append((path, body))
        assert request.headers["authorization"].startswith("Basic ")
        if path == "/info":
            return httpx.Response(200, json={"KsqlServerInfo": {"version": "0.29.0", "serverStatus": "RUNNING"}})
        if path.startswith("/is_valid_property/"):
            if path.endswith("/bad.prop"):
                return httpx.Response(400, json={"@type": "generic_error", "error_code": 40000,
                                                 "message": "Not recognizable as ksql, streams, consumer, or "
                                                            "producer property: 'bad.prop'"})
            return httpx.Response(200, json=True)
        if path == "/ksql":
            sql = body["ksql"]
            if sql.startswith("SELEC "):
                return httpx.Response(400, json={"@type": "statement_error", "error_code": 40001,
                                                 "message": "line 1:1: Syntax Error", "statementText": sql,
                                                 "entities": []})
            if sql.startswith("SHOW STREAMS EXTENDED"):
                return httpx.Response(200, json=[{"@type": "source_descriptions", "sourceDescriptions": [
                    {"name": "PV", "type": "STREAM", "fields": [{"name": "ID"}, {"name": "PAGE"}]}]}])
            return httpx.Response(200, json=[{
                "@type": "currentStatus", "statementText": sql, "commandId": "stream/PV/create",
                "commandStatus": {"status": "SUCCESS", "message": "Stream created", "queryId": None},
                "commandSequenceNumber": 2, "warnings": []}])
        if path == "/query-stream":
            assert request.headers["accept"] == KSQL_JSON
            elements = [{"header": {"queryId": "transient_PV_1", "schema": "`ID` INTEGER, `PAGE` STRING"}},
                        {"row": {"columns": [1, "home"]}}, {"row": {"columns": [2, "about"]}}]
            if "LIMIT" in body["sql"]:
                elements.append({"finalMessage": "Limit Reached"})
            body_lines = ",\n".join(json.dumps(x) for x in elements)
            return httpx.Response(200, content=iter([(f"[{body_lines}" + ("]" if "LIMIT" in body["sql"] else ",\n"))
                                                     .encode()]), headers={"content-type": KSQL_JSON})
        if path == "/close-query":
            self.closed.append(body["queryId"])
            return httpx.Response(200)
        if path == "/query":
            text = "Key format: KAFKA_INT\nValue format: JSON or KAFKA_STRING\n\n" \
                   'rowtime: 2024/01/01 00:00:00.000 Z, key: 1, value: {"A":1}, partition: 0\n'
            return httpx.Response(200, content=iter([text.encode()]))
        return httpx.Response(404, text="Not Found")


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


@pytest.fixture
def backend(server: FakeServer) -> RemoteBackend:
    return RemoteBackend("http://ksql:8088", "alice", "secret", transport=httpx.MockTransport(server))


def session_for(backend: RemoteBackend) -> tuple[Session, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Session(backend, Console(out, err, color=False)), out, err


def test_info_and_statements_carry_session_properties(backend: RemoteBackend, server: FakeServer) -> None:
    assert backend.server_info()["version"] == "0.29.0"
    session, out, _ = session_for(backend)
    assert session.run_entry("SET 'auto.offset.reset'='earliest'; CREATE STREAM pv (id INT) WITH (x='y');")
    assert "Stream created" in out.getvalue()
    assert ("/is_valid_property/auto.offset.reset", None) in server.requests
    path, body = server.requests[-1]
    assert path == "/ksql"
    assert body == {"ksql": "CREATE STREAM pv (id INT) WITH (x='y');",
                    "streamsProperties": {"auto.offset.reset": "earliest"}}
    session.run_entry("SHOW STREAMS;")  # later requests wait for the command the server reported
    assert server.requests[-1][1]["commandSequenceNumber"] == 2


def test_rejected_property(backend: RemoteBackend) -> None:
    session, _, err = session_for(backend)
    assert not session.run_entry("SET 'bad.prop'='1';")
    assert "Not recognizable" in err.getvalue()
    assert session.properties == {}


def test_unknown_property_the_server_accepts(backend: RemoteBackend, server: FakeServer) -> None:
    """/is_valid_property consults only the server's denylist; the CLI itself refuses a name it cannot place."""
    session, _, err = session_for(backend)
    assert not session.run_entry("SET 'ksql.foo.bar'='1';")
    assert ("/is_valid_property/ksql.foo.bar", None) in server.requests
    assert "Not recognizable as ksql, streams, consumer, or producer property: 'ksql.foo.bar'" in err.getvalue()
    assert session.properties == {}


def test_error_envelope_with_position(backend: RemoteBackend) -> None:
    session, _, err = session_for(backend)
    # SELEC is not SELECT: it goes to /ksql, which answers with a statement_error
    assert not session.run_entry("SELEC 1 FROM x;")
    lines = err.getvalue().splitlines()
    assert lines[0] == "line 1:1: Syntax Error"
    assert lines[-1] == "    ^"


def test_query_stream_rows_and_close(backend: RemoteBackend, server: FakeServer) -> None:
    stream = backend.query("SELECT * FROM pv EMIT CHANGES LIMIT 2;", {"auto.offset.reset": "earliest"})
    assert stream.query_id == "transient_PV_1"
    assert stream.column_names == ["ID", "PAGE"]
    assert list(stream.rows()) == [[1, "home"], [2, "about"]]
    assert stream.final_message == "Limit Reached"
    path, body = next(r for r in server.requests if r[0] == "/query-stream")
    assert body == {"sql": "SELECT * FROM pv EMIT CHANGES LIMIT 2;", "properties": {"auto.offset.reset": "earliest"}}
    stream2 = backend.query("SELECT * FROM pv EMIT CHANGES;", {})
    next(iter(stream2.rows()))
    stream2.close()
    assert server.closed == ["transient_PV_1"]


def test_session_renders_remote_query_and_print(backend: RemoteBackend) -> None:
    session, out, _ = session_for(backend)
    assert session.run_entry("SELECT * FROM pv EMIT CHANGES LIMIT 2;")
    text = out.getvalue()
    assert "|1 " in text and "|about" in text and text.splitlines()[-2:] == ["Limit Reached", "Query terminated"]
    assert session.run_entry("PRINT 'pv' FROM BEGINNING;")
    assert 'key: 1, value: {"A":1}, partition: 0' in out.getvalue()
    assert out.getvalue().rstrip().endswith("Topic printing ceased")


def test_completion_data_is_cached_until_the_catalog_changes(backend: RemoteBackend, server: FakeServer) -> None:
    assert [s.name for s in backend.sources()] == ["PV"]
    n = len(server.requests)
    backend.sources()
    assert len(server.requests) == n
    session, _, _ = session_for(backend)
    session.run_entry("DROP STREAM pv;")
    backend.sources()
    assert len(server.requests) == n + 2


def test_unreachable_server() -> None:
    def refuse(request: Any) -> Any:
        raise httpx.ConnectError("connection refused")

    backend = RemoteBackend("http://nowhere:1", transport=httpx.MockTransport(refuse))
    assert "authorization" not in backend.client.headers
    with pytest.raises(BackendError, match="Could not reach the server"):
        backend.server_info()


def test_run_script_is_one_ksql_request(backend: RemoteBackend, server: FakeServer, tmp_path: Any) -> None:
    """ksqlDB's shell sends a script's statements as one /ksql request; a SELECT in it is refused first."""
    session, out, err = session_for(backend)
    script = tmp_path / "s.sql"
    script.write_text("CREATE STREAM pv (id INT) WITH (x='y');\nDROP STREAM pv;\n")
    assert session.run_entry(f"RUN SCRIPT '{script}';")
    assert [r for r in server.requests if r[0] == "/ksql"][-1][1]["ksql"] == script.read_text()
    sent = len(server.requests)
    script.write_text("CREATE STREAM pv (id INT) WITH (x='y');\nSELECT * FROM pv;\n")
    assert not session.run_entry(f"RUN SCRIPT '{script}';")
    assert len(server.requests) == sent and "websocket endpoint '/query'" in err.getvalue()


def test_request_pipelining_stops_waiting_for_earlier_commands(backend: RemoteBackend, server: FakeServer) -> None:
    """OFF (the default) each request names the last command seen; ON requests carry no commandSequenceNumber;
    the command shows and sets the mode as ksqlDB's CLI prints it."""
    session, out, err = session_for(backend)
    assert session.run_entry("CREATE STREAM pv (id INT) WITH (x='y');")
    assert session.run_entry("request-pipelining")
    assert "Current request-pipelining value: OFF" in out.getvalue()
    session.run_entry("SHOW STREAMS;")
    assert server.requests[-1][1]["commandSequenceNumber"] == 2
    assert session.run_entry("REQUEST-PIPELINING on;")
    assert "request-pipelining set to ON" in out.getvalue()
    session.run_entry("SHOW STREAMS;")
    assert "commandSequenceNumber" not in server.requests[-1][1]
    assert session.run_entry("request-pipelining")
    assert "Current request-pipelining value: ON" in out.getvalue()
    assert not session.run_entry("request-pipelining maybe")
    assert "Invalid request-pipelining setting: maybe. Valid options are 'ON' and 'OFF'." in err.getvalue()
    assert session.run_entry("request-pipelining OFF")
    session.run_entry("SHOW STREAMS;")
    assert server.requests[-1][1]["commandSequenceNumber"] == 2


def test_server_command_shows_and_switches_the_server(backend: RemoteBackend, server: FakeServer) -> None:
    """``server`` prints where statements go; ``server <url>`` talks to another server once it answers /info,
    with the same credentials, starting over its command sequence; the session's properties stay."""
    session, out, _ = session_for(backend)
    assert session.run_entry("SET 'auto.offset.reset'='earliest'; CREATE STREAM pv (id INT) WITH (x='y');")
    assert session.run_entry("server")
    assert out.getvalue().rstrip().endswith("http://ksql:8088")
    assert session.run_entry("server http://other:8089")
    assert "Server now: http://other:8089" in out.getvalue()
    assert server.requests[-1][0] == "/info"
    assert session.run_entry("SHOW STREAMS;")
    path, body = server.requests[-1]
    assert path == "/ksql" and "commandSequenceNumber" not in body  # nothing seen from this server yet
    assert body["streamsProperties"] == {"auto.offset.reset": "earliest"}
    assert session.backend.location == "http://other:8089"


def test_server_command_keeps_the_server_when_the_new_one_is_not_there(backend: RemoteBackend) -> None:
    def nowhere(request: Any) -> Any:
        raise httpx.ConnectError("refused", request=request)

    switched = RemoteBackend("http://ksql:8088", transport=httpx.MockTransport(nowhere))
    session, _, err = session_for(switched)
    assert not session.run_entry("server http://gone:1")
    assert "Could not reach the server at http://gone:1" in err.getvalue()
    assert session.backend is switched
