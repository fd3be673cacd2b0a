"""Consistency tokens of pull queries: ksqlDB's ``ConsistencyOffsetVector`` (monotonic reads).

With ``ksql.query.pull.consistency.token.enabled`` (KsqlConfig, default false; a request may set it) a pull
query on a table answers, after its rows, with a token: the offset vector of what the stores it read had
processed - per input topic and partition, the offset of the last record the store's task took in (Kafka
Streams' IQv2 ``Position``), merged (per component, the larger) into the vector the request brought. A
client sends the token back (request property ``request.ksql.query.pull.consistency.offset.vector``) with
its next pull query; the store must then have processed at least that far on every partition the query
reads, or the query fails (IQv2's ``PositionBound`` check, ``NOT_UP_TO_BOUND``) - it never answers from
state older than an earlier answer.

The token is ``base64(json({"version":0,"offsetVector":{topic:{partition:offset}}}))`` (Jackson's
compact writing). Names, the wire form and the failure text are from memory of ksqlDB's and Kafka
Streams' sources (``ConsistencyOffsetVector.serialize``, ``StoreQueryUtils.isPermitted``,
``QueryResult.notUpToBound``, ``KsMaterializedTableIQv2.failedQueryException``).
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.errors import KsqlError

ENABLED = "ksql.query.pull.consistency.token.enabled"
REQUEST_VECTOR = "request.ksql.query.pull.consistency.offset.vector"
VERSION = 0

# the token the request being served brought (the REST server sets it from requestProperties)
requested: contextvars.ContextVar[str | None] = contextvars.ContextVar("ksqlpy_consistency_vector", default=None)


class ConsistencyError(KsqlError):
    """A token that cannot be read, or a store not yet as far as the token says."""


class NotUpToBound(ConsistencyError):
    """A store partition read is behind the request's bound (ksqlDB's ``NotUpToBoundException``, thrown by
    ``KsMaterializedTableIQv2`` when the physical plan reads the store: a failure of the host that ran it)."""


@dataclass
class OffsetVector:
    """topic -> partition -> offset of the last record processed."""

    offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    version: int = VERSION

    def update(self, topic: str, partition: int, offset: int) -> None:
        parts = self.offsets.setdefault(topic, {})
        parts[partition] = max(offset, parts.get(partition, offset))

    def merge(self, other: OffsetVector) -> None:
        for topic, parts in other.offsets.items():
            for p, o in parts.items():
                self.update(topic, p, o)

    def serialize(self) -> str:
        """Jackson's writing of the vector's maps (ConcurrentHashMaps): keys in their iteration order."""
        vector = {t: {str(p): self.offsets[t][p] for p in _java_order(list(self.offsets[t]), int)}
                  for t in _java_order(list(self.offsets), _string_hash)}
        body = {"version": self.version, "offsetVector": vector}
        return base64.b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()

    @classmethod
    def deserialize(cls, token: str) -> OffsetVector:
        try:
            body = json.loads(base64.b64decode(token.encode(), validate=True))
            vector = body.get("offsetVector") or {}
            offsets = {str(t): {int(p): int(o) for p, o in parts.items()} for t, parts in vector.items()}
            return cls(offsets, int(body.get("version", VERSION)))
        except (binascii.Error, ValueError, TypeError, AttributeError, UnicodeDecodeError) as e:
            raise ConsistencyError(f"Couldn't decode consistency token: {token}") from e

    def text(self) -> str:
        """Kafka Streams' ``Position.toString``: ``Position{position={topic={0=5}}}``."""
        inner = ", ".join(f"{t}={{" + ", ".join(f"{p}={o}" for p, o in parts.items()) + "}"
                          for t, parts in self.offsets.items())
        return f"Position{{position={{{inner}}}}}"


