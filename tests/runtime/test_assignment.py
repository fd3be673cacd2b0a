"""Partition dealing and worker counts (pure functions)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ksqlpy.runtime.assignment import (
    deal,
    default_worker_count,
    partition_count,
    query_topics,
    task_topics,
    worker_count,
)


def test_deal_is_round_robin_and_covers_every_partition() -> None:
    assert deal(4, 2) == [[0, 2], [1, 3]]
    assert deal(3, 2) == [[0, 2], [1]]
    assert sorted(p for share in deal(7, 3) for p in share) == list(range(7))


def test_worker_count_is_capped_by_partitions() -> None:
    assert worker_count(4, 2) == 2
    assert worker_count("2", 8) == 2
    assert worker_count(None, 4) == 1 and worker_count(0, 4) == 1


def test_topics_of_single_and_multi_input_tasks() -> None:
    single = SimpleNamespace(topic="a", partition=3)
    join = SimpleNamespace(ctx=SimpleNamespace(channels=[SimpleNamespace(topic="l"), SimpleNamespace(topic="r")]),
                           topic="l", partition=1)
    assert task_topics(single) == ["a"] and task_topics(join) == ["l", "r"]
    assert query_topics([single, join]) == ["a", "l", "r"]
    assert partition_count([single, join]) == 4


@pytest.mark.parametrize(("setting", "partitions", "cores", "expected"), [
    ("auto", 4, 2, 2),  # the cores allow two
    ("auto", 1, 8, 1),  # the partitions allow one
    ("auto", 6, 8, 6),
    (" AUTO ", 0, 2, 1),  # at least one
    ("3", 4, 2, 3),  # a number: as asked (capped by the partitions only)
    (5, 4, 2, 4),
    ("many", 4, 2, 2),  # not a count: auto
])
def test_default_worker_count(setting: object, partitions: int, cores: int, expected: int) -> None:
    assert default_worker_count(setting, partitions, cores) == expected


def test_default_worker_count_uses_the_cores_this_process_may_run_on() -> None:
    assert default_worker_count("auto", 64) == min(64, len(os.sched_getaffinity(0)))


@pytest.mark.parametrize(("props", "expected"), [
    ({}, "auto"),  # neither set: as many as the partitions (4) and the cores allow
    ({"ksqlpy.workers.count": 1}, 1),
    ({"ksqlpy.workers.count": "auto", "num.stream.threads": 1}, 1),  # ksqlDB's name wins when set
    ({"ksql.streams.num.stream.threads": 3}, 3),
])
def test_worker_processes_per_query(tmp_path: Path, props: dict[str, Any], expected: Any) -> None:
    from ksqlpy.engine import Engine

    engine = Engine(str(tmp_path / "data"), {"ksqlpy.workers": "process", **props})
    try:
        engine.execute("CREATE STREAM s (a INT) WITH (kafka_topic='s', value_format='JSON', partitions=4);"
                       "CREATE STREAM t AS SELECT a FROM s;")
        (query,) = engine.queries.values()
        want = min(4, len(os.sched_getaffinity(0))) if expected == "auto" else expected
        assert len(query.workers.workers) == want
    finally:
        engine.close()
