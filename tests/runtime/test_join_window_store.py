"""The stream-stream join's window store: its in-memory index answers probes exactly as LMDB would.

A random sequence of writes (in order, out of order within the retention, late past it), probes,
commits, aborts and restarts (local files wiped, the store rebuilt from its changelog) runs against the
store and against a plain list of records; every probe must return the same records in the same order.
With a small ``max_cached`` the index evicts its oldest buckets and probes reaching below them go to
LMDB, so both paths are compared.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.runtime.join_store import WindowStore
from ksqlpy.state.store import KeyValueStore

TOPIC = "window-changelog"


@dataclass
class Model:
    """What the store must show: every accepted record with its arrival number, and the newest time."""

    retention: int
    records: list[tuple[bytes, int, int, Any]] = field(default_factory=list)
    observed: int = -(1 << 62)
    seq: int = 0

    def put(self, kb: bytes, ts: int, row: Any) -> None:
        self.observed = max(self.observed, ts)
        if ts <= self.observed - self.retention:
            return
        self.seq += 1
        self.records.append((kb, ts, self.seq, row))

    def fetch(self, kb: bytes, lo: int, hi: int) -> list[tuple[int, Any]]:
        floor = self.observed - self.retention + 1
        found = sorted((ts, seq, row) for k, ts, seq, row in self.records
                       if k == kb and max(lo, floor) <= ts <= hi)
        return [(ts, row) for ts, _, row in found]

    def copy(self) -> Model:
        return Model(self.retention, list(self.records), self.observed, self.seq)


class Harness:
    def __init__(self, tmp: Path, retention: int, max_cached: int) -> None:
        self.tmp, self.retention, self.max_cached = tmp, retention, max_cached
        self.log = EmbeddedLog(str(tmp / "log"))
        self.log.create_topic(TOPIC, 1)
        self.open()

    def open(self) -> None:
        self.kv = KeyValueStore(str(self.tmp / "store"), self.log, TOPIC, 0)
        self.kv.restore()
        self.ws = WindowStore(self.kv, self.retention, max_cached=self.max_cached)
        self.ws.load()

    def commit(self) -> None:
        """A batch boundary as the join task runs it."""
        self.ws.before_flush()
        with self.log.transaction() as tx:
            self.kv.flush(tx)
        self.kv.commit_local()
        self.ws.after_commit()

    def abort(self) -> None:
        self.kv.abort()
        self.ws.abort()

    def restart(self, wipe: bool) -> None:
        """Close and reopen; ``wipe``: the local files are gone and the changelog rebuilds them."""
        self.kv.close()
        if wipe:
            shutil.rmtree(self.tmp / "store")
        self.open()

    def close(self) -> None:
        self.kv.close()
        self.log.close()


def _fetch(ws: WindowStore, kb: bytes, lo: int, hi: int) -> list[tuple[int, Any]]:
    return [(ts, row) for ts, _, row in ws.fetch(kb, lo, hi)]


@pytest.mark.parametrize("max_cached", [100_000, 40, 5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_probes_match_a_plain_list_of_records(tmp_path: Path, seed: int, max_cached: int) -> None:
    rnd = random.Random(seed)
    retention = 3_000  # e.g. WITHIN 1 SECOND with a 1 s grace period
    h = Harness(tmp_path, retention, max_cached)
    model = Model(retention)
    committed = model.copy()
    now = 0
    keys = [f"k{i}".encode() for i in range(6)]
    try:
        for step in range(1_500):
            op = rnd.random()
            kb = rnd.choice(keys)
            if op < 0.55:
                now += rnd.randrange(0, 40)
                # mostly in order, some out of order within the retention, a few past it (dropped)
                ts = now - rnd.choice([0, 0, 0, rnd.randrange(retention), retention + rnd.randrange(500)])
                row = (step, kb.decode())
                h.ws.put(kb, ts, row)
                model.put(kb, ts, row)
            elif op < 0.90:
                centre = now - rnd.randrange(retention + 500)
                lo, hi = centre - rnd.randrange(1_000), centre + rnd.randrange(1_000)
                assert _fetch(h.ws, kb, lo, hi) == model.fetch(kb, lo, hi), (step, kb, lo, hi)
            elif op < 0.96:
                h.commit()
                committed = model.copy()
                assert h.ws.cached <= max_cached
            elif op < 0.98:
                h.abort()
                model = committed.copy()
                now = max(now, model.observed)
            else:
                h.commit()
                committed = model.copy()
                h.restart(wipe=rnd.random() < 0.5)
        for kb in keys:
            assert _fetch(h.ws, kb, -(1 << 40), 1 << 40) == model.fetch(kb, -(1 << 40), 1 << 40)
    finally:
        h.close()


def test_a_probe_within_the_index_does_not_read_lmdb(tmp_path: Path) -> None:
    """After a commit and after a restart, probes of recent times are answered from memory."""
    h = Harness(tmp_path, 10_000, 100_000)
    try:
        for i in range(200):
            h.ws.put(b"k%d" % (i % 7), 1_000 + i * 10, (i,))
        h.commit()
        h.restart(wipe=True)  # rebuilt from the changelog
        assert h.ws.cached == 200
        for i in range(200):
            h.ws.fetch(b"k%d" % (i % 7), 1_000 + i * 10 - 100, 1_000 + i * 10 + 100)
        assert h.ws._read is None  # no LMDB read transaction was opened for a probe
        assert [ts for ts, _, _ in h.ws.fetch(b"k0", 0, 1 << 40)] == [1_000 + i * 10 for i in range(0, 200, 7)]
    finally:
        h.close()


def test_the_index_keeps_only_the_retention_and_its_bound(tmp_path: Path) -> None:
    h = Harness(tmp_path, 1_000, 50)
    try:
        for i in range(500):
            h.ws.put(b"k", i * 10, (i,))
            if i % 20 == 19:
                h.commit()
                assert h.ws.cached <= 50
        h.commit()
        # the retention is 1 s: 100 records are visible, the newest 50 of them (or fewer, whole buckets) in memory
        assert 0 < h.ws.cached <= 50
        assert h.ws.cached_from > h.ws.floor()
        got = [ts for ts, _, _ in h.ws.fetch(b"k", 0, 1 << 40)]
        assert got == [i * 10 for i in range(400, 500)]  # older ones from LMDB, newer from memory
        h.restart(wipe=False)
        assert 0 < h.ws.cached <= 50
        assert [ts for ts, _, _ in h.ws.fetch(b"k", 0, 1 << 40)] == got
    finally:
        h.close()


def test_an_aborted_batch_leaves_no_record_in_the_index(tmp_path: Path) -> None:
    h = Harness(tmp_path, 10_000, 100_000)
    try:
        h.ws.put(b"k", 100, ("kept",))
        h.commit()
        h.ws.put(b"k", 200, ("dropped",))
        h.ws.put(b"k", 50, ("dropped too",))  # out of order
        assert len(h.ws.fetch(b"k", 0, 1_000)) == 3
        h.abort()
        assert [row for _, _, row in h.ws.fetch(b"k", 0, 1_000)] == [("kept",)]
        assert h.ws.observed == 100
    finally:
        h.close()
