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


class StandbyReads(Materialization):
    """A table kept by worker processes, read from this process's copies of its stores
    (``engine.pull_copies.Copies``), each partition read once its copy has applied the changelog up to the
    end it had when this pull query first read it (read-your-writes: everything the workers committed
    before) - the background usually has, else the query applies the rest itself. A key lookup reads the
    partition its key hashes to (``key_partition``: where the query keeps that key); only a key not found
    there (or whose partition cannot be computed) reads every partition, as a scan does, so the answers
    are the ones a read of the whole table gives. One per pull query."""

    def __init__(self, mat: Materialization, partitions: int, copies: Any) -> None:
        self.mat = mat  # the table as this thread may read it (a cluster's routing may leave partitions out)
        self.windowed = mat.windowed
        self.partitions = partitions  # of the whole table
        self.copies = copies
        self.bounds: dict[int, list[int]] = {}  # per partition: the changelog ends this query must see
        self.allowed = _partitions_of(mat)

    def _read(self, p: int, fn: Any) -> Any:
        if p not in self.allowed:  # left out by a cluster's routing: nothing is read there
            return fn(only(self.mat, frozenset()))
        bound = self.bounds.get(p)
        if bound is None:
            bound = self.bounds[p] = self.copies.ends(p)
        return self.copies.read(p, bound, fn)

    def lookup(self, key: tuple, ws_lo: int | None = None, ws_hi: int | None = None) -> list[Any]:
        p = key_partition(self.mat, key, self.partitions)
        if p is not None:
            got = self._read(p, lambda view: view.lookup(key, ws_lo, ws_hi))
            if got:
                return got  # type: ignore[no-any-return]
        return [r for q in range(self.partitions) for r in self._read(q, lambda view: view.lookup(key, ws_lo, ws_hi))]

    def scan(self) -> Iterator[Any]:
        """Partition by partition, in partition order (each read whole under its copy's lock)."""
        for p in range(self.partitions):
            yield from self._read(p, lambda view: list(view.scan()))


def _partitions_of(mat: Materialization) -> set[int]:
    if isinstance(mat, AggregateMaterialization):
        return {a.kv.partition for a in mat.built.aggregators}
    if isinstance(mat, StoreMaterialization):
        return {_partition_of_store(s) for s in mat.stores}
    return set()


def standby_reads(query: Any, full: Materialization, mat: Materialization, partitions: int) -> Materialization:
    """``mat`` - the table ``full`` of a query kept by worker processes, as this thread may read it - read
    through ``StandbyReads`` over the query's copies; a probe's view as it is."""
    from ksqlpy.engine.pull_copies import copies_of

    copies = copies_of(query, full, partitions)
    if copies is not None and isinstance(mat, AggregateMaterialization | StoreMaterialization):
        return StandbyReads(mat, partitions, copies)
    mat.refresh()
    return mat


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
