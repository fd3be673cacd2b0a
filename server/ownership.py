"""Which partitions of each persistent query this server holds - active or standby - and how far behind
its copies of their state stores are.

*Active* partitions are the ones this server's tasks process: on Kafka what the query's consumer group
gave this server's members (``coordinator.QueryWorkers``: worker processes, or member threads for inline
queries), elsewhere all of them. *Standby* partitions (``num.standby.replicas`` = N) are kept warm from
their changelogs by this server although another one processes them: for each partition the N live
servers after its active one, in the order of their advertised listeners (every server computes the same
placement from the same reports). The engine keeps a copy of every partition's stores; ``refresh`` keeps
the copies of the active and standby partitions caught up with their changelogs, which is what pull
queries read here.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ksqlpy.engine.metrics import query_group, stores

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

LOG = logging.getLogger("ksqlpy.cluster")


@dataclass
class QueryPlacement:
    """One query's partitions on one host, as reported (``HostStatus.queries``)."""

    partitions: int
    active: list[int] = field(default_factory=list)
    standby: list[int] = field(default_factory=list)
    lags: dict[int, int] = field(default_factory=dict)  # partition -> offset lag of this host's copy
    stores: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"partitions": self.partitions, "active": self.active, "standby": self.standby,
                "lags": {str(p): lag for p, lag in self.lags.items()}, "stores": self.stores, "topics": self.topics}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> QueryPlacement:
        return QueryPlacement(int(raw.get("partitions", 0)), [int(p) for p in raw.get("active", [])],
                              [int(p) for p in raw.get("standby", [])],
                              {int(p): int(v) for p, v in (raw.get("lags") or {}).items()},
                              list(raw.get("stores", [])), list(raw.get("topics", [])))


def query_partitions(query: Any) -> int:
    """How many partitions (task numbers) a persistent query has."""
    workers = getattr(query, "workers", None)
    if workers is not None:
        return max((p for _, p in workers.inputs), default=-1) + 1
    return max((t.partition for t in query.tasks), default=-1) + 1


def active_partitions(query: Any) -> list[int]:
    """The partitions this server's tasks of ``query`` process now."""
    workers = getattr(query, "workers", None)
    if workers is None:
        return sorted({t.partition for t in query.tasks})
    got: set[int] = set()
    for status in workers.statuses():
        got.update(int(p) for p in status.get("assigned") or [])
    return sorted(got)


def input_topics(query: Any) -> list[str]:
    workers = getattr(query, "workers", None)
    if workers is not None:
        return sorted({t for t, _ in workers.inputs})
    return sorted({t.topic for t in query.tasks})


def store_names(engine: Engine, query: Any) -> list[str]:
    prefix = query_group(engine, query.query_id) + "-"
    out = []
    for kv in stores(query):
        topic = getattr(kv, "topic", None) or ""
        name = (topic[len(prefix):] if topic.startswith(prefix) else topic).removesuffix("-changelog")
        if name and name not in out:
            out.append(name)
    return out


def store_lags(engine: Engine, query: Any, partitions: Iterable[int]) -> dict[str, Any]:
    """ksqlDB's ``stateStoreLags`` entries (``<application id>#<store>`` -> ``{lagByPartition, size}``) of
    this server's copies of ``partitions``: how far each is behind its changelog's end."""
    from ksqlpy.engine.metrics import store_lags as lags_of

    wanted = {str(p) for p in partitions}
    if not wanted:
        return {}
    group = query_group(engine, query.query_id)
    out = {}
    for store, parts in lags_of(engine, query).items():
        kept = {p: lag for p, lag in parts.items() if p in wanted}
        if kept:
            out[f"{group}#{store}"] = {"lagByPartition": kept, "size": len(kept)}
    return out


def partition_lags(entries: dict[str, Any]) -> dict[int, int]:
    """Partition -> the largest offset lag over its stores."""
    out: dict[int, int] = {}
    for entry in entries.values():
        for p, lag in (entry.get("lagByPartition") or {}).items():
            out[int(p)] = max(out.get(int(p), 0), int(lag.get("offsetLag", 0)))
    return out


def standby_placement(me: str, live: list[str], active_of: dict[int, str], partitions: int,
                      replicas: int) -> set[int]:
    """The partitions ``me`` keeps a standby of: for each partition with a known active host, the
    ``replicas`` live hosts after it in listener order (never the active host itself)."""
    if replicas <= 0:
        return set()
    ring = sorted(set(live) | {me})
    mine = set()
    for p in range(partitions):
        owner = active_of.get(p)
        if owner is None or owner == me:
            continue
        at = ring.index(owner) if owner in ring else -1
        others = [ring[(at + i) % len(ring)] for i in range(1, len(ring))] if at >= 0 else ring
        if me in [h for h in others if h != owner][:replicas]:
            mine.add(p)
    return mine


def warm_copy(engine: Engine, changelog: str, partition: int) -> Any:
    """The engine's copy of the store on ``changelog``'s ``partition`` (kept caught up while it is a standby
    or active partition here), for a member thread's store to start its restore from; None if there is
    none. Only the engine's own copies (under ``<data_dir>/state``), never a member thread's stores."""
    root = os.path.join(engine.data_dir, "state") + os.sep
    for q in list(engine.queries.values()):
        for kv in stores(q):
            if (kv.topic == changelog and kv.partition == partition and not kv.closed
                    and kv.directory.startswith(root)):
                return kv
    return None


def refresh(engine: Engine, query: Any, partitions: Iterable[int]) -> int:
    """Catch this server's copy of ``partitions`` up with their changelogs (``KeyValueStore.follow``);
    aggregations reload what they keep in memory of the state (stream time, last emit)."""
    wanted = set(partitions)
    applied = 0
    touched: set[int] = set()
    for kv in stores(query):
        if kv.partition in wanted and kv.env is not None:
            with engine.lock:
                n = kv.follow()
            if n:
                applied += n
                touched.add(kv.partition)
    if touched:
        built = getattr(getattr(query, "materialization", None), "built", None)
        for agg in getattr(built, "aggregators", []) or []:
            if agg.kv.partition in touched:
                with engine.lock:
                    agg.load_meta()
    return applied
