"""The harness's wall clock never moves, as ksqlDB's TopologyTestDriver's mock clock: a look Kafka Streams
throttles on wall-clock time (EMIT FINAL's, an outer join's with a GRACE PERIOD) runs once per case unless
the case sets the interval to 0 - however long the case takes here. The clock below jumps 10 s on every
read: a harness reading it would look again and emit more (the results would depend on the machine)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.runtime import aggregator, join_stream_stream
from ksqlpy.testing.executor import run_case
from ksqlpy.testing.runner import load_cases

EMIT_FINAL = ("CREATE TABLE T AS SELECT ID, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD "
              "0 SECONDS) GROUP BY ID EMIT FINAL;")
OUTER = ("CREATE STREAM O AS SELECT L.ID AS ID, A, B FROM L LEFT JOIN R WITHIN 1 SECOND GRACE PERIOD 0 SECONDS "
         "ON L.ID = R.ID;")


class JumpingClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 10_000.0
        return self.now


@pytest.fixture(autouse=True)
def jumping_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(aggregator, "wall_ms", JumpingClock())
    monkeypatch.setattr(join_stream_stream, "wall_ms", JumpingClock())
    yield


def _window(start: int) -> dict[str, Any]:
    return {"start": start, "end": start + 10_000, "type": "time"}


def _emit_final_case(props: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "emit final", "properties": props, "statements": [
        "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
        EMIT_FINAL],
        "inputs": [{"topic": "s", "key": 1, "value": {"V": 1}, "timestamp": ts} for ts in (1000, 11000, 21000)],
        "outputs": outputs}


def _outer_case(props: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "outer join", "properties": props, "statements": [
        "CREATE STREAM L (ID INT KEY, A STRING) WITH (kafka_topic='l', value_format='JSON', partitions=1);",
        "CREATE STREAM R (ID INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', partitions=1);",
        OUTER],
        "inputs": [{"topic": "l", "key": 1, "value": {"A": "a1"}, "timestamp": 0},
                   {"topic": "l", "key": 2, "value": {"A": "a2"}, "timestamp": 5000},
                   {"topic": "l", "key": 3, "value": {"A": "a3"}, "timestamp": 10000}],
        "outputs": outputs}


def _run(tmp_path: Path, case: dict[str, Any]) -> str:
    from ksqlpy.testing.cli import default_factory

    path = tmp_path / "case.json"
    path.write_text(json.dumps({"tests": [case]}))
    (loaded,) = load_cases([path])
    result = run_case(loaded, default_factory(), timeout_s=60)
    return f"{result.status}: {result.reason}" if result.status != "passed" else "passed"


def test_emit_final_looks_once_on_the_default_interval(tmp_path: Path) -> None:
    # the first record takes the one look (nothing closed yet): no window is ever emitted - the expected window
    # is missing, none extra (a QTT case cannot list a topic with no records)
    outs = [{"topic": "T", "key": 1, "value": {"C": 1}, "timestamp": 1000, "window": _window(0)}]
    assert _run(tmp_path, _emit_final_case({}, outs)).startswith("failed: T: expected 1 records, got 0;")


def test_emit_final_looks_after_every_record_with_interval_zero(tmp_path: Path) -> None:
    outs = [{"topic": "T", "key": 1, "value": {"C": 1}, "timestamp": ts, "window": _window(ts - 1000)}
            for ts in (1000, 11000)]
    props = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
    assert _run(tmp_path, _emit_final_case(props, outs)) == "passed"


def test_an_outer_join_looks_once_on_the_default_interval(tmp_path: Path) -> None:
    # the look at a2 (stream time 5000 closes a1's window) emits a1; a2's window closing at a3 is not looked at
    outs = [{"topic": "O", "key": 1, "value": {"A": "a1", "B": None}, "timestamp": 0}]
    assert _run(tmp_path, _outer_case({}, outs)) == "passed"


def test_an_outer_join_looks_after_every_record_with_interval_zero(tmp_path: Path) -> None:
    outs = [{"topic": "O", "key": k, "value": {"A": f"a{k}", "B": None}, "timestamp": ts}
            for k, ts in ((1, 0), (2, 5000))]
    props = {"ksql.streams.__emit.interval.ms.kstreams.outer.join.spurious.results.fix__": 0}
    assert _run(tmp_path, _outer_case(props, outs)) == "passed"
