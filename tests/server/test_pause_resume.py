"""PAUSE / RESUME [ALL] as ksqlDB's command runner executes them (from memory of InteractiveStatementExecutor:
ALL is every persistent query the engine has - ``getPersistentQueries().forEach(pause)`` - a SOURCE table's
CST_ query included, unlike TERMINATE ALL, which passes over it): SHOW QUERIES shows PAUSED (state and
statusCount), a paused query moves no record until it is resumed, and the state is a command, so a restarted
server replays it. Decided in session 28 (restserver item 3); a guard - it held before."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
from app_client import await_serving  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402

SETUP = ("CREATE SOURCE TABLE PR_T (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='pr_t', partitions=1, "
         "value_format='JSON'); CREATE STREAM PR_S (ID INT KEY, V STRING) WITH (kafka_topic='pr_s', partitions=1, "
         "value_format='JSON'); CREATE STREAM PR_OUT WITH (kafka_topic='pr_out') AS SELECT * FROM PR_S;")


def _client(data: Path) -> TestClient:
    config = build_config(data_dir=str(data), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                         "ksql.streams.auto.offset.reset": "earliest"})
    return TestClient(create_app(config))


def _ready(c: TestClient) -> None:
    await_serving(c, 60)


def _ksql(c: TestClient, sql: str) -> Any:
    r = c.post("/ksql", json={"ksql": sql, "streamsProperties": {}})
    assert r.status_code == 200, r.text
    return r.json()


def _states(c: TestClient) -> dict[str, tuple[str, dict[str, int]]]:
    return {q["id"]: (q["state"], q["statusCount"]) for q in _ksql(c, "SHOW QUERIES;")[0]["queries"]}


def _sink_records(c: TestClient) -> int:
    engine = c.app.state.ctx.engine  # type: ignore[attr-defined]
    return int(engine.log.end_offset("pr_out", 0))


def _wait(predicate: Any, timeout_s: float = 20.0) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def paused(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as c:
        _ready(c)
        _ksql(c, SETUP)
        yield c


def test_pause_all_takes_the_source_table_s_query_too(paused: TestClient) -> None:
    c = paused
    [status] = _ksql(c, "PAUSE ALL;")
    assert status["commandId"] == "pause/ALL/execute" and status["commandStatus"]["message"] == "Query paused."
    states = _states(c)
    cst = next(q for q in states if q.startswith("CST_PR_T_"))
    csas = next(q for q in states if q.startswith("CSAS_PR_OUT_"))
    assert states[cst] == states[csas] == ("PAUSED", {"PAUSED": 1})
    _ksql(c, "INSERT INTO PR_S (ID, V) VALUES (1, 'a');")
    time.sleep(1.0)
    assert _sink_records(c) == 0  # paused: nothing moves
    [status] = _ksql(c, "RESUME ALL;")
    assert status["commandId"] == "resume/ALL/execute" and status["commandStatus"]["message"] == "Query resumed."
    assert _states(c)[cst] == _states(c)[csas] == ("RUNNING", {"RUNNING": 1})
    assert _wait(lambda: _sink_records(c) == 1)
    # named alone, the CST_ query pauses as well (TERMINATE refuses it: linked to a source table)
    _ksql(c, f"PAUSE {cst};")
    assert _states(c)[cst][0] == "PAUSED" and _states(c)[csas][0] == "RUNNING"
    _ksql(c, f"RESUME {cst};")


def test_paused_state_survives_a_restart(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        _ready(c)
        _ksql(c, SETUP)
        _ksql(c, "PAUSE ALL;")
    with _client(tmp_path) as again:  # the commands replayed: the PAUSE too
        _ready(again)
        assert {state for state, _ in _states(again).values()} == {"PAUSED"}
        _ksql(again, "RESUME ALL;")
        assert {state for state, _ in _states(again).values()} == {"RUNNING"}
