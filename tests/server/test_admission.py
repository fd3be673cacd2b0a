"""Atomic admission of push queries: with ``ksql.max.push.queries`` = N, any number of concurrent
requests start exactly N push queries; the others get ksqlDB's limit error; ending one frees its slot."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from ksqlpy.server import queries as Q  # noqa: E402
from ksqlpy.server.admission import Slots  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402
from ksqlpy.server.context import ServerContext  # noqa: E402
from ksqlpy.server.errors import ServerError  # noqa: E402


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ServerContext]:
    config = build_config(data_dir=str(tmp_path), overrides={
        "ksql.max.push.queries": "100", "ksql.logging.processing.stream.auto.create": "false"})
    c = ServerContext(config)
    c.initialize()
    assert c.init_error is None, c.init_error
    c.engine.execute("CREATE STREAM A (ID INT KEY, V STRING) WITH (kafka_topic='a', partitions=1, "
                     "value_format='JSON');")
    yield c
    c.close()


def test_concurrent_push_queries_past_the_limit_start_exactly_the_limit(ctx: ServerContext) -> None:
    started: list[Q.QueryRun] = []
    refused: list[ServerError] = []
    gate = threading.Barrier(200)
    lock = threading.Lock()

    def request() -> None:
        gate.wait()
        try:
            run = Q.start_query(ctx, "SELECT * FROM A EMIT CHANGES;", {}, {})
        except ServerError as e:
            with lock:
                refused.append(e)
        else:
            with lock:
                started.append(run)

    threads = [threading.Thread(target=request) for _ in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(started) == 100
    assert len(refused) == 100
    assert ctx.push_count() == 100 == len(ctx.push_queries)
    assert "Configured limit: 100." in refused[0].message
    assert "Current push query count: 100." in refused[0].message
    # ending one frees exactly one slot
    assert ctx.close_push(started[0].query_id)
    assert ctx.push_count() == 99
    Q.start_query(ctx, "SELECT * FROM A EMIT CHANGES;", {}, {})
    with pytest.raises(ServerError):
        Q.start_query(ctx, "SELECT * FROM A EMIT CHANGES;", {}, {})


def test_a_push_query_that_fails_to_start_gives_its_slot_back(ctx: ServerContext) -> None:
    with pytest.raises(ServerError):
        Q.start_query(ctx, "SELECT * FROM NOPE EMIT CHANGES;", {}, {})
    assert ctx.push_count() == 0


def test_slots_take_and_give_back() -> None:
    limit = [2]
    slots = Slots(lambda: limit[0])
    assert slots.try_take() and slots.try_take()
    assert not slots.try_take()
    slots.give_back()
    assert slots.in_use == 1
    limit[0] = 1
    assert not slots.try_take()
    slots.give_back()
    slots.give_back()  # never below zero
    assert slots.in_use == 0
