"""TERMINATE CLUSTER as ksqlDB has it: only through ``POST /ksql/terminate`` (``deleteTopicList`` of Java
regexes, both fields optional), answered with a ``currentStatus``; it stops every query, deletes the
ksql-created sink topics a pattern matches (and their schemas), deletes the command topic, and the server
answers 503 / 50304 from then on. Over ``/ksql`` the text is an ordinary ``TERMINATE <query id>`` of a query
named CLUSTER (the grammar has no TERMINATE CLUSTER), so it terminates nothing."""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from app_client import serving  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402
from ksqlpy.server.context import ServerContext  # noqa: E402

SETUP = ("CREATE STREAM TC_IN (ID INT KEY, V INT) WITH (kafka_topic='tc_in', partitions=1, format='JSON'); "
         "CREATE STREAM TC_KEEP AS SELECT * FROM TC_IN; "
         "CREATE STREAM TC_GONE WITH (value_format='AVRO') AS SELECT * FROM TC_IN;")


@pytest.fixture
def server(tmp_path) -> Iterator[tuple[TestClient, ServerContext]]:  # type: ignore[no-untyped-def]
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false"})
    ctx = ServerContext(config)
    with serving(create_app(config, ctx)) as c:
        r = c.post("/ksql", json={"ksql": SETUP})
        assert r.status_code == 200, r.text
        yield c, ctx


def _status(body: Any) -> dict[str, Any]:
    (entity,) = body
    return dict(entity)


def test_terminate_endpoint(server: tuple[TestClient, ServerContext], caplog: pytest.LogCaptureFixture) -> None:
    c, ctx = server
    engine = ctx.engine
    assert engine.schema_registry.latest("TC_GONE-value") is not None
    caplog.set_level(logging.WARNING)
    r = c.post("/ksql/terminate", json={"deleteTopicList": ["TC_G.*"]})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert _status(r.json()) == {
        "@type": "currentStatus", "statementText": "TERMINATE CLUSTER;", "commandId": "cluster/TerminateCluster/terminate",
        "commandStatus": {"status": "SUCCESS", "message": "Terminated KSQL cluster", "queryId": None},
        "commandSequenceNumber": -1, "warnings": []}
    assert not engine.queries
    assert not engine.log.topic_exists("TC_GONE")  # matched, created by a query
    assert engine.log.topic_exists("TC_KEEP")  # created by a query, not matched
    assert engine.log.topic_exists("tc_in")  # not created by a query
    assert engine.schema_registry.latest("TC_GONE-value") is None
    time.sleep(0.3)  # the command runner would have polled the deleted command topic by now
    assert not [r for r in caplog.records if "command topic" in r.getMessage()]
    after = c.post("/ksql", json={"ksql": "SHOW STREAMS;"})
    assert after.status_code == 503 and after.json()["error_code"] == 50304


@pytest.mark.parametrize("body", [{}, {"deleteTopicList": []}, {"streamsProperties": {}}, {"deleteTopicList": None}])
def test_both_fields_are_optional(server: tuple[TestClient, ServerContext], body: Any) -> None:
    c, ctx = server
    r = c.post("/ksql/terminate", json=body)
    assert r.status_code == 200, r.text
    assert _status(r.json())["commandStatus"]["status"] == "SUCCESS"
    assert ctx.engine.log.topic_exists("TC_GONE") and ctx.engine.log.topic_exists("TC_KEEP")


@pytest.mark.parametrize(("body", "message"), [
    ({"deleteTopicList": ["TC_KEEP", "(unclosed"]}, "Invalid pattern: (unclosed"),
    ({"deleteTopicList": ["*x"]}, "Invalid pattern: *x"),
])
def test_an_invalid_pattern_terminates_nothing(server: tuple[TestClient, ServerContext], body: Any,
                                                message: str) -> None:
    c, ctx = server
    r = c.post("/ksql/terminate", json=body)
    assert r.status_code == 400
    assert r.json() == {"@type": "generic_error", "error_code": 40000, "message": message}
    assert len(ctx.engine.queries) == 2 and ctx.engine.log.topic_exists("TC_KEEP")


@pytest.mark.parametrize("raw", [b"{not json", b"", b"[]", b'{"deleteTopicList": "TC_.*"}'])
def test_bad_json(server: tuple[TestClient, ServerContext], raw: bytes) -> None:
    """The body is read by the rule of every endpoint (server/models.py): even an empty one is refused
    (Jackson has no content to map), and nothing is terminated."""
    c, ctx = server
    r = c.post("/ksql/terminate", content=raw)
    assert r.status_code == 400 and r.json()["error_code"] == 40000
    assert r.json()["message"].startswith("Invalid JSON in request")
    assert len(ctx.engine.queries) == 2 and ctx.engine.log.topic_exists("TC_KEEP")


@pytest.mark.parametrize("text", ["TERMINATE CLUSTER;", "terminate cluster;"])
def test_over_ksql_it_is_a_query_id(server: tuple[TestClient, ServerContext], text: str) -> None:
    c, ctx = server
    r = c.post("/ksql", json={"ksql": text})
    assert r.status_code == 400
    assert r.json() == {"@type": "statement_error", "error_code": 40001, "message": "Unknown queryId: CLUSTER",
                        "statementText": text, "entities": []}
    assert len(ctx.engine.queries) == 2
    assert c.post("/ksql", json={"ksql": "SHOW STREAMS;"}).status_code == 200
