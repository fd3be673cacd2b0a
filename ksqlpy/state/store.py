"""Key-value state store on LMDB with a per-batch cache and a changelog topic.

One store per (query, store name, task partition). Reads go through an in-memory cache that holds the
batch's updates; ``flush(tx)`` puts the changed keys on the changelog inside the batch's log
transaction, and ``commit_local()`` (after that transaction committed) writes them to LMDB in one write
transaction together with the changelog offset they correspond to (the checkpoint). On open, a store
catches up by replaying its changelog from the checkpoint; with its files gone it rebuilds from offset 0.
Values are accumulators and rows, private to ksqlpy: marshalled, or pickled when marshal cannot write
them (``state.codec``).

Why the changelog is written first and LMDB second: the log transaction is what commits a batch (outputs,
changelog, input positions together). A crash between the two leaves LMDB behind its changelog, and the
replay on the next open closes the gap; LMDB is never ahead of what the log committed.

Entries derived from others (the time index of window and session stores, ``DerivedIndex``) are kept
in LMDB but not on the changelog: the restore derives them again from what it replays.

A store built with ``log=None`` has no changelog (transient push queries): its files are private and
thrown away on ``close()``.
"""

from __future__ import annotations

import os
import shutil
import struct
from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import lmdb

from ksqlpy.log.base import Log, LogTransaction, ProducerRecord
from ksqlpy.state.codec import decode, encode, encode_many
from ksqlpy.state.environment import StoreEnvironment

_DELETED = object()
_CACHE_LIMIT = 100_000
_MERGE_AT = 1024  # range() keys dirtied since the last merge, kept apart until there are this many
_loads = decode
_INDEX_VALUE = encode(1)  # a derived index entry's value, as the store writes it


class DerivedIndex(Protocol):
    """Store entries derived from others: keys starting with one of ``prefixes`` are never written to the
    changelog; ``derive(key)`` gives the derived keys of a replayed key (value 1; deleted with it)."""

    prefixes: tuple[bytes, ...]

    def derive(self, key: bytes) -> tuple[bytes, ...]: ...


