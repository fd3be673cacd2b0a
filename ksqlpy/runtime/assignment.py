"""Which worker runs which partitions, and what a query's tasks read.

Tasks are grouped by partition number: tasks ``0_p`` and ``1_p`` of a repartitioned query, and every input
of a join task, share ``p``, so a worker owning partition ``p`` owns all of them (co-partitioning). On
Kafka the consumer group's range assignor gives each member the same partition numbers of every topic it
subscribes to; on the EmbeddedLog the engine deals partition numbers round-robin itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

COUNT_PROPERTY = "ksqlpy.workers.count"


def task_topics(task: Any) -> list[str]:
    """The input topics of a task (a join task reads several)."""
    ctx = getattr(task, "ctx", None)
    channels = getattr(ctx, "channels", None)
    if channels:
        return [ch.topic for ch in channels]
    return [task.topic]


def query_topics(tasks: Iterable[Any]) -> list[str]:
    return sorted({t for task in tasks for t in task_topics(task)})


def partition_count(tasks: Iterable[Any]) -> int:
    return max((t.partition for t in tasks), default=-1) + 1


def deal(partitions: int, workers: int) -> list[list[int]]:
    """Round-robin partition numbers over ``workers`` (worker i gets p with p % workers == i)."""
    return [[p for p in range(partitions) if p % workers == i] for i in range(workers)]


def worker_count(requested: Any, partitions: int) -> int:
    """``num.stream.threads`` capped by the partitions there are to share (at least one worker)."""
    try:
        n = int(requested)
    except (TypeError, ValueError):
        n = 1
    return max(1, min(n, max(partitions, 1)))


def default_worker_count(setting: Any, partitions: int, cores: int | None = None) -> int:
    """``ksqlpy.workers.count`` (used when ``num.stream.threads`` is not set): ``auto`` - as many workers
    as the query has partitions and the machine has cores (``os.sched_getaffinity``: the cores this
    process may run on) - or a number, capped by the partitions. A bad value counts as ``auto``."""
    text = str(setting).strip().lower()
    if text != "auto":
        try:
            return worker_count(int(text), partitions)
        except ValueError:
            pass
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
    return worker_count(cores, partitions)
