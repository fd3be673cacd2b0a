"""This process's copies of the stores of a table kept by worker processes, and how pull queries read them.

Worker processes run a worker-run query's tasks and write its stores' changelogs; the engine process keeps
a copy of each store (the query's own stores, built here but not run) that its pull queries read, brought
up to date with the changelog as a standby replica is. Two things move a copy forward:

* **the background**: from the first pull query on a table on, the engine's runner thread (idle for a
  query run in workers) applies what the workers commit to the changelogs, a bounded chunk per partition
  at a time (``follow``, woken by the log's commits as the runner is) - so a lookup usually finds its
  partition caught up and replays nothing inside the request;
* **the read itself, for read-your-writes**: a pull query reads a partition only once its copy has
  applied the changelog up to the partition's end *as it was when the query first read it* - everything
  the workers had committed before. When the background has not got there, the query applies the rest
  itself, never past that bound, so a changelog that keeps growing does not hold it up (it waits only
  for the offsets it needs).

A lock per partition's copy serializes the background's chunks and a query's catch-up and reads (the
stores' caches and read snapshots are not for two threads at once): a pull query waits at most for the
chunk in progress. Without a runner (an engine not started) every copy is caught up by the reads alone,
as before the background existed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ksqlpy.log.base import UnknownTopicError
from ksqlpy.runtime.materialize import AggregateMaterialization, Materialization, StoreMaterialization

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

T = TypeVar("T")
_LOG = logging.getLogger("ksqlpy.pull")

# the most changelog records the background applies to one store before it lets go of the partition's lock
# (a pull query waiting for that lock waits for at most this many: ~0.7 us a record)
CHUNK = 1000


@dataclass
class PartitionCopy:
    """One partition's copies: its stores, the aggregators over them (their stream time is read back
    after a replay) and the table read from them alone."""

    view: Materialization
    stores: list[Any]  # state.store.KeyValueStore
    aggregators: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    restored: bool = False  # the first catch-up is a whole restore (a checkpoint past the end is wiped)


def _partition_of(store: Any) -> int:
    return int(getattr(getattr(store, "kv", store), "partition", 0))


class Copies:
    """The copies of one worker-run query's stores, partition by partition (see the module docstring)."""

    def __init__(self, query: Any, mat: Materialization, partitions: int) -> None:
        from ksqlpy.engine.pull_partitions import only

        self.query = query
        self.partitions = partitions
        self.log: Any = None
        self.parts: list[PartitionCopy] = []
        for p in range(partitions):
            view = only(mat, frozenset({p}))
            if isinstance(view, AggregateMaterialization):
                stores = list(view.built.stores)
                aggregators = list(view.built.aggregators)
            elif isinstance(view, StoreMaterialization):
                stores, aggregators = [_store_kv(s) for s in view.stores], []
            else:
                stores, aggregators = [], []
            self.parts.append(PartitionCopy(view, [s for s in stores if getattr(s, "topic", None)], aggregators))
            if self.log is None and stores:
                self.log = stores[0].log
        self.applied = 0  # changelog records the background applied (tests, diagnostics)
        self.applied_by_reads = 0  # ... and the pull queries themselves
        self.closed = False  # the query stopped: its stores are closed, nothing is read from them

    @contextmanager
    def closing(self) -> Iterator[None]:
        """Held while the query closes its stores: no read or catch-up is inside one meanwhile, and none
        touches them after (pull queries read without the engine lock)."""
        for part in self.parts:
            part.lock.acquire()
        try:
            self.closed = True
            yield
        finally:
            for part in self.parts:
                part.lock.release()

    # ------------------------------------------------------------------ reads
    def ends(self, p: int) -> list[int]:
        """The changelog ends of partition ``p``'s stores now: what a pull query beginning now must see (a
        changelog deleted meanwhile - the query was dropped - has nothing to see)."""
        try:
            return [s.log.end_offset(s.topic, s.partition) for s in self.parts[p].stores]
        except UnknownTopicError:
            return [0] * len(self.parts[p].stores)

    def read(self, p: int, bound: list[int], fn: Callable[[Materialization], T]) -> T:
        """``fn(partition p's table)`` once its copies have applied their changelogs up to ``bound``
        (``ends(p)`` as the query first read it)."""
        part = self.parts[p]
        with part.lock:
            if self.closed:  # the query stopped meanwhile: what it kept is gone
                return fn(_nothing(part.view))
            self.applied_by_reads += self._catch_up(part, bound, None)
            return fn(part.view)

    # ------------------------------------------------------------------ background
    def step(self) -> int:
        """The background's turn: at most ``CHUNK`` records applied to each store behind its changelog's end;
        a partition a pull query is reading is left to it. Returns the records applied."""
        applied = 0
        for part in self.parts:
            if not part.lock.acquire(blocking=False):
                continue
            try:
                if part.stores and not self.closed:
                    bound = [s.log.end_offset(s.topic, s.partition) for s in part.stores]
                    applied += self._catch_up(part, bound, CHUNK)
            finally:
                part.lock.release()
        self.applied += applied
        return applied

    def behind(self) -> bool:
        """Whether any copy has not applied its changelog to the end (read without the locks)."""
        return any(s.checkpoint() < s.log.end_offset(s.topic, s.partition) for part in self.parts for s in part.stores)

    # ------------------------------------------------------------------ catching up
    def _catch_up(self, part: PartitionCopy, bound: list[int], limit: int | None) -> int:
        """Apply each store's changelog from its checkpoint towards ``bound`` (at most ``limit`` records a
        store; None: up to it). The caller holds ``part.lock``."""
        if not part.restored:  # the first time: the store's own restore (to the end; wipes a stale copy)
            before = [s.checkpoint() for s in part.stores]
            for s in part.stores:
                s.refresh()
            part.restored = True
            self._reload(part)
            return sum(max(0, s.checkpoint() - b) for s, b in zip(part.stores, before, strict=True))
        applied = 0
        for s, end in zip(part.stores, bound, strict=True):
            applied += s.catch_up_to(end, limit)
        if applied:
            self._reload(part)
        return applied

    @staticmethod
    def _reload(part: PartitionCopy) -> None:
        for agg in part.aggregators:
            agg.load_meta()  # the stream time (window retention) and the late count of what was replayed