class KeyValueStore:
    """Bytes keys -> picklable values; see the module docstring for the commit protocol."""

    def __init__(self, directory: str, log: Log | None, changelog_topic: str | None, partition: int,
                 index: DerivedIndex | None = None, environment: StoreEnvironment | None = None) -> None:
        """``index``: entries derived from others (a window store's time index), kept in LMDB but not on
        the changelog - the restore derives them again from the entries it replays. ``environment``: the
        query's shared one (``state.environment``; the store is ``directory``'s path under its root), else
        an environment of the store's own at ``directory``."""
        self.directory = directory
        self._environment, (self.data, self.meta, self._checkpoint) = self._open(directory, environment)
        self.env = self._environment.env
        self.log = log
        self.topic = changelog_topic
        self.partition = partition
        self.cache: dict[bytes, Any] = {}
        self.dirty: dict[bytes, Any] = {}  # changed since the last commit_local (LMDB is behind by these)
        self.changed: dict[bytes, Any] = {}  # changed since the last flush (the changelog is behind by these)
        # the dirty keys in key order for range(), built on its first call: a large sorted list plus the keys
        # dirtied since, in a small one merged into it in bulk (an insert into one list of every key dirty
        # since the last commit - many batches under commit.interval.ms - would move it all per new key)
        self._dkeys: list[bytes] | None = None
        self._dnew: list[bytes] = []
        self._encoded: dict[bytes, bytes | None] = {}
        self._rtxn: lmdb.Transaction | None = None  # one read snapshot per batch for cache misses
        self.restored = 0  # changelog records replayed by the last restore
        self.seeded = 0  # entries the last restore took from a warm copy (``seed``) instead of the changelog
        # a warm copy of this store on this host (a standby replica kept caught up with the same changelog):
        # the restore phase starts from it when it is ahead of these files, so only the tail is replayed
        self.seed: KeyValueStore | None = None
        self.index = index
        self.closed = False
        self.is_restored = False  # restore() ran: what the processors read is what was committed
        # applied to each value ``get`` reads from LMDB (an aggregation's: its state records out of the cyclic GC)
        self.loaded: Callable[[Any], Any] | None = None

    @staticmethod
    def _open(directory: str, shared: StoreEnvironment | None) -> tuple[StoreEnvironment, tuple[Any, Any, bytes]]:
        """``shared`` with room for this store, else an environment of its own (a query rebuilt in this
        process while its earlier stores are open may need more databases than the first build opened);
        with the store's databases and checkpoint key in it."""
        if shared is not None:
            try:
                return shared, shared.open_store(os.path.relpath(directory, shared.root))
            except lmdb.DbsFullError:
                shared.release()
        own = StoreEnvironment.private(directory)
        return own, own.open_store("")

    @property
    def environment_root(self) -> str:
        """Where this store's bytes live: its query's shared LMDB environment, or its own directory."""
        return self._environment.root

    # ---------------------------------------------------------------- restore
    def checkpoint(self) -> int:
        """The changelog offset the local files match (0: nothing applied yet)."""
        with self.env.begin(db=self.meta) as txn:
            raw = txn.get(self._checkpoint)
        return struct.unpack(">q", raw)[0] if raw else 0

    def restore(self) -> int:
        """The restore phase: replay the changelog from the checkpoint so the local files match what was
        committed. Returns the number of changelog records replayed."""
        self._end_read()  # a read snapshot taken before would not see what the replay writes
        self.cache.clear()
        self.restored = 0
        self.seeded = 0
        self._seed_from_copy()
        self._restore()
        self.is_restored = True
        return self.restored

    def _restore(self) -> None:
        if self.log is None or self.topic is None or not self.log.topic_exists(self.topic):
            return
        start = self.log.start_offset(self.topic, self.partition)
        end = self.log.end_offset(self.topic, self.partition)
        offset = self.checkpoint()
        if offset > end:  # the changelog was recreated: local files describe another history
            self._wipe()
            offset = 0
        offset = max(offset, start)
        while offset < end:
            batch = self.log.fetch(self.topic, self.partition, offset, 50_000)
            if not batch.offsets:
                break
            offset = self._apply(batch)

    def _seed_from_copy(self) -> None:
        """Take the state of ``seed`` (a warm copy of the same changelog partition) when it is ahead of
        these files: its entries and its checkpoint, read in one snapshot, so the replay that follows is
        only the changelog's tail past the copy. A copy ahead of the changelog's end describes another
        history and is ignored (as a checkpoint past the end is)."""
        seed, self.seed = self.seed, None
        if (seed is None or seed is self or seed.closed or self.log is None or self.topic is None
                or seed.topic != self.topic or seed.partition != self.partition):
            return
        try:
            end = self.log.end_offset(self.topic, self.partition)
            mine = self.checkpoint()
            with seed.env.begin(buffers=False) as src:
                raw = src.get(seed._checkpoint, db=seed.meta)
                at = struct.unpack(">q", raw)[0] if raw else 0
                if at <= mine or at > end:
                    return
                with self.env.begin(write=True) as dst:
                    dst.drop(self.data, delete=False)
                    _, added = dst.cursor(db=self.data).putmulti(src.cursor(db=seed.data).iternext(), append=True)
                    dst.put(self._checkpoint, raw, db=self.meta)
        except lmdb.Error:  # the copy was closed meanwhile (its query stopped): replay the changelog instead
            return
        self.seeded = added

    def _apply(self, batch: Any) -> int:
        """Write a changelog batch into the local files with its checkpoint; returns the next offset."""
        derive = self.index.derive if self.index is not None else None
        with self.env.begin(write=True) as txn:
            for k, v in zip(batch.keys, batch.values, strict=True):
                if k is None:
                    continue
                if v is None:
                    txn.delete(k, db=self.data)
                else:
                    txn.put(k, v, db=self.data)
                if derive is not None:
                    for ik in derive(k):
                        if v is None:
                            txn.delete(ik, db=self.data)
                        else:
                            txn.put(ik, _INDEX_VALUE, db=self.data)
            offset = batch.next_offset
            txn.put(self._checkpoint, struct.pack(">q", offset), db=self.meta)
        self.restored += len(batch.offsets)
        return offset

    def follow(self, max_batches: int = 100) -> int:
        """A standby replica's step: apply what the changelog holds past the checkpoint, reading until the
        log returns nothing (no end-offset round trip). Returns the records applied; 0 while this copy has
        uncommitted changes of its own (it is not a copy then)."""
        if self.log is None or self.topic is None or self.dirty:
            return 0
        applied, offset = 0, self.checkpoint()
        for _ in range(max_batches):
            batch = self.log.fetch(self.topic, self.partition, offset, 50_000)
            if not batch.offsets:
                break
            offset = self._apply(batch)
            applied += len(batch.offsets)
        if applied:
            self._end_read()
            self.cache.clear()
        return applied

    def catch_up_to(self, end: int, limit: int | None = None) -> int:
        """A copy's bounded step: apply the changelog from the checkpoint up to offset ``end`` (exclusive),
        at most ``limit`` records (None: all of them), never past ``end`` - a reader that needs what was
        committed before it began waits for that alone. Returns the records applied; 0 while this copy has
        uncommitted changes of its own (it is not a copy then)."""
        if self.log is None or self.topic is None or self.dirty:
            return 0
        offset = self.checkpoint()
        applied = 0
        while offset < end and (limit is None or applied < limit):
            want = end - offset if limit is None else min(end - offset, limit - applied)
            batch = self.log.fetch(self.topic, self.partition, offset, min(want, 50_000))
            if not batch.offsets:
                break
            offset = self._apply(batch)
            applied += len(batch.offsets)
        if applied:
            self._end_read()
            self.cache.clear()
        return applied

    def _wipe(self) -> None:
        with self.env.begin(write=True) as txn:
            txn.drop(self.data, delete=False)
            txn.delete(self._checkpoint, db=self.meta)

    # ---------------------------------------------------------------- access
    def get(self, key: bytes) -> Any:
        v = self.cache.get(key)
        if v is not None:
            return None if v is _DELETED else v
        txn = self._rtxn
        if txn is None:
            txn = self._rtxn = self.env.begin(db=self.data, buffers=False)
        raw = txn.get(key)
        if raw is None:
            return None
        value = _loads(raw)
        if self.loaded is not None:
            value = self.loaded(value)
        if len(self.cache) < _CACHE_LIMIT:
            self.cache[key] = value
        return value

    def put(self, key: bytes, value: Any) -> None:
        self.cache[key] = value
        dirty = self.dirty
        if self._dkeys is not None:
            prev = dirty.get(key)
            if prev is None or prev is _DELETED:
                self._list_dirty(key)
        dirty[key] = value
        self.changed[key] = value

    def put_many(self, keys: list[bytes], values: list[Any], cached: bool = True) -> None:
        """``put`` of each pair in order (the dicts updated in bulk when range() keeps no sorted keys).
        ``cached=False``: keys that are never read back through ``get`` or ``range`` and never in the
        cache (a window store's entries, each key new: it reads its own index and LMDB) stay out of it."""
        if self._dkeys is not None:
            put = self.put
            for k, v in zip(keys, values, strict=True):
                put(k, v)
            return
        if cached:
            self.cache.update(zip(keys, values, strict=True))
        self.dirty.update(zip(keys, values, strict=True))
        self.changed.update(zip(keys, values, strict=True))

    def _list_dirty(self, key: bytes) -> None:
        """Add a newly dirty key to range()'s sorted keys (into the small list; merged when it grows)."""
        dk = self._dkeys
        assert dk is not None
        i = bisect_left(dk, key)
        if i < len(dk) and dk[i] == key:
            return  # deleted earlier in this commit and still listed: range() reads its current value
        new = self._dnew
        j = bisect_left(new, key)
        if j == len(new) or new[j] != key:
            new.insert(j, key)
            if len(new) >= _MERGE_AT:
                dk += new  # two sorted runs: one linear merge by the sort
                dk.sort()
                self._dnew = []

    def delete(self, key: bytes) -> None:
        # a listed key stays listed: range() skips the entries whose dirty value is a deletion
        self.cache[key] = _DELETED
        self.dirty[key] = _DELETED
        self.changed[key] = _DELETED

    def range(self, lo: bytes, hi: bytes | None = None) -> Iterator[tuple[bytes, Any]]:
        """Entries with ``lo <= key < hi`` (``hi`` None: no upper bound) in key order, this batch's
        changes included. Safe against puts/deletes made while iterating (they are not seen)."""
        # this batch's live changes in [lo, hi) by bisection on the sorted keys put in this batch (a scan of
        # every dirty entry per call made session windows quadratic in the batch size); keys deleted in
        # this batch are not listed: the cache marks them deleted, which hides them below
        dkeys = self._dkeys
        if dkeys is None:
            dkeys = self._dkeys = sorted(k for k, v in self.dirty.items() if v is not _DELETED)
            self._dnew = []
        dirty = self.dirty
        keys = dkeys[bisect_left(dkeys, lo):(len(dkeys) if hi is None else bisect_left(dkeys, hi))]
        new = self._dnew
        if new:
            more = new[bisect_left(new, lo):(len(new) if hi is None else bisect_left(new, hi))]
            if more:
                keys = sorted(keys + more)
        pending = [(k, dirty[k]) for k in keys]
        pi = 0
        with self.env.begin(db=self.data, buffers=False) as txn:
            cur = txn.cursor()
            ok = cur.set_range(lo)
            while ok:
                k = cur.key()
                if hi is not None and k >= hi:
                    break
                while pi < len(pending) and pending[pi][0] < k:
                    pk, pv = pending[pi]
                    pi += 1
                    if pv is not _DELETED:
                        yield pk, pv
                if pi < len(pending) and pending[pi][0] == k:
                    pk, pv = pending[pi]
                    pi += 1
                    if pv is not _DELETED:
                        yield pk, pv
                else:
                    cached = self.cache.get(k)
                    if cached is _DELETED:
                        pass
                    elif cached is not None:
                        yield k, cached
                    else:
                        yield k, _loads(cur.value())
                ok = cur.next()
        while pi < len(pending):
            pk, pv = pending[pi]
            pi += 1
            if pv is not _DELETED:
                yield pk, pv

    def items(self, prefix: bytes = b"") -> Iterator[tuple[bytes, Any]]:
        """Entries whose key starts with ``prefix``, in key order (this batch's changes included)."""
        return self.range(prefix, _prefix_end(prefix))

    def committed_keys(self) -> Iterator[bytes]:
        """The keys in the local files, in key order, without reading a value (changes not yet committed
        are not included: what a restored store holds before its task processes anything)."""
        with self.env.begin(db=self.data, buffers=False) as txn:
            yield from txn.cursor().iternext(keys=True, values=False)

    def committed_payloads(self, chunk: int = 10_000) -> Iterator[tuple[list[bytes], list[bytes]]]:
        """The committed entries as their changelog payloads (keys, values), in key order and in chunks,
        derived index entries left out: what a replica replays (the Spark backfill hands a store over
        so). Changes not yet committed (``commit_local``) are not included."""
        local = self.index.prefixes if self.index is not None else ()
        keys: list[bytes] = []
        values: list[bytes] = []
        with self.env.begin(db=self.data, buffers=False) as txn:
            for k, v in txn.cursor():
                if k[:1] in local:
                    continue
                keys.append(k)
                values.append(v)
                if len(keys) >= chunk:
                    yield keys, values
                    keys, values = [], []
        if keys:
            yield keys, values

    # ---------------------------------------------------------------- commit
    def flush(self, tx: LogTransaction) -> None:
        """Write the changes made since the last flush to the changelog inside ``tx``.

        Several batches may be flushed before one ``commit_local`` (a task committing on
        ``commit.interval.ms`` rather than per batch): each flush sends only what changed since the
        previous one, and ``commit_local`` reuses every payload encoded on the way.
        """
        changed = self.changed
        if not changed:
            return
        values = list(changed.values())
        if _DELETED in values:
            fresh = {k: None if v is _DELETED else encode(v) for k, v in changed.items()}
        else:  # no deletion: the payloads by one C-level map
            fresh = dict(zip(changed, encode_many(values), strict=True))
        changed.clear()
        self._encoded.update(fresh)
        if self.log is None or self.topic is None:
            return
        if self.index is not None:  # derived entries stay local (the restore derives them again)
            local = self.index.prefixes
            fresh = {k: v for k, v in fresh.items() if k[:1] not in local}
            if not fresh:
                return
        batch = getattr(tx, "produce_batch", None)
        if batch is not None:  # the columnar path: no record object per change
            batch(self.topic, self.partition, list(fresh), list(fresh.values()))
            return
        produce = tx.produce
        topic, part = self.topic, self.partition
        for k, payload in fresh.items():
            produce(ProducerRecord(topic, k, payload, None, None, part))

    def _end_read(self) -> None:
        if self._rtxn is not None:
            self._rtxn.abort()
            self._rtxn = None

    def commit_local(self) -> None:
        """Apply the changes since the last commit to LMDB with the changelog offset they reach (one write txn)."""
        self._end_read()
        if not self.dirty:
            return
        enc = self._encoded
        for k in self.changed:  # not flushed (a store without changelog): encoded here
            enc.pop(k, None)
        self.changed.clear()
        end = self.log.end_offset(self.topic, self.partition) if self.log is not None and self.topic else 0
        with self.env.begin(write=True, db=self.data) as txn:
            if len(enc) == len(self.dirty) and None not in enc.values():
                # every change flushed and none a deletion (the encoded keys are dirty keys): one C call
                txn.cursor().putmulti(enc.items())
            else:
                for k, v in self.dirty.items():
                    payload = enc[k] if k in enc else (None if v is _DELETED else encode(v))
                    if payload is None:
                        txn.delete(k)
                    else:
                        txn.put(k, payload)
            if self.log is not None:
                txn.put(self._checkpoint, struct.pack(">q", end), db=self.meta)
        self.dirty.clear()
        self._dkeys = None
        self._dnew = []
        enc.clear()
        if len(self.cache) > _CACHE_LIMIT:
            self.cache.clear()

    def refresh(self) -> None:
        """Catch up with the changelog, as a standby replica does: a worker process owns the task and
        writes the changelog; this copy only serves reads (pull queries)."""
        self._end_read()
        if self.dirty:
            return
        self.cache.clear()
        self._restore()

    def abort(self) -> None:
        """Forget uncommitted changes (the batch's log transaction failed)."""
        self._end_read()
        self.dirty.clear()
        self.changed.clear()
        self._dkeys = None
        self._dnew = []
        self._encoded.clear()
        self.cache.clear()

    def close(self) -> None:
        """Idempotent: a store may be released by its task and by the query holding it."""
        if self.closed:
            return
        self.closed = True
        self._end_read()
        environment = self._environment
        if self.log is None and environment.shared:  # a private store's entries go (the root goes with the query)
            with self.env.begin(write=True) as txn:
                txn.drop(self.data, delete=True)
        environment.release()
        if self.log is None and not environment.shared:
            shutil.rmtree(self.directory, ignore_errors=True)


