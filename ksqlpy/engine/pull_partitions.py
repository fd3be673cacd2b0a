"""Which partitions of a table a pull query reads: all of them, only some (the ones a cluster routed to
this server), or none while the server finds out which it needs (a probe).

A server of a cluster answers a pull query from the partitions it holds and forwards the rest (ksqlDB's
``HARouting``). It first runs the query as a *probe*: the lookups of the table's materialization record
the partition of each key they would read (Kafka's default partitioner over the key as the state stores
are partitioned) and return nothing, a scan records that it needs every partition. Then it runs the query
reading only its own partitions and asks the owners of the others
(``request.ksql.query.pull.partitions``). The restriction is per thread (``reading``); the engine applies
it where a pull query gets the table's materialization (``materialized.materialization_for``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.runtime.materialize import AggregateMaterialization, Materialization, StoreMaterialization

_state = threading.local()


@dataclass
class Probe:
    """What a probe run found: the query materializing the table and the partitions it needs."""

    query_id: str | None = None
    partitions: int = 0
    needed: set[int] = field(default_factory=set)
    scan: bool = False
    keyed: bool = True  # False: some key's partition could not be computed (read every partition)


@contextmanager
def reading(partitions: frozenset[int] | None = None, probe: Probe | None = None) -> Iterator[None]:
    """Pull queries of this thread read only ``partitions``, or only probe (see the module docstring)."""
    saved = getattr(_state, "mode", None)
    _state.mode = (partitions, probe)
    try:
        yield
    finally:
        _state.mode = saved


def restricted() -> bool:
    return getattr(_state, "mode", None) is not None


def current() -> tuple[frozenset[int] | None, Probe | None] | None:
    """This thread's restriction: (the partitions read, the probe), or None (every partition is read)."""
    return getattr(_state, "mode", None)


def restrict(query: Any, mat: Materialization) -> Materialization:
    """The materialization as this thread's pull queries may read it."""
    mode = getattr(_state, "mode", None)
    if mode is None:
        return mat
    partitions, probe = mode
    if probe is not None:
        return _ProbeMaterialization(query, mat, probe)
    return only(mat, partitions or frozenset())


def _partition_of_store(s: Any) -> int:
    return int(getattr(getattr(s, "kv", s), "partition", 0))


def only(mat: Materialization, partitions: frozenset[int]) -> Materialization:
    """``mat`` reading the stores of ``partitions`` alone."""
    if isinstance(mat, AggregateMaterialization):
        built = mat.built
        view = SimpleNamespace(aggregators=[a for a in built.aggregators if a.kv.partition in partitions],
                               spec=built.spec, stores=[s for s in built.stores if s.partition in partitions])
        return AggregateMaterialization(view, mat.windowed)
    if isinstance(mat, StoreMaterialization):
        return mat.with_stores([s for s in mat.stores if _partition_of_store(s) in partitions])
    return mat


def partition_count(mat: Materialization) -> int:
    if isinstance(mat, AggregateMaterialization):
        return max((a.kv.partition for a in mat.built.aggregators), default=-1) + 1
    if isinstance(mat, StoreMaterialization):
        return max((_partition_of_store(s) for s in mat.stores), default=-1) + 1
    return 0


def key_partition(mat: Materialization, key: tuple, partitions: int) -> int | None:
    """The partition whose stores hold ``key``: Kafka's default partitioner over the key as the query
    partitions its state (the group key serialized in its internal key format, or the table's key)."""
    if isinstance(mat, AggregateMaterialization):
        sort_key = mat.built.spec.sort_key
    elif isinstance(mat, StoreMaterialization):
        sort_key = mat.sort_key
    else:
        return None
    try:
        raw = sort_key(tuple(key))
    except Exception:  # noqa: BLE001 - a key we cannot serialize: read every partition
        return None
    if not isinstance(raw, bytes | bytearray) or partitions <= 0:
        return None
    return partition_for_key(bytes(raw), partitions)


class _ProbeMaterialization(Materialization):
    def __init__(self, query: Any, mat: Materialization, probe: Probe) -> None:
        self.mat = mat
        self.probe = probe
        self.windowed = mat.windowed
        probe.query_id = getattr(query, "query_id", None)
        probe.partitions = partition_count(mat)

    def committed(self) -> Materialization:
        return self

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Any]:
        p = key_partition(self.mat, key, self.probe.partitions)
        if p is None:
            self.probe.keyed = False
        else:
            self.probe.needed.add(p)
        return []

    def scan(self) -> Iterator[Any]:
        self.probe.scan = True
        return iter(())