def _nothing(view: Materialization) -> Materialization:
    from ksqlpy.engine.pull_partitions import only

    return only(view, frozenset())


def _store_kv(s: Any) -> Any:
    return getattr(s, "kv", s)


_made = threading.Lock()


def copies_of(query: Any, mat: Materialization, partitions: int) -> Copies | None:
    """The query's ``Copies`` (made on its first pull query), or None for a materialization without
    per-partition stores. From then on the engine's runner keeps them caught up (``follow``)."""
    if not isinstance(mat, AggregateMaterialization | StoreMaterialization):
        return None
    copies = getattr(query, "copies", None)
    if copies is None:
        with _made:
            copies = getattr(query, "copies", None)
            if copies is None:
                copies = Copies(query, mat, partitions)
                query.copies = copies
    return copies  # type: ignore[no-any-return]


def follow(engine: Engine) -> int:
    """The runner's step over every worker-run query whose copies pull queries read: what their workers
    committed since, a chunk per store (``Copies.step``), under the engine lock (a TERMINATE does not close
    the stores under it). Returns the records applied."""
    applied = 0
    for q in list(engine.queries.values()):
        copies = getattr(q, "copies", None)
        if copies is None or q.state != "RUNNING":
            continue
        with engine.lock:
            if engine.queries.get(q.query_id) is not q or q.state != "RUNNING":
                continue
            try:
                applied += copies.step()
            except Exception:  # noqa: BLE001 - the runner must go on; a pull query catches the copies up itself
                _LOG.debug("query %s: catching up its stores' copies failed", q.query_id, exc_info=True)
    return applied
