"""Which configuration switches a request can turn, as ksqlDB reads them.

ksqlDB merges a request's overrides (``/ksql`` ``streamsProperties``, SET, ``/query`` properties) into the
configuration it reads (``SessionConfig.getConfig(true)``), but ``ksql.query.pull.table.scan.enabled`` is gated
by the server's value: a request may turn scans off, never on over a server's ``false`` (reference:
ksqldb-rest-cli-sql, "a request may only disable it"). A few reads use the configuration alone
(``getConfig(false)``): ``ksql.insert.into.values.enabled`` (``InsertValuesExecutor``, and
``/inserts-stream``), where a request's override changes nothing, and ``ksql.source.table.materialization.enabled``,
which a request cannot override at all (an immutable property). The disabled-inserts refusal comes after the target checks (unknown, windowed, read-only)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

DISABLED = ("The server has disabled INSERT INTO ... VALUES functionality. To enable it, restart your ksqlDB "
            "server with 'ksql.insert.into.values.enabled'=true")


def _server(tmp_path_factory: pytest.TempPathFactory, props: dict[str, str]) -> Iterator[httpx.Client]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")),
                         {"ksql.streams.auto.offset.reset": "earliest", **props})
    proc.start()
    try:
        with httpx.Client(base_url=proc.url, timeout=20) as c:
            yield c
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server configured with inserts off."""
    yield from _server(tmp_path_factory, {"ksql.insert.into.values.enabled": "false"})


