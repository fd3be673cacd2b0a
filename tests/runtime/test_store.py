"""KeyValueStore commit protocol, restore and rebuild; window and session store layouts."""

from __future__ import annotations

import shutil
from pathlib import Path

from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.state.store import KeyValueStore
from ksqlpy.state.windowed import SessionStore, WindowStore, from_t8, t8

TOPIC = "changelog"


def _open(tmp: Path, log: EmbeddedLog, name: str = "s") -> KeyValueStore:
    """Open and restore (what a task does in its restore phase)."""
    kv = KeyValueStore(str(tmp / name), log, TOPIC, 0)
    kv.restore()
    return kv


def _commit(store: KeyValueStore, log: EmbeddedLog) -> None:
    with log.transaction() as tx:
        store.flush(tx)
    store.commit_local()


def _log(tmp: Path) -> EmbeddedLog:
    log = EmbeddedLog(str(tmp / "log"))
    log.create_topic(TOPIC, 1)
    return log


def test_put_get_commit_checkpoint(tmp_path: Path) -> None:
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    s.put(b"a", [1, 2])
    s.put(b"b", "x")
    assert s.get(b"a") == [1, 2]
    _commit(s, log)
    assert s.checkpoint() == 2
    s.delete(b"b")
    _commit(s, log)
    assert s.get(b"b") is None
    assert s.checkpoint() == 3
    s.close()
    log.close()


def test_restore_replays_what_lmdb_missed(tmp_path: Path) -> None:
    """A crash after the log transaction but before the local LMDB write: the replay closes the gap."""
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    s.put(b"k", 1)
    _commit(s, log)
    s.put(b"k", 2)
    with log.transaction() as tx:  # committed to the changelog only
        s.flush(tx)
    s.close()
    s2 = _open(tmp_path, log)
    assert s2.get(b"k") == 2
    assert s2.restored == 1
    s2.close()
    log.close()


def test_rebuild_when_files_deleted(tmp_path: Path) -> None:
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    for i in range(50):
        s.put(str(i).encode(), i)
    _commit(s, log)
    s.delete(b"7")
    _commit(s, log)
    s.close()
    shutil.rmtree(tmp_path / "s")
    s2 = _open(tmp_path, log)
    assert s2.get(b"7") is None
    assert s2.get(b"8") == 8
    assert len(list(s2.items())) == 49
    s2.close()
    log.close()


def test_checkpoint_beyond_changelog_wipes(tmp_path: Path) -> None:
    """A changelog deleted and recreated: local files from the old history must not survive."""
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    for i in range(3):
        s.put(f"old{i}".encode(), i)
        _commit(s, log)
    assert s.checkpoint() == 3
    s.close()
    log.delete_topic(TOPIC)
    log.create_topic(TOPIC, 1)
    with log.transaction() as tx:
        other = KeyValueStore(str(tmp_path / "other"), None, None, 0)
        other.put(b"new", 1)
        other.flush(tx)
        from ksqlpy.log.base import ProducerRecord

        for k, v in other._encoded.items():
            tx.produce(ProducerRecord(TOPIC, k, v, None, None, 0))
    s2 = _open(tmp_path, log)
    assert s2.get(b"old0") is None
    assert s2.get(b"new") == 1
    s2.close()
    log.close()


def test_range_merges_uncommitted_changes(tmp_path: Path) -> None:
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    for k in (b"a1", b"a3", b"a5", b"b1"):
        s.put(k, k.decode())
    _commit(s, log)
    s.put(b"a2", "new")
    s.delete(b"a3")
    s.put(b"a5", "changed")
    assert list(s.items(b"a")) == [(b"a1", "a1"), (b"a2", "new"), (b"a5", "changed")]
    assert [k for k, _ in s.range(b"a2", b"b1")] == [b"a2", b"a5"]
    s.abort()
    assert list(s.items(b"a")) == [(b"a1", "a1"), (b"a3", "a3"), (b"a5", "a5")]
    s.close()
    log.close()


