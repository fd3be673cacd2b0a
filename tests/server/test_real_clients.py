"""Published ksqlDB clients, used as their documentation shows, against a real ``ksqlpy server``.

- ``pyksql`` (PyPI; the ksql-python wrapper, imported as ``ksql``): /ksql and /query over urllib with no
  Accept header (the StreamedRow format), rows parsed line by line; /close-query. pip-installed into a cache
  directory of its own (see ``_client_dir``: its setup.py builds only without build isolation).
- ``ksqldb`` (PyPI): /ksql over requests, /query-stream and /inserts-stream over HTTP/2 (httpx), one JSON
  document per line.
- ``ksqldb-client`` (npm): everything over one HTTP/2 session; the delimited push/lookup handler parses each
  DATA frame as one JSON document. Needs node and npm (the package comes from tests/clients/package.json);
  skipped, with the reason, where either is missing or the registry cannot be reached.

- ``ksqldb-client`` (npm) again: its own integration suite (tests/index.spec.js in the package, mocha), unchanged.

- ``ksqldb-js`` (npm 1.1.2): /ksql, /query-stream over HTTP/1.1 with axios's ``Accept: application/json, text/plain,
  */*`` (the JSON array), push queries and /inserts-stream over HTTP/2 parsing each DATA frame as one JSON
  document, /status, /info, /healthcheck, /clusterStatus, /is_valid_property; ``terminateCluster``
  (/ksql/terminate) on a server of its own.

- ``ksqldb-client`` (PyPI 0.28.2a2): pydantic models over /ksql, /query (StreamedRow JSON), /query-stream,
  /close-query, /status, /info; every call is made.

- ``@cubejs-backend/ksql-driver`` (npm 1.7.43, Cube's driver; tests/clients/cube, installed without scripts): /ksql
  only - SHOW VARIABLES/TABLES/STREAMS, DESCRIBE of backquoted dashed names, a rollup built by CREATE TABLE ...
  AS SELECT in Cube's dialect, DROP TABLE ... DELETE TOPIC; every driver call that reaches the server.

- ``ksql-python-ng`` (PyPI 0.29.0.1, the maintained fork of ksql-python, module ``ksql``): /info, /ksql,
  the SQL builders, /query over HTTP/1.1 (httpx's ``Accept: */*``: the delimited format), /query-stream
  and /inserts-stream over HTTP/2, /close-query, its errors. It installs the same ``ksql`` module as
  pyksql, so it is pip-installed (no dependencies: requests, six and httpx are test extras) into a cache
  directory of its own and driven by tests/clients/ksql_python_ng_client.py in a subprocess with that
  directory first on PYTHONPATH; skipped, with the reason, where PyPI cannot be reached. Again as against
  Confluent Cloud (tests/clients/ksql_python_ng_secure.py): https, HTTP/2 by ALPN, an API key and secret.

- ``@confluentinc/ksqldb-graphql`` over ``@confluentinc/ksqldb-client`` (npm 0.2.4 each, Confluent's; tests/clients/
  confluent): GraphQL generated from SHOW STREAMS EXTENDED; SHOW TABLES EXTENDED over HTTP/1.1 /ksql, queries as
  pull and subscriptions as push queries over HTTP/2 /query-stream (``application/vnd.ksqlapi.delimited.v1``, the
  stream read in chunks split at newlines), mutations as INSERT INTO over HTTP/2 /ksql, runCommand. Both ship
  TypeScript only: the TypeScript compiler transpiles them at require time; the client's pinned
  ``@thi.ng/bitstream@1.1.10`` (gone from the registry, not imported by its code) is overridden to 1.1.43.

Not tested, with the reason: ``sku-availability-mcp`` (PyPI) posts to a Confluent Cloud endpoint written in its
code (it ignores the KSQLDB_ENDPOINT its README documents), and needs fastmcp's ~50 packages: its one request
(HTTP/1.1 /query-stream, ``application/vnd.ksql.v1+json``, basic auth, lines read as JSON) is what ksqldb-js and
ksql-python-ng send; ``jetblack-ksql-dbapi`` needs Python 3.12, and every release's wheel (0.1.0, the
one for this Python, too) lacks the grammar file its connection loads, ``_grammars/ksql.lark``, so
``connect()`` fails before any request; ``ksql`` 0.10.2 (PyPI) cannot be imported on Python 3.10+ (its
dependency ``hyper`` imports ``collections.Iterable``; ``hyper`` also pins h2 < 3, which Hypercorn cannot run
with, and the package installs the same ``ksql`` module as pyksql). ``@confluentinc/ksqldb-client`` is tested
through the GraphQL bindings (its two functions are all they use).
Client defects that fail against ksqlDB as well are asserted as such below (pyksql's HTTP/2 query passes
``body=`` to ``httpx.request``; its inserts_stream posts over HTTP/1.1, which ksqlDB refuses with 40004).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.timeout(180)

CLIENTS_DIR = Path(__file__).resolve().parent.parent / "clients"


def _wait_for(check: Any, timeout_s: float = 15.0) -> Any:
    end = time.monotonic() + timeout_s
    while True:
        got = check()
        if got or time.monotonic() > end:
            return got
        time.sleep(0.1)


# ---------------------------------------------------------------------------------------------- pyksql
PYKSQL = "pyksql==0.11.0"


def _client_dir(spec: str) -> Path:
    """A pinned client package pip-installed (no dependencies) into a cache directory of its own.

    Not a test extra: pyksql's setup.py imports pip and ``wheel``, which an isolated build environment lacks,
    so it installs only with ``--no-build-isolation`` (setuptools and wheel are test extras); and
    ksql-python-ng installs the same ``ksql`` module. Skipped only when PyPI cannot be reached."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ksqlpy-test-clients" / \
        spec.replace("==", "-")
    if not (cache / "ksql" / "client.py").exists():
        work = cache.with_name(cache.name + ".tmp")
        shutil.rmtree(work, ignore_errors=True)
        try:
            done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                                   "--no-build-isolation", "--target", str(work), spec],
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.skip(f"pip install {spec} timed out (is PyPI reachable?)")
        unreachable = ("NewConnectionError", "Max retries exceeded", "No matching distribution")
        if done.returncode != 0 and any(m in done.stderr for m in unreachable):
            pytest.skip(f"pip install {spec}: PyPI cannot be reached: {done.stderr[-300:]}")
        assert done.returncode == 0, f"pip install {spec} failed: {done.stderr[-1500:]}"
        shutil.rmtree(cache, ignore_errors=True)
        work.rename(cache)
    return cache


