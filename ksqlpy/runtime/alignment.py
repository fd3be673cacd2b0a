"""Which in-process tasks feed each input of a task, so that a task with several inputs waits for an input
whose records are still upstream (Kafka Streams' PartitionGroup with ``max.task.idle.ms``, KIP-695).

A task with several input partitions takes the record with the smallest timestamp among its inputs'
heads (``runtime.join_task``) and does not process while one input is empty but known to have data not
yet fetched. Kafka Streams knows that from the consumer's lag. In one process there is more to know: an
internal topic (a repartition, a foreign-key subscription or response topic) is empty only because the
sub-topology writing it has not run yet - its own input holds the records. Processing the other inputs
meanwhile pushes the task's stream time past them, and they arrive late (a join ``WITHIN ...
GRACE PERIOD 0`` drops them; a stream-table join reads a table row from after its stream record).

``wire_upstream`` gives each task the in-process tasks writing the topics it reads (``Upstream``); an
input waits for them while they have unprocessed input (``pending``). The wait is bounded as
``max.task.idle.ms`` bounds Kafka Streams': an upstream that stops progressing (no record processed
between two waits) is waited for at most that long (default 0: not past the poll that saw it stall);
``max.task.idle.ms`` < 0 never waits. Sub-topologies feeding each other both ways (a foreign-key join's
subscription and response topics) do not wait for each other: each would wait for the other forever.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from ksqlpy.plan.topology import (
    ForeignKeyLeft,
    ForeignKeyRight,
    JoinChannel,
    JoinOperator,
    JoinStage,
    ReadRepartition,
    ReadSource,
    SubTopology,
    Topology,
    ToRepartition,
    WriteRepartition,
)


def reads(sub: SubTopology) -> set[str]:
    """The topics the tasks of ``sub`` read."""
    out: set[str] = set()
    for op in sub.operators:
        if isinstance(op, ReadSource):
            out.add(op.source.topic)
        elif isinstance(op, ReadRepartition):
            out.add(op.topic)
        elif isinstance(op, JoinStage):
            out |= {w.topic for w in op.wiring if isinstance(w, JoinChannel)}
    return out


def writes(sub: SubTopology) -> set[str]:
    """The internal topics the tasks of ``sub`` write (repartition, subscription and response topics)."""
    out: set[str] = set()
    for op in sub.operators:
        if isinstance(op, WriteRepartition):
            out.add(op.topic)
        elif isinstance(op, JoinStage):
            for w in op.wiring:
                if isinstance(w, (JoinChannel, JoinOperator)):
                    target = w.target if isinstance(w, JoinChannel) else w.output
                    if isinstance(target, ToRepartition):
                        out.add(target.topic)
                elif isinstance(w, ForeignKeyLeft):
                    out.add(w.subscription_topic)
                    if isinstance(w.output, ToRepartition):
                        out.add(w.output.topic)
                elif isinstance(w, ForeignKeyRight):
                    out.add(w.response_topic)
    return out


def feeders(topology: Topology) -> dict[tuple[int, str], list[int]]:
    """(reading sub-topology, topic) -> the sub-topologies writing that topic which the reader does not
    feed in turn (directly or through others)."""
    subs = topology.sub_topologies
    wr = {s.id: writes(s) for s in subs}
    rd = {s.id: reads(s) for s in subs}
    downstream = {s.id: {r.id for r in subs if wr[s.id] & rd[r.id]} for s in subs}

    def reaches(a: int, b: int) -> bool:
        seen, todo = set(), [a]
        while todo:
            x = todo.pop()
            if x == b:
                return True
            if x not in seen:
                seen.add(x)
                todo.extend(downstream[x])
        return False

    out: dict[tuple[int, str], list[int]] = {}
    for r in subs:
        for topic in rd[r.id]:
            ws = [w.id for w in subs if topic in wr[w.id] and w.id != r.id and not reaches(r.id, w.id)]
            if ws:
                out[(r.id, topic)] = ws
    return out


def upstream_first(order: list[SubTopology], topology: Topology) -> list[SubTopology]:
    """``order`` with every sub-topology after those feeding it (``feeders``), otherwise kept: in a round
    of polls an input's upstream has run before the task waiting for it, so a round in which nothing
    progressed leaves no task waiting (a drain that ends there has processed everything)."""
    fed_by: dict[int, set[int]] = {}
    for (reader, _), ws in feeders(topology).items():
        fed_by.setdefault(reader, set()).update(ws)
    out: list[SubTopology] = []
    placed: set[int] = set()
    todo = list(order)
    while todo:
        nxt = next((s for s in todo if fed_by.get(s.id, set()) <= placed), todo[0])
        todo.remove(nxt)
        out.append(nxt)
        placed.add(nxt.id)
    return out


def unprocessed(task: Any) -> bool:
    """Whether ``task`` or a task upstream of it in this process holds records not processed yet."""
    if task.has_input():
        return True
    return any(unprocessed(u) for u in getattr(task, "upstream_tasks", ()))


def progress(tasks: Iterable[Any]) -> int:
    """The records processed so far by ``tasks`` and every task upstream of them (a stall leaves it still)."""
    return sum(t.processed + progress(getattr(t, "upstream_tasks", ())) for t in tasks)


class Upstream:
    """The in-process tasks writing one input topic of a task, and the bounded wait for them."""

    def __init__(self, tasks: list[Any], idle_ms: int) -> None:
        self.tasks = tasks
        self.idle_s = idle_ms / 1000.0
        self.never = idle_ms < 0
        self._stalled_at: float | None = None  # when the upstream was first seen not progressing
        self._seen = -1  # its progress then

    def pending(self) -> bool:
        """Whether the input may not run dry yet: an upstream task has records to process, and has
        processed some since the last wait (or stalled less than ``max.task.idle.ms`` ago)."""
        if self.never or not any(unprocessed(t) for t in self.tasks):
            self._stalled_at = None
            return False
        now = progress(self.tasks)
        if now != self._seen:
            self._seen = now
            self._stalled_at = None
            return True
        if self._stalled_at is None:
            self._stalled_at = time.monotonic()
        return time.monotonic() - self._stalled_at < self.idle_s


def max_task_idle_ms(ctx: Any) -> int:
    """``max.task.idle.ms`` (also as ``ksql.streams.max.task.idle.ms``): Kafka Streams' default 0."""
    try:
        return int(ctx.prop("max.task.idle.ms", 0))
    except (TypeError, ValueError):
        return 0


def wire_upstream(ctx: Any, topology: Topology, tasks: list[tuple[SubTopology, int, Any]]) -> None:
    """Give each task the in-process tasks writing each topic it reads (``upstream_tasks``), and each
    input of a task with several inputs its ``Upstream`` wait."""
    by_sub: dict[int, list[Any]] = {}
    for sub, _, task in tasks:
        by_sub.setdefault(sub.id, []).append(task)
    links = feeders(topology)
    idle_ms = max_task_idle_ms(ctx)
    for sub, _, task in tasks:
        ups: list[Any] = []
        for topic in reads(sub):
            writers = [t for w in links.get((sub.id, topic), ()) for t in by_sub.get(w, ())]
            ups += writers
            for ch in getattr(getattr(task, "ctx", None), "channels", ()):
                if ch.topic == topic and writers:
                    ch.upstream = Upstream(writers, idle_ms)
        task.upstream_tasks = ups