def test_store_without_changelog_is_private(tmp_path: Path) -> None:
    s = KeyValueStore(str(tmp_path / "t"), None, None, 0)
    s.put(b"x", 1)
    s.flush(None)  # type: ignore[arg-type]
    s.commit_local()
    assert s.get(b"x") == 1
    s.close()
    assert not (tmp_path / "t").exists()


def test_time_encoding_sorts_like_numbers() -> None:
    values = [-(2**62), -5, -1, 0, 1, 7, 2**40]
    assert sorted(values, key=t8) == values
    assert [from_t8(t8(v)) for v in values] == values


def test_window_store_fetch_and_purge(tmp_path: Path) -> None:
    s = KeyValueStore(str(tmp_path / "w"), None, None, 0)
    w = WindowStore(s)
    for kb in (b"k1", b"k10"):  # one key is a prefix of the other
        for start in (0, 10, 20):
            w.put(kb, start, (kb, start), new=True)
    assert [st for st, _ in w.fetch(b"k1")] == [0, 10, 20]
    assert [st for st, _ in w.fetch(b"k1", 5, 10)] == [10]
    assert [(kb, st) for kb, st, _ in w.fetch_all(10, 10)] == [(b"k1", 10), (b"k10", 10)]
    assert w.purge(15) == 4
    assert [st for st, _ in w.fetch(b"k10")] == [20]
    s.close()


def test_session_store_find_and_ended(tmp_path: Path) -> None:
    s = KeyValueStore(str(tmp_path / "s"), None, None, 0)
    ss = SessionStore(s)
    ss.put(b"k", 0, 5, "a")
    ss.put(b"k", 20, 30, "b")
    ss.put(b"j", 3, 4, "c")
    assert [v for _, _, v in ss.find(b"k", 4, 18)] == ["a"]
    assert [v for _, _, v in ss.find(b"k", -100, 100)] == ["a", "b"]
    assert [(kb, st, e) for kb, st, e, _ in ss.ended(None, 10)] == [(b"j", 3, 4), (b"k", 0, 5)]
    ss.remove(b"k", 0, 5)
    assert [v for _, _, v in ss.find(b"k", -100, 100)] == ["b"]
    assert ss.purge(25) == 1
    assert list(ss.fetch(b"k")) == [(20, 30, "b")]
    s.close()


def test_refresh_catches_up_a_read_replica(tmp_path: Path) -> None:
    """Pull queries of a query run by a worker process read a replica kept up by the changelog."""
    log = _log(tmp_path)
    owner = _open(tmp_path, log, "owner")
    replica = _open(tmp_path, log, "replica")
    owner.put(b"k", 1)
    _commit(owner, log)
    assert replica.get(b"k") is None
    replica.refresh()
    assert replica.get(b"k") == 1
    owner.put(b"k", 2)
    _commit(owner, log)
    replica.refresh()
    assert replica.get(b"k") == 2  # the cached 1 was dropped
    owner.close()
    replica.close()
    log.close()


def test_time_index_stays_off_the_changelog_and_is_rebuilt(tmp_path: Path) -> None:
    """Window and session stores' time indexes are derived entries: not on the changelog, rebuilt by the
    restore (a store rebuilt from its changelog alone finds closed windows and purges as before)."""
    from ksqlpy.state.windowed import TIME_INDEX

    log = _log(tmp_path)
    kv = KeyValueStore(str(tmp_path / "w"), log, TOPIC, 0, TIME_INDEX)
    ws, ss = WindowStore(kv), SessionStore(kv)
    for start in (0, 10, 20):
        ws.put(b"k", start, [start], new=True)
    ss.put(b"s", 5, 9, ["a"])
    ss.put(b"s", 30, 35, ["b"])
    _commit(kv, log)
    ws.purge(10)  # window 0 and its index entry go
    ss.remove(b"s", 5, 9)
    _commit(kv, log)
    changelog = log.fetch(TOPIC, 0, 0, 1000)
    assert changelog.keys and not [k for k in changelog.keys if k[:1] in (b"I", b"E")]
    before = (list(ws.fetch_all()), list(ss.ended(None, 100)), list(kv.items()))
    kv.close()
    shutil.rmtree(tmp_path / "w")
    kv2 = KeyValueStore(str(tmp_path / "w"), log, TOPIC, 0, TIME_INDEX)
    kv2.restore()
    ws2, ss2 = WindowStore(kv2), SessionStore(kv2)
    assert (list(ws2.fetch_all()), list(ss2.ended(None, 100)), list(kv2.items())) == before
    assert [s for _, s, _ in ws2.fetch_all()] == [10, 20]
    assert ws2.purge(15) == 1
    kv2.close()
    log.close()