def _string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (UTF-16 code units), as a 32-bit int."""
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def _java_order(keys: list[Any], hash_of: Any) -> list[Any]:
    """A ConcurrentHashMap's iteration order: by bin (the spread hash masked by the table size, 16 growing
    by doubling past three quarters full), insertion order within a bin."""
    n = 16
    while len(keys) > n * 3 // 4:
        n *= 2

    def bin_of(k: Any) -> int:
        h = hash_of(k) & 0xFFFFFFFF
        return ((h ^ (h >> 16)) & 0x7FFFFFFF) & (n - 1)

    return sorted(keys, key=bin_of)


def merged(tokens: Iterable[str | None]) -> str:
    """The tokens of the parts of one answer (the hosts that served its partitions) as one token: each
    component the largest offset any part saw (ksqlDB's HARouting merges each forwarded response's token
    into the query's vector)."""
    vector = OffsetVector()
    for token in tokens:
        if token:
            vector.merge(OffsetVector.deserialize(token))
    return vector.serialize()


def enabled(engine: Any) -> bool:
    """The switch, with the session's and request's overrides (a request turns tokens on for itself)."""
    return str(engine.prop(ENABLED, "false")).strip().lower() == "true"


def requested_vector() -> OffsetVector:
    """The vector the request brought (empty if none)."""
    token = requested.get()
    return OffsetVector.deserialize(token) if token else OffsetVector()


def permits(position: OffsetVector, bound: OffsetVector, partition: int) -> bool:
    """IQv2's rule for one store partition: every bound topic with a bound for this partition must have been
    processed at least that far (a topic the store never saw is behind)."""
    for topic, bounds in bound.offsets.items():
        if partition not in bounds:
            continue
        seen = position.offsets.get(topic, {})
        if partition not in seen or seen[partition] < bounds[partition]:
            return False
    return True


def check_bound(position: dict[int, OffsetVector], bound: OffsetVector) -> None:
    """Refuse a read of store partitions (``position``: each one's vector) behind ``bound``."""
    for partition, pos in sorted(position.items()):
        if not permits(pos, bound, partition):
            raise NotUpToBound(
                "Failed to get value from materialized table: NOT_UP_TO_BOUND: For store partition "
                f"{partition}, the current position {pos.text()} is not yet up to the bound "
                f"PositionBound{{position={bound.text()}}}")


def store_positions(engine: Any, query: Any, partitions: Iterable[int], committed: bool) -> dict[int, OffsetVector]:
    """Per store partition read, the vector of what its task processed: the input topics of the
    sub-topology holding the table's stores, the last offset taken in from each. ``committed``: the read
    sees committed state only (a pull query beside a running task), so the committed positions count."""
    sub = _materializing_sub(query)
    wanted = set(partitions)
    out: dict[int, OffsetVector] = {p: OffsetVector() for p in wanted}
    if sub is None:
        return out
    topics = _input_topics(sub)
    group = query.topology.application_id
    tasks = {str(getattr(t, "task_id", "")): t for t in getattr(query, "tasks", None) or []}
    log = engine.log
    for p in wanted:
        task = tasks.get(f"{sub.id}_{p}")
        for topic in topics:
            nxt = _next_offset(log, group, task, topic, p, committed)
            if nxt is not None and nxt > log.start_offset(topic, p):
                out[p].update(topic, p, nxt - 1)
    return out


def store_partition_count(query: Any) -> int:
    """How many partitions the table's stores have (the sub-topology holding them runs one task each)."""
    sub = _materializing_sub(query)
    return int(sub.partitions) if sub is not None else 1


def _next_offset(log: Any, group: str, task: Any, topic: str, partition: int, committed: bool) -> int | None:
    if task is not None and not committed:
        channels = getattr(getattr(task, "ctx", None), "channels", None)
        if channels is not None:  # a join task: one position per input topic
            return next((ch.position for ch in channels if ch.topic == topic), None)
        if getattr(task, "topic", None) == topic:
            return int(task.position)
    if task is not None and getattr(task, "topic", None) == topic and hasattr(task, "committed_position"):
        return int(task.committed_position)
    try:
        return log.committed(group, topic, partition)
    except Exception:  # noqa: BLE001 - a topic gone meanwhile: nothing processed from it
        return None


def _materializing_sub(query: Any) -> Any:
    from ksqlpy.plan.topology import AggregateStage, Materialize

    topology = getattr(query, "topology", None)
    for sub in getattr(topology, "sub_topologies", None) or []:
        if sub.operator(AggregateStage) is not None or sub.operator(Materialize) is not None:
            return sub
    return None


def _input_topics(sub: Any) -> list[str]:
    from ksqlpy.plan.topology import JoinChannel, JoinStage, ReadRepartition, ReadSource

    first = sub.operators[0]
    if isinstance(first, ReadSource):
        return [first.source.topic]
    if isinstance(first, ReadRepartition):
        return [first.topic]
    if isinstance(first, JoinStage):
        return [w.topic for w in first.wiring if isinstance(w, JoinChannel)]
    return []