@pytest.fixture(scope="session")
def pyksql() -> Path:
    """pyksql's ``ksql`` module, importable in this process (ksql-python-ng runs in a subprocess of its own)."""
    where = _client_dir(PYKSQL)
    if str(where) not in sys.path:
        sys.path.insert(0, str(where))
    return where


def test_pyksql_statements_push_pull_and_close(server: ServerProcess, unique: Any, pyksql: Path) -> None:
    from ksql import KSQLAPI
    from ksql.errors import KSQLError

    s, t = unique("PK"), unique("PKT")
    client = KSQLAPI(server.url)
    assert client.get_ksql_version() == "0.29.0"
    created = client.ksql(f"CREATE STREAM {s} (id VARCHAR KEY, page VARCHAR, n INT) "
                          f"WITH (KAFKA_TOPIC='{s.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1)")
    assert created[0]["@type"] == "currentStatus" and created[0]["commandStatus"]["status"] == "SUCCESS"
    assert client.ksql(f"INSERT INTO {s} (id, page, n) VALUES ('a', 'home', 1)") == []
    assert client.ksql(f"INSERT INTO {s} (id, page, n) VALUES ('b', 'cart', 2)") == []
    # the builder's CREATE STREAM over an existing topic
    assert client.create_stream(table_name=f"{s}_V", columns_type=["id varchar", "page varchar"],
                                topic=s.lower(), value_format="JSON") is True
    # /query with no Accept header: the StreamedRow array, one element per line; the prefixed
    # property name is the same property as the bare one
    lines = list(client.query(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2",
                              stream_properties={"ksql.streams.auto.offset.reset": "earliest"}))
    assert lines[0].startswith('[{"header":{"queryId":"transient_') and lines[0].endswith("},\n")
    assert [json.loads(x.rstrip(",\n]")) for x in lines[1:]] == [
        {"row": {"columns": ["a", "home", 1]}}, {"row": {"columns": ["b", "cart", 2]}},
        {"finalMessage": "Limit Reached"}]
    objects = list(client.query(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2",
                                stream_properties={"auto.offset.reset": "earliest"}, return_objects=True))
    assert objects == [{"ID": "a", "PAGE": "home", "N": 1}, {"ID": "b", "PAGE": "cart", "N": 2}]
    client.ksql(f"CREATE TABLE {t} AS SELECT id, COUNT(*) AS c FROM {s} GROUP BY id",
                stream_properties={"ksql.streams.auto.offset.reset": "earliest"})
    rows = _wait_for(lambda: list(client.query(f"SELECT * FROM {t} WHERE id = 'b'", return_objects=True)))
    assert rows == [{"ID": "b", "C": 1}]
    assert list(client.query(f"SELECT * FROM {t} WHERE id = 'a'", return_objects=True)) == [{"ID": "a", "C": 1}]
    assert list(client.query(f"SELECT * FROM {s}", return_objects=True)) == [
        {"ID": "a", "PAGE": "home", "N": 1}, {"ID": "b", "PAGE": "cart", "N": 2}]
    # a push query without LIMIT ends when the client closes it
    lines_seen: list[str] = []
    gen = client.query(f"SELECT * FROM {s} EMIT CHANGES", stream_properties={"auto.offset.reset": "earliest"})

    def consume() -> None:
        for line in gen:
            lines_seen.append(line)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    assert _wait_for(lambda: len(lines_seen) >= 3)
    query_id = json.loads(lines_seen[0].lstrip("[").rstrip(",\n"))["header"]["queryId"]
    assert client.close_query(query_id) is True
    reader.join(15)
    assert not reader.is_alive()
    assert client.close_query(query_id) is False  # already gone: 400 "No query with id"
    # errors: the envelope's message and code
    with pytest.raises(KSQLError) as e:
        client.ksql(f"CREATE STREAM {s}_BAD (")
    assert e.value.error_code == 40001
    with pytest.raises(KSQLError) as e:
        client.ksql(f"SELECT * FROM {s}")
    assert e.value.error_code == 40002
    # client defects that fail against ksqlDB too: HTTP/2 query passes body= to httpx.request; inserts
    # over HTTP/1.1 are refused (ksqlDB: 40004, /inserts-stream is HTTP/2 only)
    with pytest.raises(TypeError):
        list(client.query(f"SELECT * FROM {s}", use_http2=True))
    assert client.inserts_stream(s, [json.dumps({"ID": "c"})])[0]["error_code"] == 40004
    client.ksql(f"DROP TABLE {t}")


