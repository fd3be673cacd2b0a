"""Partition dealing and worker counts (pure functions)."""

from __future__ import annotations

from types import SimpleNamespace

from ksqlpy.runtime.assignment import deal, partition_count, query_topics, task_topics, worker_count


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
