"""How many records a task takes from an input per poll (``runtime.context.poll_records``): ``max.poll.records``
(either spelling) where it is set; else the engine's ``poll_records_default`` - the server sets Kafka Streams'
consumer default, 1000, because its queries share the interpreter with the request path and every stretch the
runner holds it without a switch grows with the batch (issue 20: REST pull p99 while a query drains); else 10,000.
Results do not depend on where batches are cut: the same inputs through a stream-stream join, a stream-table join
and an aggregation give the same sink at any batch size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from app_client import serving  # noqa: E402

from ksqlpy.engine import Engine
from ksqlpy.runtime.context import BATCH_RECORDS, KAFKA_STREAMS_MAX_POLL_RECORDS
from ksqlpy.runtime.join_task import JoinTask
from ksqlpy.runtime.task import Task

SOURCES = ("CREATE STREAM P (ID BIGINT KEY, NAME STRING, TS BIGINT) WITH (kafka_topic='p', value_format='JSON', "
           "partitions=2, timestamp='TS');"
           "CREATE STREAM A (ID BIGINT KEY, SELLER BIGINT, TS BIGINT) WITH (kafka_topic='a', value_format='JSON', "
           "partitions=2, timestamp='TS');"
           "CREATE TABLE PT (ID BIGINT PRIMARY KEY, NAME STRING, TS BIGINT) WITH (kafka_topic='p', "
           "value_format='JSON', partitions=2, timestamp='TS');")

QUERIES = {
    "SS": "CREATE TABLE SS AS SELECT P.ID AS PID, COUNT(*) AS C FROM P JOIN A WITHIN 2 SECONDS "
          "ON P.ID = A.SELLER WINDOW TUMBLING (SIZE 5 SECONDS) GROUP BY P.ID EMIT CHANGES;",
    "ST": "CREATE STREAM ST AS SELECT A.SELLER AS SELLER, A.TS AS ATS, PT.NAME AS NAME FROM A JOIN PT ON A.SELLER = PT.ID EMIT CHANGES;",
    "AG": "CREATE TABLE AG AS SELECT SELLER, COUNT(*) AS C, MAX(TS) AS M FROM A GROUP BY SELLER EMIT CHANGES;",
}


def _tasks(engine: Engine) -> list[Any]:
    return [t for q in engine.queries.values() for t in q.tasks]


def _load(engine: Engine, n: int = 120) -> None:
    for p in range(2):
        with engine.log.transaction() as tx:
            ids = [2 * i + p for i in range(n)]
            tx.produce_batch("p", p, [i.to_bytes(8, "big") for i in ids],
                             [orjson.dumps({"NAME": f"n{i}", "TS": 1000 * i}) for i in ids], [1000 * i for i in ids])
            tx.produce_batch("a", p, [(1000 + i).to_bytes(8, "big") for i in ids],
                             [orjson.dumps({"SELLER": i - i % 3, "TS": 1000 * i + 300}) for i in ids],
                             [1000 * i + 300 for i in ids])


def _run(path: Path, props: dict[str, Any], default: int | None = None) -> tuple[dict[str, list], list[int]]:
    engine = Engine(str(path), {"auto.offset.reset": "earliest", **props})
    try:
        if default is not None:
            engine.poll_records_default = default
        engine.execute(SOURCES)
        for sql in QUERIES.values():
            engine.execute(sql)
        _load(engine)
        engine.drain(60)
        sinks: dict[str, Any] = {}
        for name in QUERIES:
            rows: list[tuple] = []
            for p in range(engine.log.describe_topic(name).partitions):
                b = engine.log.fetch(name, p, 0, 100_000)
                rows += zip(b.keys, b.values, strict=True)
            sinks[name] = rows
        return sinks, sorted({t.max_batch for t in _tasks(engine)})
    finally:
        engine.close()


def test_default_batch(tmp_path: Path) -> None:
    _, sizes = _run(tmp_path, {})
    assert sizes == [BATCH_RECORDS]


@pytest.mark.parametrize("name", ["max.poll.records", "ksql.streams.max.poll.records"])
def test_max_poll_records_sets_the_batch(tmp_path: Path, name: str) -> None:
    _, sizes = _run(tmp_path, {name: "7"})
    assert sizes == [7]


def test_property_wins_over_the_engine_default(tmp_path: Path) -> None:
    _, sizes = _run(tmp_path / "a", {}, default=KAFKA_STREAMS_MAX_POLL_RECORDS)
    assert sizes == [KAFKA_STREAMS_MAX_POLL_RECORDS]
    _, sizes = _run(tmp_path / "b", {"max.poll.records": 500}, default=KAFKA_STREAMS_MAX_POLL_RECORDS)
    assert sizes == [500]


def test_a_task_takes_at_most_its_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[int] = []
    for cls in (Task, JoinTask):
        poll = cls.poll

        def spy(self: Any, _poll: Any = poll) -> int:
            n = _poll(self)
            taken.append(n)
            return n

        monkeypatch.setattr(cls, "poll", spy)
    _run(tmp_path, {"max.poll.records": 5})
    assert taken and max(taken) <= 5 * 2  # a join task: up to the batch from each of its two inputs
    assert sum(1 for n in taken if n) > 120 * 4 / 10


@pytest.mark.parametrize("size", [1, 3, 7, 64])
def test_results_do_not_depend_on_the_batch(tmp_path: Path, size: int) -> None:
    want, _ = _run(tmp_path / "default", {})
    got, sizes = _run(tmp_path / "small", {"max.poll.records": size})
    assert sizes == [size]
    for name in QUERIES:
        assert want[name], name
        if name == "ST":  # a stream: every row, in any batching
            assert sorted(got[name]) == sorted(want[name]), name
        else:  # a table: the last row per key (how many updates go out depends on the cache's flushes)
            assert dict(got[name]) == dict(want[name]), name


@pytest.mark.parametrize("configured", [None, "250"])
def test_the_server_takes_kafka_streams_default(tmp_path: Path, configured: str | None) -> None:
    pytest.importorskip("fastapi")
    import warnings

    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

    from ksqlpy.server.app import create_app
    from ksqlpy.server.config import build_config
    from ksqlpy.server.context import ServerContext

    overrides = {"ksql.logging.processing.stream.auto.create": "false"}
    if configured is not None:
        overrides["ksql.streams.max.poll.records"] = configured
    config = build_config(data_dir=str(tmp_path), overrides=overrides)
    ctx = ServerContext(config)
    with serving(create_app(config, ctx)) as c:
        r = c.post("/ksql", json={"ksql": SOURCES + QUERIES["AG"]})
        assert r.status_code == 200, r.text
        sizes = sorted({t.max_batch for t in _tasks(ctx.engine)})
    assert sizes == [KAFKA_STREAMS_MAX_POLL_RECORDS if configured is None else int(configured)]