# ---------------------------------------------------------------------------------------------- ksqldb
def test_ksqldb_http2_queries_inserts_and_close(server: ServerProcess, unique: Any) -> None:
    pytest.importorskip("ksqldb")
    from ksqldb import KSQLdbClient

    s, t = unique("KD"), unique("KDT")
    client = KSQLdbClient(server.url)
    props = {p["name"]: p for p in client.get_properties()}
    assert props["ksql.streams.auto.offset.reset"]["value"] == "latest"
    client.ksql(f"CREATE STREAM {s} (id VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='{s.lower()}', "
                "VALUE_FORMAT='JSON', PARTITIONS=1);")
    assert client.inserts_stream(s, [{"ID": "a", "V": 1}, {"ID": "b", "V": 2}]) == [
        {"status": "ok", "seq": 0}, {"status": "ok", "seq": 1}]
    header, *rows = client.query_sync(f"SELECT * FROM {s};")
    assert header["columnNames"] == ["ID", "V"] and rows == [["a", 1], ["b", 2]]
    client.ksql(f"CREATE TABLE {t} AS SELECT id, SUM(v) AS s FROM {s} GROUP BY id;",
                stream_properties={"auto.offset.reset": "earliest"})
    assert _wait_for(lambda: client.query_sync(f"SELECT * FROM {t} WHERE id = 'b';")[1:]) == [["b", 2]]
    for key, total in (("a", 1), ("b", 2), ("a", 1)):  # repeated lookups: the prepared path answers
        assert client.query_sync(f"SELECT * FROM {t} WHERE id = '{key}';")[1:] == [[key, total]]

    async def push() -> list[Any]:
        got: list[Any] = []
        async for item in client.query_async(f"SELECT * FROM {s} EMIT CHANGES;",
                                             stream_properties={"ksql.streams.auto.offset.reset": "earliest"}):
            got.append(item)
            if len(got) == 3:
                assert client.close_query(got[0]["queryId"]) is True
        return got

    got = asyncio.run(asyncio.wait_for(push(), 30))
    assert got[0]["queryId"].startswith("transient_") and got[1:] == [["a", 1], ["b", 2]]
    client.ksql(f"DROP TABLE {t};")


# ---------------------------------------------------------------------------------------------- node
def _npm_installed(where: Path, packages: tuple[str, ...], tmp_path_factory: pytest.TempPathFactory,
                  *npm_args: str) -> Path:
    """The npm project in ``where`` installed with ``npm ci`` (cached per lockfile), or a skip naming what is
    missing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the npm ksqlDB clients (not installed on this machine)")
    lock = (where / "package-lock.json").read_bytes()
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ksqlpy-test-clients" / \
        hashlib.sha256(lock).hexdigest()[:16]
    if not all((cache / "node_modules" / pkg / "package.json").exists() for pkg in packages):
        work = tmp_path_factory.mktemp("npm")
        for name in ("package.json", "package-lock.json"):
            shutil.copy(where / name, work / name)
        try:
            done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error", *npm_args], cwd=work,
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            pytest.skip("npm ci timed out (is the npm registry reachable?)")
        if done.returncode != 0:
            pytest.skip(f"npm ci failed (is the npm registry reachable?): {done.stderr[-500:]}")
        cache.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(cache / "node_modules", ignore_errors=True)
        shutil.copytree(work / "node_modules", cache / "node_modules", symlinks=True)
    return cache


@pytest.fixture(scope="session")
def node_clients(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/clients installed with npm (cached per lockfile), or a skip naming what is missing."""
    return _npm_installed(CLIENTS_DIR, ("ksqldb-client", "ksqldb-js", "mocha"), tmp_path_factory)


