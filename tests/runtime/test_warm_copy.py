"""A store's restore phase starts from a warm copy of its changelog partition (a standby replica on this
host) when the copy is ahead of the store's own files: only the changelog's tail is replayed. A copy that
is behind, of another partition, or ahead of the changelog (another history) is not taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.state.store import KeyValueStore
from ksqlpy.state.windowed import TIME_INDEX, WindowStore

TOPIC = "changelog"


def _log(tmp: Path, partitions: int = 1) -> EmbeddedLog:
    log = EmbeddedLog(str(tmp / "log"))
    log.create_topic(TOPIC, partitions)
    return log


def _write(kv: KeyValueStore, log: EmbeddedLog, items: dict[bytes, object | None]) -> None:
    """One committed batch of the active store: changelog first, then its files."""
    for k, v in items.items():
        if v is None:
            kv.delete(k)
        else:
            kv.put(k, v)
    with log.transaction() as tx:
        kv.flush(tx)
    kv.commit_local()


def _contents(kv: KeyValueStore) -> dict[bytes, object]:
    return dict(kv.range(b"", None))


@pytest.fixture
def active_and_standby(tmp_path: Path) -> tuple[EmbeddedLog, KeyValueStore, KeyValueStore]:
    """An active store with 20 committed records and a standby that followed all of them."""
    log = _log(tmp_path)
    active = KeyValueStore(str(tmp_path / "active"), log, TOPIC, 0)
    active.restore()
    for i in range(4):
        _write(active, log, {f"k{j}".encode(): i * 10 + j for j in range(5)})
    standby = KeyValueStore(str(tmp_path / "standby"), log, TOPIC, 0)
    assert standby.follow() == 20
    return log, active, standby


def test_a_new_active_takes_the_standby_and_replays_only_the_tail(
        tmp_path: Path, active_and_standby: tuple[EmbeddedLog, KeyValueStore, KeyValueStore]) -> None:
    log, active, standby = active_and_standby
    _write(active, log, {b"k1": "late", b"k2": None, b"k9": 9})  # after the standby's last step
    taken = KeyValueStore(str(tmp_path / "taken"), log, TOPIC, 0)
    taken.seed = standby
    assert taken.restore() == 3  # the tail only
    assert taken.seeded == 5
    assert taken.checkpoint() == active.checkpoint() == 23
    assert _contents(taken) == _contents(active)
    assert taken.get(b"k2") is None and taken.get(b"k1") == "late"
    assert taken.seed is None  # used once: a later restore replays from its own checkpoint
    for kv in (taken, standby, active):
        kv.close()
    log.close()


def test_without_a_copy_the_whole_changelog_is_replayed(
        tmp_path: Path, active_and_standby: tuple[EmbeddedLog, KeyValueStore, KeyValueStore]) -> None:
    log, active, standby = active_and_standby
    cold = KeyValueStore(str(tmp_path / "cold"), log, TOPIC, 0)
    assert cold.restore() == 20 and cold.seeded == 0
    assert _contents(cold) == _contents(active)
    for kv in (cold, standby, active):
        kv.close()
    log.close()


def test_a_copy_behind_the_store_is_not_taken(
        tmp_path: Path, active_and_standby: tuple[EmbeddedLog, KeyValueStore, KeyValueStore]) -> None:
    log, active, standby = active_and_standby
    _write(active, log, {b"k0": "newer"})
    ahead = KeyValueStore(str(tmp_path / "ahead"), log, TOPIC, 0)
    ahead.restore()
    assert ahead.checkpoint() == 21
    ahead.close()
    again = KeyValueStore(str(tmp_path / "ahead"), log, TOPIC, 0)
    again.seed = standby  # at 20: behind these files
    assert again.restore() == 0 and again.seeded == 0
    assert again.get(b"k0") == "newer"
    for kv in (again, standby, active):
        kv.close()
    log.close()


def test_a_copy_of_another_partition_or_history_is_not_taken(tmp_path: Path) -> None:
    log = _log(tmp_path, partitions=2)
    other = KeyValueStore(str(tmp_path / "p1"), log, TOPIC, 1)
    other.restore()
    _write(other, log, {b"x": 1})
    mine = KeyValueStore(str(tmp_path / "p0"), log, TOPIC, 0)
    mine.seed = other
    assert mine.restore() == 0 and mine.seeded == 0 and _contents(mine) == {}
    # a copy whose checkpoint is past the changelog's end followed a changelog since recreated
    stale_log = EmbeddedLog(str(tmp_path / "log2"))
    stale_log.create_topic(TOPIC, 2)
    fresh = KeyValueStore(str(tmp_path / "fresh"), stale_log, TOPIC, 1)
    fresh.seed = other  # at offset 1 of the old changelog; the new one is empty
    assert fresh.restore() == 0 and fresh.seeded == 0 and _contents(fresh) == {}
    for kv in (other, mine, fresh):
        kv.close()
    log.close()
    stale_log.close()


def test_a_closed_copy_falls_back_to_the_changelog(
        tmp_path: Path, active_and_standby: tuple[EmbeddedLog, KeyValueStore, KeyValueStore]) -> None:
    log, active, standby = active_and_standby
    standby.close()
    taken = KeyValueStore(str(tmp_path / "taken"), log, TOPIC, 0)
    taken.seed = standby
    assert taken.restore() == 20 and taken.seeded == 0
    taken.close()
    active.close()
    log.close()


def test_a_window_store_takes_its_derived_time_index_with_the_copy(tmp_path: Path) -> None:
    """The time index is not on the changelog; the copy holds it, so range-by-time works after seeding."""
    log = _log(tmp_path)
    active = KeyValueStore(str(tmp_path / "active"), log, TOPIC, 0, TIME_INDEX)
    active.restore()
    windows = WindowStore(active)
    for start in (0, 60_000, 120_000):
        windows.put(b"k", start, start, new=True)
    with log.transaction() as tx:
        active.flush(tx)
    active.commit_local()
    standby = KeyValueStore(str(tmp_path / "standby"), log, TOPIC, 0, TIME_INDEX)
    standby.follow()
    taken = KeyValueStore(str(tmp_path / "taken"), log, TOPIC, 0, TIME_INDEX)
    taken.seed = standby
    assert taken.restore() == 0 and taken.seeded > 3  # the entries and their index entries
    assert _contents(taken) == _contents(active)
    assert list(WindowStore(taken).fetch_all()) == list(windows.fetch_all())
    for kv in (taken, standby, active):
        kv.close()
    log.close()
