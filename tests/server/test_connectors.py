"""Connector statements as ksqlDB's connector pages type them, against a Kafka Connect REST API.

A small stand-in for a Connect worker (its REST endpoints: /connectors, /connectors/{name},
/connectors/{name}/status, /connector-plugins) runs in a thread; one ``ksqlpy server`` is configured with
``ksql.connect.url`` pointing at it, another without, which refuses every connector statement with the
same message naming the setting.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.timeout(120)


class FakeConnect(BaseHTTPRequestHandler):
    connectors: dict[str, dict[str, Any]] = {}
    calls: list[tuple[str, str, Any]] = []
    listed_only: set[str] = set()            # listed by /connectors, but describing them fails (500)
    topics_fail: set[str] = set()            # /connectors/{name}/topics fails (500)
    states: dict[str, tuple[str, list[str]]] = {}  # connector state and its tasks' states (default RUNNING, [RUNNING])

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any = None) -> None:
        raw = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.calls.append(("GET", self.path, None))
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if parts == ["connectors"]:
            return self._send(200, sorted(self.connectors) + sorted(self.listed_only))
        if len(parts) >= 2 and parts[0] == "connectors" and parts[1] in self.listed_only:
            return self._send(500, {"error_code": 500, "message": "Request timed out"})
        if parts == ["connector-plugins"]:
            return self._send(200, [{"class": "io.example.FileSource", "type": "source", "version": "1.0"}])
        if len(parts) >= 2 and parts[0] == "connectors":
            c = self.connectors.get(parts[1])
            if c is None:
                return self._send(404, {"error_code": 404, "message": f"Connector {parts[1]} not found"})
            if len(parts) == 3 and parts[2] == "topics":  # the topics Connect tracked the connector using
                if parts[1] in self.topics_fail:
                    return self._send(500, {"error_code": 500, "message": "Topic tracking is disabled."})
                used = c["config"].get("topics") or c["config"].get("topic") or ""
                return self._send(200, {parts[1]: {"topics": [t for t in used.split(",") if t]}})
            if len(parts) == 3 and parts[2] == "status":
                state, tasks = self.states.get(parts[1], ("RUNNING", ["RUNNING"]))
                return self._send(200, {"name": parts[1], "connector": {"state": state, "worker_id": "w:8083"},
                                        "tasks": [{"id": i, "state": t, "worker_id": "w:8083"}
                                                  for i, t in enumerate(tasks)],
                                        "type": c["type"]})
            return self._send(200, c)
        return self._send(404, {"error_code": 404, "message": "Not found"})

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.calls.append(("POST", self.path, body))
        name = body["name"]
        if name in self.connectors:
            return self._send(409, {"error_code": 409, "message": f"Connector {name} already exists"})
        if "connector.class" not in body["config"]:
            return self._send(400, {"error_code": 400, "message": "Missing required configuration "
                                                                  "\"connector.class\" which has no default value."})
        kind = "source" if "Source" in body["config"]["connector.class"] else "sink"
        self.connectors[name] = {"name": name, "config": body["config"], "tasks": [], "type": kind}
        return self._send(201, self.connectors[name])

    def do_DELETE(self) -> None:  # noqa: N802
        self.calls.append(("DELETE", self.path, None))
        name = self.path.rsplit("/", 1)[-1]
        if self.connectors.pop(name, None) is None:
            return self._send(404, {"error_code": 404, "message": f"Connector {name} not found"})
        return self._send(204)


@pytest.fixture(scope="module")
def connect() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeConnect)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def with_connect(tmp_path_factory: pytest.TempPathFactory, connect: str) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("connect")), {"ksql.connect.url": connect})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def _ksql(server: ServerProcess, sql: str) -> httpx.Response:
    return httpx.post(server.url + "/ksql", json={"ksql": sql, "streamsProperties": {}}, timeout=30)


def test_connector_statements_go_to_connect(with_connect: ServerProcess) -> None:
    FakeConnect.connectors.clear()
    r = _ksql(with_connect, "CREATE SOURCE CONNECTOR `files` WITH (\n  'connector.class' = 'io.example.FileSource',\n"
                            "  'tasks.max' = 1,\n  \"file\" = '/tmp/in.txt',\n  'topic' = 'lines');")
    assert r.status_code == 200, r.text
    created = r.json()[0]
    assert created["@type"] == "connector_info" and created["info"]["name"] == "files"
    assert created["info"]["config"] == {"connector.class": "io.example.FileSource", "tasks.max": "1",
                                         "file": "/tmp/in.txt", "topic": "lines", "name": "files"}
    r = _ksql(with_connect, "CREATE SINK CONNECTOR IF NOT EXISTS out_sink WITH ('connector.class'='io.example.Sink',"
                            " 'topics'='lines');")
    assert r.json()[0]["@type"] == "connector_info"
    # an unquoted name is upper-cased like every identifier; IF NOT EXISTS on an existing connector: a warning, not an error; without it, Connect's message
    again = _ksql(with_connect, "CREATE SINK CONNECTOR IF NOT EXISTS out_sink WITH ('connector.class'='x.Sink');")
    assert again.json()[0] == {"@type": "warning_entity", "statementText": again.json()[0]["statementText"],
                               "message": "Connector OUT_SINK already exists", "warnings": []}
    # an existing connector is refused while validated (ksqlDB's ConnectExecutor.validate): 409, nothing posted
    posts = len([c for c in FakeConnect.calls if c[0] == "POST"])
    dup = _ksql(with_connect, "CREATE SINK CONNECTOR out_sink WITH ('connector.class'='x.Sink');")
    assert dup.status_code == 409 and dup.json() == {
        "@type": "generic_error", "error_code": 40900, "message": "Connector OUT_SINK already exists"}
    assert len([c for c in FakeConnect.calls if c[0] == "POST"]) == posts
    # an error Connect answers keeps Connect's status, as a generic_error with the code that status makes
    bad = _ksql(with_connect, "CREATE SOURCE CONNECTOR nothing WITH ('tasks.max'='1');")
    assert (bad.status_code, bad.json()["error_code"]) == (400, 40000)
    assert bad.json()["message"].startswith("Failed to create connector: Missing required")

    listed = _ksql(with_connect, "SHOW CONNECTORS;").json()[0]
    assert listed["@type"] == "connector_list"
    assert listed["connectors"] == [  # in the order Connect lists them
        {"name": "OUT_SINK", "type": "sink", "className": "io.example.Sink", "state": "RUNNING (1/1 tasks RUNNING)"},
        {"name": "files", "type": "source", "className": "io.example.FileSource",
         "state": "RUNNING (1/1 tasks RUNNING)"}]
    assert [c["name"] for c in _ksql(with_connect, "LIST SINK CONNECTORS;").json()[0]["connectors"]] == ["OUT_SINK"]
    assert [c["name"] for c in _ksql(with_connect, "SHOW SOURCE CONNECTORS;").json()[0]["connectors"]] == ["files"]
    plugins = _ksql(with_connect, "SHOW CONNECTOR PLUGINS;").json()[0]
    assert plugins["@type"] == "connector_plugins_list"
    assert plugins["connectorsPlugins"] == [{"className": "io.example.FileSource", "type": "source", "version": "1.0"}]

    _ksql(with_connect, "CREATE STREAM lines_s (line STRING) WITH (kafka_topic='lines', value_format='JSON', "
                        "partitions=1);")
    described = _ksql(with_connect, "DESCRIBE CONNECTOR out_sink;").json()[0]
    assert described["@type"] == "connector_description" and described["connectorClass"] == "io.example.Sink"
    assert described["topics"] == ["lines"] and [s["name"] for s in described["sources"]] == ["LINES_S"]
    assert described["status"]["connector"]["state"] == "RUNNING"
    missing = _ksql(with_connect, "DESCRIBE CONNECTOR nope;")
    assert missing.status_code == 404 and missing.json() == {
        "@type": "generic_error", "error_code": 40400, "message": "Failed to query connector: Connector NOPE not found"}

    # the shell prints these entities as the ksql CLI's connector tables
    from ksqlpy.cli.render import entity_lines

    shown = "\n".join(entity_lines(listed))
    assert "Connector Name" in shown and "Class" in shown and "OUT_SINK" in shown and "SINK" in shown
    assert "RUNNING (1/1 tasks RUNNING)" in shown
    assert "Created connector files" in "\n".join(entity_lines(created))
    assert "io.example.FileSource" in "\n".join(entity_lines(plugins))
    lines = entity_lines(described)
    i = lines.index(" KSQL Source Name | Kafka Topic | Type")
    assert lines[i + 2] == " LINES_S          | lines       | STREAM"
    i = lines.index(" Related Topics")
    assert lines[i + 2] == " lines"
    # Connect failing to list the topics: no topics, no sources, a warning
    FakeConnect.topics_fail.add("OUT_SINK")
    try:
        failed = _ksql(with_connect, "DESCRIBE CONNECTOR out_sink;").json()[0]
    finally:
        FakeConnect.topics_fail.clear()
    assert (failed["topics"], failed["sources"]) == ([], [])
    assert failed["warnings"] == [{"message": "Could not list related topics due to error: Topic tracking is "
                                              "disabled."}]
    assert "Related Topics" not in "\n".join(entity_lines(failed))
    dropped = _ksql(with_connect, "DROP CONNECTOR `files`;").json()[0]
    assert 'Dropped connector "files"' in "\n".join(entity_lines(dropped))
    assert dropped["@type"] == "drop_connector" and dropped["connectorName"] == "files"
    gone = _ksql(with_connect, "DROP CONNECTOR IF EXISTS `files`;").json()[0]
    assert gone["@type"] == "warning_entity" and gone["message"] == "Connector files does not exist."
    again = _ksql(with_connect, "DROP CONNECTOR `files`;")
    assert (again.status_code, again.json()["error_code"]) == (404, 40400)
    assert again.json()["message"].startswith("Failed to drop connector:")
    # a request is validated as a whole before anything runs: nothing reaches Connect when a later
    # statement fails
    before = len(FakeConnect.calls)
    r = _ksql(with_connect, "CREATE SOURCE CONNECTOR c2 WITH ('connector.class'='io.example.FileSource'); "
                            "DROP STREAM no_such_stream;")
    assert r.status_code == 400 and not [c for c in FakeConnect.calls[before:] if c[0] != "GET"]


def test_show_connectors_summarizes_states_and_warns_of_what_it_cannot_describe(with_connect: ServerProcess) -> None:
    """ksqlDB's ListConnectorsExecutor: a connector not RUNNING shows its state alone, a running one without
    tasks RUNNING, with tasks how many run; one Connect fails to describe is a warning, and listing all
    connectors a row of type unknown with no class and no state."""
    FakeConnect.connectors.clear()
    for name, cls in (("a_src", "io.example.FileSource"), ("b_sink", "io.example.Sink"),
                      ("c_src", "io.example.OtherSource"), ("d_sink", "io.example.Sink")):
        kind = "source" if "Source" in cls else "sink"
        FakeConnect.connectors[name] = {"name": name, "config": {"connector.class": cls}, "tasks": [], "type": kind}
    FakeConnect.states.update({"a_src": ("PAUSED", ["PAUSED"]), "b_sink": ("RUNNING", ["RUNNING", "FAILED"]),
                               "c_src": ("RUNNING", [])})
    FakeConnect.listed_only.add("e_gone")
    try:
        listed = _ksql(with_connect, "SHOW CONNECTORS;").json()[0]
        assert listed["connectors"] == [
            {"name": "a_src", "type": "source", "className": "io.example.FileSource", "state": "PAUSED"},
            {"name": "b_sink", "type": "sink", "className": "io.example.Sink", "state": "RUNNING (1/2 tasks RUNNING)"},
            {"name": "c_src", "type": "source", "className": "io.example.OtherSource", "state": "RUNNING"},
            {"name": "d_sink", "type": "sink", "className": "io.example.Sink", "state": "RUNNING (1/1 tasks RUNNING)"},
            {"name": "e_gone", "type": "unknown", "className": None, "state": None}]
        assert listed["warnings"] == [{"message": "Could not describe connector e_gone: Request timed out"}]
        sinks = _ksql(with_connect, "SHOW SINK CONNECTORS;").json()[0]
        assert [c["name"] for c in sinks["connectors"]] == ["b_sink", "d_sink"]  # no unknown row in a scope
        assert sinks["warnings"] == listed["warnings"]
        # the shell: an unknown connector's type is UNKNOWN, its class and state empty cells
        from ksqlpy.cli.render import entity_lines

        row = entity_lines(listed)[-2]
        assert [c.strip() for c in row.split("|")] == ["e_gone", "UNKNOWN", "", ""]
    finally:
        FakeConnect.states.clear()
        FakeConnect.listed_only.clear()
        FakeConnect.connectors.clear()


def test_without_connect_url_the_statements_go_to_ksqldbs_default() -> None:
    """ksql.connect.url defaults to http://localhost:8083, as ksqlDB's KsqlConfig: unset, the statements are
    sent there."""
    from ksqlpy.engine.connectors import connect_url

    class Unset:
        def effective_properties(self) -> dict[str, str]:
            return {}

    class Set:
        def effective_properties(self) -> dict[str, str]:
            return {"ksql.connect.url": "http://connect:8083/"}

    assert connect_url(Unset()) == "http://localhost:8083"  # type: ignore[arg-type]
    assert connect_url(Set()) == "http://connect:8083"  # type: ignore[arg-type]


UNREACHABLE_CAUSE = ("Caused by: Could not connect to the server. Please check the server details are\n"
                     "\tcorrect and that the server is running.")


def test_unreachable_connect_is_a_clear_error(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A Connect cluster that cannot be reached: CREATE ... CONNECTOR fails while validated (ksqlDB's
    ConnectExecutor.validate lists the connectors first; RequestValidator makes the KsqlServerException a
    statement error, 40001); the other connector statements are not validated and fail when they run, a
    generic_error 40000. IF [NOT] EXISTS changes nothing: Connect must be asked."""
    from ksqlpy.testing.server_process import free_port

    url = f"http://127.0.0.1:{free_port()}"
    proc = ServerProcess(str(tmp_path_factory.mktemp("noconnect")), {"ksql.connect.url": url})
    proc.start()
    try:
        for sql in ("CREATE SOURCE CONNECTOR c WITH ('connector.class'='x');",
                    "CREATE SINK CONNECTOR IF NOT EXISTS c WITH ('connector.class'='x');"):
            r = _ksql(proc, sql)
            assert r.status_code == 400, sql
            body = r.json()
            assert (body["@type"], body["error_code"], body["statementText"], body["entities"]) == (
                "statement_error", 40001, sql, []), sql
            assert body["message"].startswith(f"Could not connect to the Kafka Connect cluster at {url}: "), sql
            assert body["message"].endswith("\n" + UNREACHABLE_CAUSE), sql
        for sql in ("DROP CONNECTOR c;", "DROP CONNECTOR IF EXISTS c;", "SHOW CONNECTORS;",
                    "LIST SOURCE CONNECTORS;", "SHOW SINK CONNECTORS;", "SHOW CONNECTOR PLUGINS;",
                    "DESCRIBE CONNECTOR c;"):
            r = _ksql(proc, sql)
            assert r.status_code == 400, sql
            body = r.json()
            assert set(body) == {"@type", "error_code", "message"}, sql
            assert (body["@type"], body["error_code"]) == ("generic_error", 40000), sql
            assert body["message"].startswith(f"Could not connect to the Kafka Connect cluster at {url}: "), sql
            assert body["message"].endswith("\n" + UNREACHABLE_CAUSE), sql
        # in a request of several statements, CREATE ... CONNECTOR fails the validation: nothing runs
        r = _ksql(proc, "CREATE STREAM s1 (v STRING) WITH (kafka_topic='s1', value_format='JSON', partitions=1); "
                        "CREATE SOURCE CONNECTOR c WITH ('connector.class'='x');")
        assert r.status_code == 400 and r.json()["@type"] == "statement_error" and r.json()["entities"] == []
        assert r.json()["statementText"] == "CREATE SOURCE CONNECTOR c WITH ('connector.class'='x');"
        assert "S1" not in [s["name"] for s in _ksql(proc, "SHOW STREAMS;").json()[0]["streams"]]
    finally:
        proc.stop()