def test_node_ksqldb_client(server: ServerProcess, unique: Any, node_clients: Path) -> None:
    s = unique("NC")
    env = dict(os.environ, NODE_PATH=str(node_clients / "node_modules"))
    done = subprocess.run(["node", str(CLIENTS_DIR / "node_client.js"), str(server.port), s], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    steps: dict[str, list[Any]] = {}
    for line in done.stdout.splitlines():
        item = json.loads(line)
        steps.setdefault(item["step"], []).append(item["result"])
    assert steps["create"][0]["status"] == 200
    assert steps["create"][0]["data"]["rows"][0]["commandStatus"]["status"] == "SUCCESS"
    assert [r["data"]["rows"] for r in steps["insert"]] == [[{"status": "ok", "seq": 0}]] * 2
    assert steps["pull_stream"][0]["data"]["rows"] == [{"ID": "a", "V": 1}, {"ID": "b", "V": 2}]
    assert steps["pull_a"][0]["data"]["rows"] == [{"ID": "a", "S": 1}]
    assert steps["pull_b"][0]["data"]["rows"] == [{"ID": "b", "S": 2}]
    # the delimited handler's callback: the header, then one row per DATA frame
    assert steps["lookup_a"] == [[None, [{"ID": "a", "S": 1}]]] * 2
    assert steps["lookup_b"] == [[None, [{"ID": "b", "S": 2}]]]
    push = steps["push"][0]
    assert push["status"] == 200 and push["pushed"] == [None, [{"ID": "a", "V": 1}], [{"ID": "b", "V": 2}]]
    assert s in [x["name"] for x in steps["streams"][0]]
    assert f"{s}_T" in [x["name"] for x in steps["tables"][0]]
    assert steps["describe"][0]["name"] == s
    ctas = [q for q in steps["queries"][0] if q["sinks"] == [f"{s}_T"]]
    assert len(ctas) == 1 and ctas[0]["queryType"] == "PERSISTENT" and ctas[0]["id"].startswith(f"CTAS_{s}_T_")
    assert s.lower() in [x["name"] for x in steps["topics"][0]]
    # errors come back as the client reads them: the status and ksqlDB's error envelope
    bad = steps["bad"][0]
    assert bad["status"] == 400 and bad["error"]["error_code"] == 40001, bad
    assert bad["error"]["message"] == f"Stream {s}_NOPE does not exist."
    bad_query = steps["bad_query"][0]
    assert bad_query["status"] == 400 and bad_query["error"]["error_code"] == 40001, bad_query
    # session variables in the body of /ksql and /query-stream (the README's usage)
    words = f"{s}_W"
    created = steps["vars_create"][0]["data"]["rows"][0]
    # the variables substituted, reprinted by TopicCreateInjector (DistributingExecutor's injected text)
    assert created["statementText"] == (
        f"CREATE TABLE {words} WITH (CLEANUP_POLICY='compact', KAFKA_TOPIC='{words}', PARTITIONS=1, REPLICAS=1, "
        f"RETENTION_MS=604800000) AS SELECT\n  {s}.ID WORD,\n  COUNT(*) N\nFROM {s} {s}\nGROUP BY {s}.ID\n"
        "EMIT CHANGES;")
    assert created["commandStatus"]["queryId"].startswith(f"CTAS_{words}_")
    pulled = steps["vars_pull"][0]
    assert pulled["status"] == 200 and sorted(pulled["data"]["rows"], key=lambda r: r["WORD"]) == [
        {"WORD": "a", "N": 1}, {"WORD": "b", "N": 1}]
    pushed = steps["vars_push"][0]
    assert pushed["status"] == 200 and pushed["pushed"][0] == ["WORD", "N"]
    assert sorted(r[0]["WORD"] for r in pushed["pushed"][1:]) == ["a", "b"]
    unset = steps["vars_unset"][0]
    assert unset["status"] == 400 and unset["error"]["error_code"] == 40001 and "NOT_SET" in unset["error"]["message"]
    assert steps["vars_drop"][0]["data"]["rows"][0]["statementText"] == f"DROP TABLE {words};"
    assert steps["drop"][0]["status"] == 200


def test_node_ksqldb_client_own_integration_suite(tmp_path: Path, node_clients: Path) -> None:
    """ksqldb-client's own integration tests (tests/index.spec.js in its package, mocha, KSQLDB_HOST/KSQLDB_PORT)
    against a server of their own (they use fixed stream, table and topic names): session variables, IF NOT
    EXISTS, CTAS columns (KSQL_COL_0), inserts, pull and push queries at once, terminating push queries, the
    listings, its errors. The spec requires ``../src``, the sources its package compiles to ``lib``: a copy of the
    package gets ``src`` pointing at ``lib``. One test is left out: it connects to the host ``127.0.0.``, a name
    lookup off this machine."""
    package = tmp_path / "ksqldb-client"
    shutil.copytree(node_clients / "node_modules" / "ksqldb-client", package, symlinks=True)
    (package / "src").symlink_to("lib")
    proc = ServerProcess(str(tmp_path / "server")).start()
    try:
        env = dict(os.environ, NODE_PATH=str(node_clients / "node_modules"), KSQLDB_HOST="http://127.0.0.1",
                   KSQLDB_PORT=str(proc.port))
        done = subprocess.run([str(node_clients / "node_modules" / ".bin" / "mocha"), "tests/index.spec.js",
                               "--reporter", "json", "--grep", "invalid source", "--invert"], cwd=package, env=env,
                              capture_output=True, text=True, timeout=150)
    finally:
        proc.stop()
    report = json.loads(done.stdout)
    failed = [(t["fullTitle"], t["err"].get("message")) for t in report["failures"]]
    assert done.returncode == 0 and not failed, failed or done.stderr[-2000:]
    assert report["stats"]["passes"] == 27 and report["stats"]["pending"] == 0, report["stats"]


def test_node_ksqldb_js(server: ServerProcess, unique: Any, node_clients: Path) -> None:
    s = unique("KJ")
    env = dict(os.environ, NODE_PATH=str(node_clients / "node_modules"))
    done = subprocess.run(["node", str(CLIENTS_DIR / "ksqldb_js_client.js"), str(server.port), s], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    steps = {item["step"]: item["result"] for item in map(json.loads, done.stdout.splitlines())}
    assert steps["createStream"]["data"][0]["commandStatus"]["status"] == "SUCCESS"
    assert steps["createStreamAs"].startswith(f"CSAS_{s}_AS_")
    assert steps["createTableAs"]["data"][0]["commandStatus"]["queryId"].startswith(f"CTAS_{s}_T_")
    assert steps["push_id"].startswith("transient_")
    assert steps["insertStream"] == [{"status": "ok", "seq": 0}, {"status": "ok", "seq": 1}]
    # one JSON document per DATA frame: the header, then each row
    assert steps["pushed"][0]["queryId"] == steps["push_id"]
    assert steps["pushed"][1:] == [["jack", "123@mail.com", 25], ["john", "456@mail.com", 60]]
    assert steps["terminate"]["@type"] == "terminate_query" and steps["terminate"]["wasTerminated"] is True
    # pull answers in the JSON array axios parses: the header object first
    header, *rows = steps["pull_table"]
    assert header["columnNames"] == ["NAME", "RECENTAGE"] and sorted(rows) == [["jack", 25], ["john", 60]]
    assert steps["pull_key"][1:] == [["jack", 25]]
    assert steps["pull_stream"][1:] == [["jack", "123@mail.com", 25], ["john", "456@mail.com", 60]]
    # pullFromTo: SELECT *, CONVERT_TZ(FROM_UNIXTIME(ROWTIME), 'UTC', zone) AS DATE, ROWTIME FROM a stream
    assert [r[:3] for r in steps["pullFromTo"]] == [["jack", "123@mail.com", 25], ["john", "456@mail.com", 60]]
    assert all(isinstance(r[3], str) and r[3][4] == "-" and "T" in r[3] for r in steps["pullFromTo"])
    assert s in [x["name"] for x in steps["list"]["streams"]]
    assert steps["status"] == {"status": 200, "data": {"status": "SUCCESS", "message": "Stream created",
                                                       "queryId": None}}
    assert steps["info"]["data"]["KsqlServerInfo"]["serverStatus"] == "RUNNING"
    assert steps["health"]["data"]["isHealthy"] is True
    assert "clusterStatus" in steps["cluster"]["data"]
    assert steps["valid_property"] == {"status": 200, "data": True}
    # errors surface as the client's ksqlDBError with ksqlDB's message
    assert steps["bad_ksql"] == {"name": "ksqlDBError", "message": f"Stream {s}_NOPE does not exist."}
    assert steps["bad_pull"]["name"] == "ksqlDBError" and f"{s}_NOPE does not exist" in steps["bad_pull"]["message"]
    assert steps["drop"]["commandStatus"]["status"] == "SUCCESS"


def test_node_ksqldb_js_terminate_cluster(tmp_path: Path, node_clients: Path) -> None:
    """ksqldb-js's terminateCluster (POST /ksql/terminate with a deleteTopicList pattern), on a server of its own:
    the currentStatus answer, then the terminated server's 503 (50304) as the client's ksqlDBError."""
    proc = ServerProcess(str(tmp_path / "server")).start()
    try:
        env = dict(os.environ, NODE_PATH=str(node_clients / "node_modules"))
        done = subprocess.run(["node", str(CLIENTS_DIR / "ksqldb_js_terminate.js"), str(proc.port), "TJ"], env=env,
                              capture_output=True, text=True, timeout=120)
    finally:
        proc.stop()
    assert done.returncode == 0, done.stderr + done.stdout
    steps = {item["step"]: item["result"] for item in map(json.loads, done.stdout.splitlines())}
    assert steps["createStreamAs"].startswith("CSAS_TJ_GONE_") and steps["createStreamAsKept"].startswith("CSAS_TJ_KEPT")
    assert {"tj", "tj_gone", "tj_kept"} <= set(steps["topicsBefore"])
    assert steps["terminateCluster"] == {"status": 200, "data": [{
        "@type": "currentStatus", "statementText": "TERMINATE CLUSTER;", "commandId": "cluster/TerminateCluster/terminate",
        "commandStatus": {"status": "SUCCESS", "message": "Terminated KSQL cluster", "queryId": None},
        "commandSequenceNumber": -1, "warnings": []}]}
    assert steps["ksqlAfter"] == steps["healthAfter"] == {"name": "ksqlDBError", "message": "The server is shut down"}


@pytest.fixture(scope="session")
def cube_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/clients/cube installed with npm: scripts off, as the driver's native add-on downloads a prebuilt
    binary at install (which the driver does not load)."""
    return _npm_installed(CLIENTS_DIR / "cube", ("@cubejs-backend/ksql-driver",), tmp_path_factory, "--ignore-scripts")


def test_cube_ksql_driver(server: ServerProcess, unique: Any, cube_driver: Path) -> None:
    """Cube's ksqlDB driver builds a rollup as Cube does: ``schema.table`` kept as the backquoted
    ``schema-table``, CREATE TABLE ... WITH (KEY_FORMAT='JSON') AS SELECT in its dialect (aliases without AS,
    FORMAT_TIMESTAMP/PARSE_TIMESTAMP/CONVERT_TZ, a GROUP BY of two expressions), then reads it back through
    SHOW TABLES/STREAMS and DESCRIBE (windowed too) and drops it."""
    prefix = unique("CB")
    schema = f"{prefix.lower()}_pre_aggregations"
    env = dict(os.environ, NODE_PATH=str(cube_driver / "node_modules"))
    done = subprocess.run(["node", str(CLIENTS_DIR / "cube_ksql_driver.js"), str(server.port), prefix], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    steps: dict[str, list[Any]] = {}
    for item in map(json.loads, done.stdout.splitlines()):
        steps.setdefault(item["step"], []).append(item["result"])
    one = {k: v[0] for k, v in steps.items()}
    assert one["testConnection"] == {"ok": True}
    for step in ("createSource", "createRaw", "load", "loadWindowed", "dropTable", "dropWindowed"):
        assert one[step]["ok"]["commandStatus"]["status"] == "SUCCESS", (step, one[step])
    assert one["load"]["ok"]["commandStatus"]["queryId"].startswith("CTAS_")
    assert steps["insert"] == [{}] * 3  # INSERT VALUES answers an empty list: the driver returns its undefined [0]
    assert one["fetchTables"]["ok"] == [{"tableName": "events_main", "tableSchema": schema,
                                         "fullTableName": f"{schema}-events_main"}]
    assert one["getTablesQuery"]["ok"] == [{"table_name": "events_main"}]
    fields = [("events__name", "STRING"), ("events__ts_day", "TIMESTAMP"), ("events__amount", "DOUBLE"),
              ("events__count", "BIGINT")]
    assert one["tablesSchema"]["ok"] == {"events_main": [{"name": n, "type": t} for n, t in fields]}
    types = [{"name": "events__name", "type": "text"}, {"name": "events__ts_day", "type": "TIMESTAMP"},
             {"name": "events__amount", "type": "DOUBLE"}, {"name": "events__count", "type": "bigint"}]
    assert one["tableColumnTypes"]["ok"] == types
    download = one["downloadTable"]["ok"]
    assert download["types"] == types and download["streamingTable"] == f"{schema}-events_main"
    assert download["partitions"] == 0  # DESCRIBE without EXTENDED describes no topic
    assert download["streamingSource"]["type"] == "ksql" and download["streamOffset"] == "earliest"
    header, *rows = one["rows"]["ok"]
    assert header["columnNames"] == [n for n, _ in fields]
    assert sorted(rows) == [["a", "2026-07-28T00:00:00.000", 4.0, 2], ["b", "2026-07-29T00:00:00.000", 4.0, 1]]
    results = one["downloadQueryResults"]["ok"]
    assert results["streamingTable"] == f"{prefix}_RAW"
    assert results["selectStatement"] == f"SELECT * FROM {prefix}_RAW WHERE NAME = 'a'"
    assert results["types"] == [{"name": "ID", "type": "int"}, {"name": "NAME", "type": "text"}]
    # the driver's own defect: a backquoted source is quoted twice (DESCRIBE ``x``), a syntax error in ksqlDB too
    quoted = one["downloadQueryResultsQuoted"]["error"]
    assert quoted.startswith(f"ksql API error for 'DESCRIBE ``{prefix.lower()}-events``;': line 1:"), quoted
    assert [c["name"] for c in one["windowedColumnTypes"]["ok"]] == \
        ["events__name", "WINDOWSTART", "WINDOWEND", "events__count"]
    assert one["selectRefused"]["error"].startswith("Select queries for ksql allowed only from Cube Store")
    assert one["describeMissing"]["error"] == (f"ksql API error for 'DESCRIBE `{schema}-nope`;': Could not find "
                                               f"STREAM/TABLE '{schema}-nope' in the Metastore")
    assert one["fetchTablesAfterDrop"]["ok"] == []
    assert one["dropSources"]["ok"] == ["SUCCESS", "SUCCESS"]


@pytest.fixture(scope="session")
def confluent_clients(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/clients/confluent installed with npm: Confluent's GraphQL bindings and HTTP/2 client, graphql and
    typescript (the packages ship TypeScript sources only)."""
    return _npm_installed(CLIENTS_DIR / "confluent", ("@confluentinc/ksqldb-graphql", "@confluentinc/ksqldb-client",
                                                      "graphql", "typescript"), tmp_path_factory)


def test_confluent_ksqldb_graphql(tmp_path: Path, confluent_clients: Path) -> None:
    """Confluent's @confluentinc/ksqldb-graphql over @confluentinc/ksqldb-client, as its README shows:
    generateGraphQL({ options }) builds the schema from SHOW STREAMS EXTENDED; SHOW TABLES EXTENDED (HTTP/1.1
    /ksql), queries are pull queries and subscriptions push queries (HTTP/2 /query-stream, the delimited format,
    ``select <fields> from <source> where <arg>='<v>'``), mutations INSERT INTO over HTTP/2 /ksql; runCommand.
    A server of its own: the schema takes every source on the server, and two struct columns of one name (in any
    two sources) make GraphQL types of one name, which the bindings refuse."""
    proc = ServerProcess(str(tmp_path / "server")).start()
    try:
        s = "RIDES"
        env = dict(os.environ, NODE_PATH=str(confluent_clients / "node_modules"))
        done = subprocess.run(["node", str(CLIENTS_DIR / "confluent_ksqldb_graphql.js"), str(proc.port), s], env=env,
                              capture_output=True, text=True, timeout=150)
    finally:
        proc.stop()
    assert done.returncode == 0, done.stderr + done.stdout
    steps = {item["step"]: item["result"] for item in
             (json.loads(line[2:]) for line in done.stdout.splitlines() if line.startswith("@@"))}
    for step in ("create", "ctas", "drop"):
        assert steps[step]["statusCode"] == 200, steps[step]
        assert steps[step]["data"][0]["commandStatus"]["status"] == "SUCCESS", steps[step]
    schema = steps["schema"]
    # a source some query writes is a Query; every source is a Subscription and a Mutation; INT, BIGINT and
    # DOUBLE are Float, arrays lists, structs object types (the processing log's nested ones too)
    assert "type Query {\n  RIDES_TOTALS(ID: String, TOTAL: Float, N: Float): RIDES_TOTALS\n}" in schema
    assert ("  RIDES(ID: String, V: Float, NAME: String, SCORE: Float, TAGS: [String]): KsqlDBMutation\n"
            in schema)
    assert "type RIDES {\n  ID: String\n  V: Float\n  NAME: String\n  SCORE: Float\n  TAGS: [String]\n  LOC: LOC\n}" \
        in schema
    assert "type LOC {\n  LAT: Float\n  LON: Float\n}" in schema
    assert "type DESERIALIZATIONERROR {\n  TARGET: String\n  ERRORMESSAGE: String\n  RECORDB64: String\n" in schema
    # mutations: the INSERT is sent and runs; the client's promise waits for a request-stream 'connect' event
    # Node's HTTP/2 streams do not emit (whatever the server answers), so it stays pending
    assert steps["mutations"] == ["pending"] * 3
    assert steps["insert"] == {"statusCode": 200, "data": []}
    # the subscription: one object per pushed row, keyed by the source's name; the stream the client closed
    # ends the push query (SHOW QUERIES lists it while it runs: the script waits for it)
    assert steps["pushed"] == [{"data": {s: {"ID": "b", "V": 2, "TAGS": None}}},
                               {"data": {s: {"ID": "b", "V": 3, "TAGS": None}}},
                               {"data": {s: {"ID": "b", "V": 4, "TAGS": ["x", "y"]}}}]
    assert steps["push_queries_after_close"] == []
    # queries: pull queries by key
    assert steps["query_b"] == {"data": {f"{s}_TOTALS": {"ID": "b", "TOTAL": 9, "N": 3}}}
    assert steps["query_a"] == {"data": {f"{s}_TOTALS": {"TOTAL": 1}}}
    assert sorted(x["name"] for x in steps["show_streams"]["data"][0]["streams"]) == ["KSQL_PROCESSING_LOG", s]
    assert steps["bad_command"] == {"statusCode": 400, "data": {
        "@type": "statement_error", "error_code": 40001, "message": f"Stream {s}_NOPE does not exist.",
        "statementText": f"DROP STREAM {s}_NOPE;", "entities": []}}


def test_pyksql_builder_statements_and_properties(server: ServerProcess, unique: Any, pyksql: Path,
                                                  tmp_path: Path) -> None:
    """The rest of pyksql's API: get_properties() (SHOW PROPERTIES' list), create_stream_as with its WHERE
    conditions, PARTITION BY and WITH properties, create_table (its legacy KEY property is refused, as by
    ksqlDB), an error's message and code, FileUpload of a .ksql file."""
    from ksql import KSQLAPI
    from ksql.errors import KSQLError

    s = unique("PB")
    client = KSQLAPI(server.url)
    props = {p["name"]: p for p in client.get_properties()}
    assert props["ksql.streams.auto.offset.reset"]["scope"] == "KSQL" and "value" in props["ksql.service.id"]
    client.ksql(f"CREATE STREAM {s} (id VARCHAR KEY, page VARCHAR, n INT) "
                f"WITH (KAFKA_TOPIC='{s.lower()}', VALUE_FORMAT='JSON', PARTITIONS=1)")
    client.ksql(f"INSERT INTO {s} (id, page, n) VALUES ('a', 'home', 1)")
    client.ksql(f"INSERT INTO {s} (id, page, n) VALUES ('b', 'cart', 5)")
    assert client.create_stream_as(table_name=f"{s}_BIG", select_columns=["id", "page", "n"], src_table=s,
                                   conditions="n > 2", partition_by="page", partitions=1, value_format="JSON",
                                   kafka_topic=f"{s.lower()}_big") is True
    described = client.ksql(f"DESCRIBE {s}_BIG")[0]["sourceDescription"]
    assert described["topic"] == f"{s.lower()}_big"
    assert [(f["name"], f.get("type")) for f in described["fields"]] == [("PAGE", "KEY"), ("ID", None), ("N", None)]
    rows = _wait_for(lambda: list(client.query(f"SELECT * FROM {s}_BIG", return_objects=True)))
    assert rows == [] or rows == [{"PAGE": "cart", "ID": "b", "N": 5}]  # the CSAS starts at the latest offset
    with pytest.raises(KSQLError) as e:
        client.create_table(table_name=f"{s}_T", columns_type=["id varchar primary key", "n int"],
                            topic=s.lower(), value_format="JSON", key="id")
    assert e.value.error_code == 40001 and "KEY" in e.value.msg
    with pytest.raises(KSQLError) as e:
        client.ksql(f"DROP STREAM {s}_NOPE")
    assert e.value.error_code == 40001 and e.value.msg == f"Stream {s}_NOPE does not exist."
    # FileUpload: each line-joined statement of a .ksql file through /ksql. pyksql's rule reader raises
    # InvalidQueryError after the last statement whatever the file (its check runs on the emptied buffer), so
    # the statements have run when it raises (ksql-python-ng's reader is fixed: see its test)
    from ksql.errors import InvalidQueryError
    from ksql.upload import FileUpload

    rules = tmp_path / "rules.ksql"
    rules.write_text(f"CREATE TABLE {s}_UPT AS\n  SELECT id, COUNT(*) AS n\n  FROM {s}\n  GROUP BY id;\n"
                     f"INSERT INTO {s} (id, page, n)\n  VALUES ('c', 'faq', 3);\n")
    with pytest.raises(InvalidQueryError):
        FileUpload(server.url).upload(str(rules))
    rows = _wait_for(lambda: list(client.query(f"SELECT * FROM {s}_UPT WHERE id = 'c'", return_objects=True)))
    assert rows == [{"ID": "c", "N": 1}]
    assert client.ksql(f"DROP TABLE {s}_UPT")[0]["commandStatus"]["status"] == "SUCCESS"


# ------------------------------------------------------------------------------------- ksqldb-client
def test_pypi_ksqldb_client_every_call(server: ServerProcess, unique: Any) -> None:
    """The PyPI ``ksqldb-client``: every method. Its defects fail against ksqlDB the same way and are
    asserted as such: ``query_stream`` sends no Accept header (curl's ``*/*``: ksqlDB answers the delimited
    format, one JSON document per line) and parses the body as one document; ``status()`` requires a
    string ``queryId`` (null for a plain CREATE) and models ``GET /status`` as one command's status;
    ``cluster_status`` is not implemented."""
    pytest.importorskip("ksqldb_client")
    import warnings

    from ksqldb_client import KSqlDBClient
    from ksqldb_client.exceptions import APIError

    s = unique("KC")
    client = KSqlDBClient(server.url)
    created = client.ksql(f"CREATE STREAM {s} (id INT KEY, v STRING) WITH (kafka_topic='{s.lower()}', "
                          "value_format='JSON', partitions=1);")
    assert created[0].type == "currentStatus" and created[0].command_id == f"stream/{s}/create"
    assert created[0].command_status.status == "SUCCESS" and created[0].command_sequence_number > 0
    assert tuple(client.ksql(f"INSERT INTO {s} (id, v) VALUES (1, 'a'); INSERT INTO {s} (id, v) VALUES (2, 'b');",
                             session_variables={"unused": 1})) == ()
    streams = client.ksql("SHOW STREAMS;")[0].streams
    assert [(x.name, x.topic, x.key_format, x.value_format, x.is_windowed) for x in streams if x.name == s] == [
        (s, s.lower(), "KAFKA", "JSON", False)]
    csas = client.ksql(f"CREATE STREAM {s}_C AS SELECT * FROM {s};", stream_properties={"auto.offset.reset": "earliest"})
    qid = csas[0].command_status.query_id
    assert qid.startswith(f"CSAS_{s}_C_")
    queries = client.ksql("SHOW QUERIES;")[0].queries
    assert [(q.id, q.sinks) for q in queries if q.id == qid] == [(qid, (f"{s}_C",))]
    seq = csas[0].command_sequence_number
    assert client.ksql("SHOW TABLES;", command_sequence_number=seq)[0].type == "tables"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        push = client.query(f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;",
                            stream_properties={"ksql.streams.auto.offset.reset": "earliest"})
        pull = client.query(f"SELECT * FROM {s};")
    assert push[0].header.query_id.startswith("transient_") and push[0].header.schema_ == "`ID` INTEGER, `V` STRING"
    assert [x.row.columns for x in push.root[1:3]] == [(1, "a"), (2, "b")]
    assert push[3].final_message == "Limit Reached"
    assert [x.row.columns for x in pull.root[1:3]] == [(1, "a"), (2, "b")] and pull[3].final_message == "Query Completed"
    with pytest.raises(ValueError):  # the delimited answer is one document per line (ksqlDB's too)
        client.query_stream(f"SELECT * FROM {s};", properties={}, session_variables={})
    status = client.status(f"stream/{s}_C/create")
    assert status.status == "SUCCESS" and status.query_id == qid
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        client.status(f"stream/{s}/create")  # queryId is null for a plain CREATE, on ksqlDB too
    info = client.info().ksql_server_info
    assert info.version == "0.29.0" and info.server_status == "RUNNING" and info.ksql_service_id == "default_"
    with pytest.raises(NotImplementedError):
        client.cluster_status()
    with pytest.raises(APIError) as e:
        client.close_query(query_id="transient_NOPE_1")
    assert "No query with id transient_NOPE_1" in str(e.value)
    with pytest.raises(APIError) as e:
        client.ksql(f"DROP STREAM {s}_NOPE;")
    assert "40001" in str(e.value) and f"Stream {s}_NOPE does not exist." in str(e.value)
    client.ksql(f"DROP STREAM {s}_C;")


# ---------------------------------------------------------------------------------------- ksql-python-ng
KSQL_PYTHON_NG = "ksql-python-ng==0.29.0.1"


@pytest.fixture(scope="session")
def ksql_python_ng() -> Path:
    """ksql-python-ng installed into a cache directory of its own (it shadows pyksql's ``ksql`` module)."""
    return _client_dir(KSQL_PYTHON_NG)


def test_ksql_python_ng_every_documented_call(server: ServerProcess, unique: Any, ksql_python_ng: Path) -> None:
    s = unique("NG")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ksql_python_ng), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(CLIENTS_DIR / "ksql_python_ng_client.py"), server.url, s], env=env,
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr + done.stdout
    steps = {item["step"]: item["result"] for item in map(json.loads, done.stdout.splitlines())}
    assert steps["version"] == "0.29.0"
    for step in ("create", "ctas"):
        [status] = steps[step]
        assert status["@type"] == "currentStatus" and status["commandStatus"]["status"] == "SUCCESS", status
    assert steps["insert"] == []  # INSERT VALUES yields no entity
    assert steps["inserts_stream"] == [{"status": "ok", "seq": 0}, {"status": "ok", "seq": 1}]
    assert steps["builder_stream"] is True and steps["builder_as"] is True
    assert len(steps["properties"]) == 3
    lines = steps["http1_pull_stream"].splitlines()
    assert json.loads(lines[0])["columnNames"] == ["ID", "V"]
    assert [json.loads(x) for x in lines[1:]] == [["a", 1], ["b", 2], ["c", 3]]
    assert [json.loads(x) for x in steps["http1_lookup"].splitlines()[1:]] == [["c", 3]]
    assert steps["http2_parsed"] == [{"ID": "a", "V": 1}, {"ID": "b", "V": 2}, {"ID": "c", "V": 3}]
    push = steps["http2_push"]
    assert push["header"]["queryId"].startswith(f"transient_{s}_") and push["closed"] is True
    assert push["rows"] == [["a", 1], ["b", 2], ["c", 3]]
    assert steps["close_unknown"] is False
    created, inserted, commented, ctas = steps["upload"]
    assert created[0]["statementText"] == (f"CREATE STREAM {s}_UP (ID STRING KEY, V INTEGER) WITH "
                                           f"(KAFKA_TOPIC='{s.lower()}', KEY_FORMAT='KAFKA', VALUE_FORMAT='JSON');")
    assert created[0]["commandStatus"]["status"] == "SUCCESS" and inserted == [] and commented == []
    assert ctas[0]["commandStatus"]["queryId"].startswith(f"CTAS_{s}_UPT_")
    assert steps["upload_sql"] == ".sql"  # the client's own FileTypeError
    assert steps["bad_statement"] == {"msg": f"Stream {s}_NOPE does not exist.", "error_code": 40001}
    assert steps["bad_syntax"]["error_code"] == 40001 and "Unknown statement 'SELEC'" in steps["bad_syntax"]["msg"]
    assert steps["query_to_ksql"]["error_code"] == 40002
    assert steps["bad_query"].startswith("HTTP error encountered: 400: ")
    # the sanitizer's error, with its position as for any query
    assert json.loads(steps["bad_query"].split(": ", 2)[2])["message"] == f"Line: 1, Col: 15: {s}_NOPE does not exist."