class CommittedView:
    """Read-only access to what a store has committed (its LMDB files), safe from any thread.

    Pull queries read through it without the engine lock while the task that owns the store runs a
    batch in another thread: every read opens its own LMDB read transaction (a snapshot of the last
    ``commit_local``), never the owner's cache, dirty changes or read transaction. Between batches
    the committed state equals the cached one, so answers are the same as through the store itself.
    """

    def __init__(self, kv: KeyValueStore) -> None:
        self.env = kv.env
        self.data = kv.data

    def get(self, key: bytes) -> Any:
        with self.env.begin(db=self.data, buffers=False) as txn:
            raw = txn.get(key)
        return None if raw is None else _loads(raw)

    def range(self, lo: bytes, hi: bytes | None = None) -> Iterator[tuple[bytes, Any]]:
        """Entries with ``lo <= key < hi`` in key order, read in one snapshot (materialized first, so
        the transaction is short whatever the caller does between items)."""
        out = []
        with self.env.begin(db=self.data, buffers=False) as txn:
            cur = txn.cursor()
            ok = cur.set_range(lo)
            while ok:
                k = cur.key()
                if hi is not None and k >= hi:
                    break
                out.append((k, cur.value()))
                ok = cur.next()
        return ((k, _loads(v)) for k, v in out)

    def items(self, prefix: bytes = b"") -> Iterator[tuple[bytes, Any]]:
        return self.range(prefix, _prefix_end(prefix))


def _prefix_end(prefix: bytes) -> bytes | None:
    """The smallest key greater than every key starting with ``prefix`` (None: no such key)."""
    p = bytearray(prefix)
    while p:
        if p[-1] < 0xFF:
            p[-1] += 1
            return bytes(p)
        p.pop()
    return None
