"""/healthcheck in ksqlDB's shape: isHealthy, the details of its HealthCheckAgent's three checks (metastore, kafka,
commandRunner; from memory) and serverState. A persistent query in ERROR is none of them: the server stays
healthy (SHOW QUERIES says the query's state)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
from app_client import serving  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                             "ksql.query.retry.backoff.initial.ms": "600000"})
    app = create_app(config)
    with serving(app) as c:
        yield c


def test_a_query_in_error_leaves_the_server_healthy(client: TestClient) -> None:
    assert client.post("/ksql", json={"ksql": "CREATE STREAM H (ID INT KEY, V INT) WITH (kafka_topic='h', "
                                              "partitions=1, value_format='JSON'); "
                                              "CREATE STREAM H2 AS SELECT * FROM H;"}).status_code == 200
    health_before = health = client.get("/healthcheck").json()
    assert health == {"isHealthy": True, "details": {"metastore": {"isHealthy": True}, "kafka": {"isHealthy": True},
                                                     "commandRunner": {"isHealthy": True}}, "serverState": "READY"}
    query = _the_query(client)

    def boom() -> int:
        raise RuntimeError("disk on fire")

    query.poll = boom
    end = time.monotonic() + 20
    while query.state != "ERROR" and time.monotonic() < end:
        time.sleep(0.05)
    assert query.state == "ERROR"
    health = client.get("/healthcheck")
    assert health.status_code == 200
    body = health.json()
    assert body == health_before, body
    queries = client.post("/ksql", json={"ksql": "SHOW QUERIES;"}).json()[0]["queries"]
    assert [q["state"] for q in queries] == ["ERROR"]
    del query.poll


def _the_query(client: TestClient):  # type: ignore[no-untyped-def]
    [query] = list(client.app.state.ctx.engine.queries.values())  # type: ignore[attr-defined]
    return query