def test_ksql_python_ng_over_tls_with_basic_auth(tmp_path: Path, ksql_python_ng: Path) -> None:
    """ksql-python-ng as against Confluent Cloud: an https listener (HTTP/2 by ALPN for /query-stream), an API key
    and secret as Basic credentials, the certificate trusted through SSL_CERT_FILE. Its close_query and
    inserts_stream send no credentials: 401 from ksqlDB too (close_query turns it into ValueError)."""
    from test_security import _self_signed

    cert, key = _self_signed(tmp_path)
    users = tmp_path / "users.properties"
    users.write_text("APIKEY1: s3cr3t,ksql-user\n")
    proc = ServerProcess(str(tmp_path / "server"), {"ssl.certificate.location": cert, "ssl.key.location": key,
                                                    "authentication.method": "BASIC",
                                                    "authentication.users.file": str(users)}, scheme="https")
    proc.start(wait=False)
    try:
        import ssl

        proc.wait_ready(verify=ssl.create_default_context(cafile=cert), auth=("APIKEY1", "s3cr3t"))
        env = dict(os.environ, SSL_CERT_FILE=cert,
                   PYTHONPATH=os.pathsep.join([str(ksql_python_ng), os.environ.get("PYTHONPATH", "")]))
        done = subprocess.run([sys.executable, str(CLIENTS_DIR / "ksql_python_ng_secure.py"), proc.url, "SEC",
                               "APIKEY1", "s3cr3t"], env=env, capture_output=True, text=True, timeout=120)
    finally:
        proc.stop()
    assert done.returncode == 0, done.stderr + done.stdout
    steps = {item["step"]: item["result"] for item in map(json.loads, done.stdout.splitlines())}
    assert steps["version"] == "0.29.0"
    assert steps["create"][0]["commandStatus"]["status"] == "SUCCESS" and steps["insert"] == []
    lines = steps["http1_pull"].splitlines()
    assert json.loads(lines[0])["columnNames"] == ["ID", "V"] and [json.loads(x) for x in lines[1:]] == [["a", 1],
                                                                                                     ["b", 2]]
    assert steps["http2_parsed"] == [{"ID": "a", "V": 1}, {"ID": "b", "V": 2}]
    assert steps["http2_push"]["header"]["queryId"].startswith("transient_SEC_")
    assert steps["http2_push"]["rows"] == [["a", 1], ["b", 2]]
    assert steps["close_query"] == "Return code is 401."
    assert steps["inserts_stream"] == [{"@type": "generic_error", "error_code": 40100, "message": "Unauthorized"}]
    assert steps["wrong_secret"].startswith("Status Code: 401.")
    assert steps["bad_statement"] == {"msg": "Stream SEC_NOPE does not exist.", "error_code": 40001}
