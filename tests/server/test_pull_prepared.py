"""/query and /query-stream answer a repeated key lookup from the engine's prepared lookups (no parsing)
with the same body as the full path: key flags in the schema, other literals, and a table re-created
under the same name."""

from __future__ import annotations

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

V1_JSON = "application/vnd.ksql.v1+json"


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("prepared")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false"})
    with serving(create_app(config)) as c:
        yield c


def _ksql(c: TestClient, sql: str) -> Any:
    r = c.post("/ksql", json={"ksql": sql, "streamsProperties": {"auto.offset.reset": "earliest"}})
    assert r.status_code == 200, r.text
    return r.json()


def _query(c: TestClient, sql: str) -> Any:
    r = c.post("/query", json={"ksql": sql}, headers={"Accept": V1_JSON})
    assert r.status_code == 200, r.text
    return r.json()


def _wait(cond: Any, timeout: float = 15.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def test_repeated_lookups_over_rest_use_prepared_lookups(app_client: TestClient) -> None:
    c = app_client
    cache = c.app.state.ctx.engine.pull_cache  # type: ignore[attr-defined]
    _ksql(c, "CREATE STREAM clicks (id INT KEY, page STRING) WITH (kafka_topic='clicks', partitions=2, "
             "value_format='JSON');")
    _ksql(c, "CREATE TABLE per_id AS SELECT id, COUNT(*) AS n FROM clicks GROUP BY id;")
    _ksql(c, "INSERT INTO clicks (id, page) VALUES (1, 'a'); INSERT INTO clicks (id, page) VALUES (1, 'b'); "
             "INSERT INTO clicks (id, page) VALUES (2, 'c');")
    assert _wait(lambda: _query(c, "SELECT * FROM per_id WHERE id = 1;")[1:] == [{"row": {"columns": [1, 2]}}])
    hits = cache.hits
    first = _query(c, "SELECT * FROM per_id WHERE id = 2;")
    assert first[0]["header"]["schema"] == "`ID` INTEGER KEY, `N` BIGINT"
    assert first[1:] == [{"row": {"columns": [2, 1]}}]
    assert _query(c, "SELECT * FROM per_id WHERE id = 3;")[1:] == []
    stream = c.post("/query-stream", json={"sql": "SELECT * FROM per_id WHERE id = 1;"},
                    headers={"Accept": "application/json"}).json()
    assert stream[0]["columnNames"] == ["ID", "N"] and stream[1:] == [[1, 2]]
    assert cache.hits == hits + 3
    # the table dropped and created again with other columns: the same text answers from the new one
    _ksql(c, "DROP TABLE per_id;")
    _ksql(c, "CREATE TABLE per_id AS SELECT id, LATEST_BY_OFFSET(page) AS last_page FROM clicks GROUP BY id;")
    assert _wait(lambda: _query(c, "SELECT * FROM per_id WHERE id = 1;")[1:] == [{"row": {"columns": [1, "b"]}}])
    again = _query(c, "SELECT * FROM per_id WHERE id = 2;")
    assert again[0]["header"]["schema"] == "`ID` INTEGER KEY, `LAST_PAGE` STRING"
    assert again[1:] == [{"row": {"columns": [2, "c"]}}]
    # a literal of another type is another shape: ksqlDB's error entity from the full path
    bad = c.post("/query", json={"ksql": "SELECT * FROM per_id WHERE id IN (1.5);"}, headers={"Accept": V1_JSON})
    assert bad.status_code == 400 and "can not be converted" in bad.json()["message"]