def test_range_agrees_with_a_model_through_puts_deletes_and_commits(tmp_path: Path) -> None:
    """range() after thousands of changes since the last commit (more than one bulk merge of the keys it
    lists), re-puts of deleted keys and deletes of committed ones: always the model's entries in order."""
    import random

    from ksqlpy.state import store as store_mod

    log = _log(tmp_path)
    s = _open(tmp_path, log)
    model: dict[bytes, int] = {}
    rng = random.Random(3)
    for round_ in range(6):
        for step in range(2500):
            k = b"k%04d" % rng.randrange(3000)
            if rng.random() < 0.25:
                s.delete(k)
                model.pop(k, None)
            else:
                s.put(k, step)
                model[k] = step
            if step % 500 == 0:  # range() early builds the sorted keys; later changes must reach it
                lo, hi = sorted((b"k%04d" % rng.randrange(3000), b"k%04d" % rng.randrange(3000)))
                assert list(s.range(lo, hi)) == sorted((k, v) for k, v in model.items() if lo <= k < hi)
        assert len(s._dnew) < store_mod._MERGE_AT
        assert list(s.range(b"k")) == sorted(model.items())
        if round_ % 2:
            _commit(s, log)
    _commit(s, log)
    assert list(s.range(b"k")) == sorted(model.items())


def test_opening_a_store_does_not_restore_it(tmp_path: Path) -> None:
    """Opening only opens the files: the changelog is replayed by ``restore()`` (the task's restore
    phase), which reports how many records it replayed."""
    log = _log(tmp_path)
    s = _open(tmp_path, log)
    s.put(b"k", 1)
    _commit(s, log)
    s.close()
    shutil.rmtree(tmp_path / "s")
    fresh = KeyValueStore(str(tmp_path / "s"), log, TOPIC, 0)
    assert not fresh.is_restored and fresh.get(b"k") is None
    assert fresh.restore() == 1 and fresh.is_restored
    assert fresh.get(b"k") == 1
    fresh.close()
    fresh.close()  # idempotent: a task and its query may both release it


def test_committed_payloads_replay_into_another_store(tmp_path: Path) -> None:
    # what the Spark backfill hands over: a private store's committed entries as changelog payloads, which
    # another store replays from its changelog into the same content (uncommitted changes are not included)
    private = KeyValueStore(str(tmp_path / "private"), None, None, 0)
    for i in range(25):
        private.put(f"k{i:02d}".encode(), {"n": i, "l": [i] * 3})
    private.delete(b"k03")
    private.flush(None)  # type: ignore[arg-type]  # no changelog: encodes for commit_local
    private.commit_local()
    private.put(b"zz-uncommitted", 1)
    chunks = list(private.committed_payloads(chunk=10))
    assert [len(k) for k, _ in chunks] == [10, 10, 4]
    keys = [k for ks, _ in chunks for k in ks]
    assert keys == sorted(f"k{i:02d}".encode() for i in range(25) if i != 3)
    log = _log(tmp_path)
    with log.transaction() as tx:
        for ks, vs in chunks:
            tx.produce_batch(TOPIC, 0, ks, vs)
    other = _open(tmp_path, log, "other")
    assert list(other.items()) == [(k, {"n": int(k[1:]), "l": [int(k[1:])] * 3}) for k in keys]