@pytest.fixture(scope="module")
def noscan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server configured with pull-query table scans off."""
    yield from _server(tmp_path_factory, {"ksql.query.pull.table.scan.enabled": "false"})


@pytest.fixture(scope="module")
def open_(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """A server with the defaults (both on)."""
    yield from _server(tmp_path_factory, {})


def _ksql(c: httpx.Client, sql: str, props: dict[str, Any] | None = None) -> httpx.Response:
    return c.post("/ksql", json={"ksql": sql, "streamsProperties": props or {}})


def _pull(c: httpx.Client, sql: str, props: dict[str, Any]) -> httpx.Response:
    return c.post("/query", json={"ksql": sql, "streamsProperties": props},
                  headers={"Accept": "application/vnd.ksql.v1+json"})


def _rows(c: httpx.Client, sql: str, props: dict[str, Any], want: int) -> list[Any]:
    end = time.monotonic() + 10
    while True:
        r = _pull(c, sql, props)
        assert r.status_code == 200, r.text
        rows = [e["row"]["columns"] for e in r.json() if "row" in e]
        if len(rows) >= want or time.monotonic() > end:
            return rows
        time.sleep(0.1)


def test_a_request_cannot_enable_inserts_the_server_disabled(closed: httpx.Client) -> None:
    assert _ksql(closed, "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, "
                         "value_format='JSON');").status_code == 200
    for props, sql in [({"ksql.insert.into.values.enabled": "true"}, "INSERT INTO S (ID, V) VALUES (1, 'a');"),
                       ({}, "SET 'ksql.insert.into.values.enabled'='true'; INSERT INTO S (ID, V) VALUES (1, 'a');")]:
        r = _ksql(closed, sql, props)
        assert r.status_code == 400 and r.json()["message"] == DISABLED, r.text
        assert r.json()["error_code"] == 40000


def test_target_checks_come_before_the_disabled_switch(closed: httpx.Client) -> None:
    r = _ksql(closed, "INSERT INTO NOPE (ID) VALUES (1);")
    assert r.status_code == 400 and r.json()["message"].startswith(
        "Cannot insert values into an unknown stream/table: `NOPE`"), r.text
    assert _ksql(closed, "CREATE SOURCE STREAM RO (ID INT KEY, V STRING) WITH (kafka_topic='ro', partitions=1, "
                         "value_format='JSON');").status_code == 200
    r = _ksql(closed, "INSERT INTO RO (ID, V) VALUES (1, 'a');")
    assert r.status_code == 400 and r.json()["message"] == "Cannot insert values into read-only stream: RO", r.text


def test_inserts_stream_is_refused_whatever_the_request_says(closed: httpx.Client) -> None:
    _ksql(closed, "CREATE STREAM IS1 (ID INT KEY, V STRING) WITH (kafka_topic='is1', partitions=1, "
                  "value_format='JSON');")
    with httpx.Client(base_url=str(closed.base_url), http1=False, http2=True, timeout=20) as h2:
        r = h2.post("/inserts-stream", content=b'{"target": "IS1", "properties": '
                    b'{"ksql.insert.into.values.enabled": "true"}}\n{"ID": 1, "V": "a"}\n')
    assert r.status_code == 400 and DISABLED in r.text, r.text


def test_a_request_override_does_not_disable_inserts(open_: httpx.Client) -> None:
    assert _ksql(open_, "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, "
                        "value_format='JSON');").status_code == 200
    r = _ksql(open_, "INSERT INTO S (ID, V) VALUES (1, 'a');", {"ksql.insert.into.values.enabled": "false"})
    assert r.status_code == 200 and r.json() == [], r.text
    r = _ksql(open_, "SET 'ksql.insert.into.values.enabled'='false'; INSERT INTO S (ID, V) VALUES (2, 'b');")
    assert r.status_code == 200, r.text
    r = open_.post("/query", json={"ksql": "SELECT * FROM S EMIT CHANGES LIMIT 2;", "streamsProperties": {}},
                   headers={"Accept": "application/vnd.ksql.v1+json"})
    assert sorted(e["row"]["columns"] for e in r.json() if "row" in e) == [[1, "a"], [2, "b"]]


def test_a_request_override_does_not_stop_source_table_materialization(open_: httpx.Client) -> None:
    # the server fixes it at start: a request's override is refused (ksqlDB's LocalPropertyValidator over
    # ImmutableProperties), and the table is materialized as the configuration says
    r = _ksql(open_, "CREATE SOURCE TABLE ST (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='st', partitions=1, "
                     "value_format='JSON');", {"ksql.source.table.materialization.enabled": "false"})
    assert r.status_code == 400 and r.json()["message"] == (
        "Cannot override property 'ksql.source.table.materialization.enabled'"), r.text
    r = _ksql(open_, "CREATE SOURCE TABLE ST (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='st', partitions=1, "
                     "value_format='JSON');")
    assert r.status_code == 200 and r.json()[0]["commandStatus"]["queryId"].startswith("CST_ST"), r.text


def test_a_request_cannot_enable_table_scans_the_server_disabled(noscan: httpx.Client) -> None:
    assert _ksql(noscan, "CREATE TABLE T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='t', partitions=1, "
                         "value_format='JSON'); CREATE TABLE TT AS SELECT * FROM T; "
                         "INSERT INTO T (ID, V) VALUES (1, 'a');").status_code == 200
    assert _rows(noscan, "SELECT * FROM TT WHERE ID = 1;", {"ksql.query.pull.table.scan.enabled": "true"},
                 1) == [[1, "a"]]
    for value in (None, "true", True):
        props = {} if value is None else {"ksql.query.pull.table.scan.enabled": value}
        r = _pull(noscan, "SELECT * FROM TT;", props)
        assert r.status_code == 400 and r.json()["message"].startswith(
            "Query requires table scan to be enabled. See "), r.text
        r = _pull(noscan, "SELECT * FROM TT WHERE V = 'a';", props)
        assert r.status_code == 400 and r.json()["message"].startswith(
            "WHERE clause missing key column for disjunct: (V = 'a'). See "), r.text
    for http2 in (False, True):
        with httpx.Client(base_url=str(noscan.base_url), http1=not http2, http2=http2, timeout=20) as c:
            r = c.post("/query-stream", json={"sql": "SELECT * FROM TT;",
                                              "properties": {"ksql.query.pull.table.scan.enabled": "true"}},
                       headers={"Accept": "application/json"})
        assert r.status_code == 400 and "Query requires table scan to be enabled" in r.text, r.text


def test_a_request_can_disable_table_scans(open_: httpx.Client) -> None:
    assert _ksql(open_, "CREATE TABLE T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='t', partitions=1, "
                        "value_format='JSON'); CREATE TABLE TT AS SELECT * FROM T; "
                        "INSERT INTO T (ID, V) VALUES (1, 'a');").status_code == 200
    assert _rows(open_, "SELECT * FROM TT;", {}, 1) == [[1, "a"]]
    r = _pull(open_, "SELECT * FROM TT;", {"ksql.query.pull.table.scan.enabled": "false"})
    assert r.status_code == 400 and r.json()["message"].startswith("Query requires table scan to be enabled. See "), r.text
    assert _rows(open_, "SELECT * FROM TT WHERE ID = 1;", {"ksql.query.pull.table.scan.enabled": "false"},
                 1) == [[1, "a"]]
