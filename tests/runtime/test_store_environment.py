"""One LMDB environment for a query's stores on a host (``state.environment``), one serde per (format, schema)
per query (``runtime.serdes.QuerySerdes``): the stores keep their changelogs, checkpoints, restore and names."""

from __future__ import annotations

import os
from pathlib import Path

import lmdb
import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.state.environment import StoreEnvironment, stores_in
from ksqlpy.state.store import KeyValueStore

_JOIN_THEN_COUNT = (
    "CREATE STREAM P (ID BIGINT KEY, NAME STRING) WITH (KAFKA_TOPIC='p', PARTITIONS=4, VALUE_FORMAT='JSON');",
    "CREATE STREAM A (ID BIGINT KEY, SELLER BIGINT) WITH (KAFKA_TOPIC='a', PARTITIONS=4, VALUE_FORMAT='JSON');",
    "CREATE TABLE T AS SELECT P.ID AS ID, COUNT(*) AS N FROM P JOIN A WITHIN 10 SECONDS ON P.ID = A.SELLER "
    "GROUP BY P.ID EMIT CHANGES;",
)


def _log(tmp: Path, *topics: str) -> EmbeddedLog:
    log = EmbeddedLog(str(tmp / "log"))
    for t in topics:
        log.create_topic(t, 1)
    return log


def _commit(kv: KeyValueStore, log: EmbeddedLog) -> None:
    with log.transaction() as tx:
        kv.flush(tx)
    kv.commit_local()


def _count(engine: Engine) -> dict[int, int]:
    rows = engine.execute("SELECT ID, N FROM T;")[-1].data["rows"]
    return {r[0]: r[1] for r in rows}


def _feed(engine: Engine, n: int) -> None:
    for i in range(n):
        engine.execute(f"INSERT INTO P (ID, NAME, ROWTIME) VALUES ({i}, 'p{i}', {1000 + i});")
        engine.execute(f"INSERT INTO A (ID, SELLER, ROWTIME) VALUES ({100 + i}, {i}, {1000 + i});")
        engine.execute(f"INSERT INTO A (ID, SELLER, ROWTIME) VALUES ({200 + i}, {i}, {1001 + i});")


def test_a_query_opens_one_environment_for_all_its_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real = lmdb.open

    def counting(path: str, **kw: object) -> lmdb.Environment:
        opened.append(path)
        return real(path, **kw)

    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    try:
        for sql in _JOIN_THEN_COUNT[:2]:
            engine.execute(sql)
        monkeypatch.setattr(lmdb, "open", counting)
        engine.execute(_JOIN_THEN_COUNT[2])
        monkeypatch.undo()
        (qid, query), = engine.queries.items()
        root = os.path.join(engine.data_dir, "state", qid)
        stores = query.built.stores
        assert len(stores) >= 12  # two join stores and an aggregate per partition, four partitions
        assert opened == [root]
        assert {id(kv.env) for kv in stores} == {id(stores[0].env)}
        # the names the rest of the engine sees are the layout of one environment per store
        names = {os.path.relpath(kv.directory, root) for kv in stores}
        assert set(stores_in(root)) == names
        assert len(names) == len(stores) and {f"0_{p}/Aggregate-Aggregate-Materialize" for p in range(4)} <= names
        assert not [d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))]  # no directory per store
        _feed(engine, 8)
        engine.drain(60)
        assert _count(engine) == {i: 2 for i in range(8)}
    finally:
        engine.close()


def test_a_restarted_query_finds_every_store_checkpoint(tmp_path: Path) -> None:
    """A server restart replays the statements and rebuilds the query: every store starts from the checkpoint
    it committed in the query's one environment (nothing replayed from its changelog)."""
    data = tmp_path / "data"
    engine = Engine(str(data), {"auto.offset.reset": "earliest"})
    shell = DurableStatements(engine)
    for sql in _JOIN_THEN_COUNT:
        shell.execute(sql)
    _feed(engine, 6)
    engine.drain(60)
    (_, query), = engine.queries.items()
    checkpoints = {kv.directory: kv.checkpoint() for kv in query.built.stores}
    assert any(checkpoints.values())
    engine.close()

    engine = Engine(str(data), {"auto.offset.reset": "earliest"})
    try:
        assert DurableStatements(engine).replay_errors == []
        (_, query), = engine.queries.items()
        stores = query.built.stores
        assert {kv.directory: kv.checkpoint() for kv in stores} == checkpoints
        assert sum(kv.restored for kv in stores) == 0  # nothing replayed: the local files had it all
        assert _count(engine) == {i: 2 for i in range(6)}
    finally:
        engine.close()


def test_stores_in_one_environment_keep_their_own_entries_and_checkpoints(tmp_path: Path) -> None:
    log = _log(tmp_path, "c1", "c2")
    root = str(tmp_path / "q")
    a = KeyValueStore(os.path.join(root, "a-0"), log, "c1", 0, environment=StoreEnvironment.shared_at(root, 2))
    b = KeyValueStore(os.path.join(root, "0_1/b"), log, "c2", 0, environment=StoreEnvironment.shared_at(root, 2))
    a.restore()
    b.restore()
    assert a.env is b.env
    a.put(b"k", 1)
    _commit(a, log)
    b.put(b"k", "other")
    b.put(b"j", 2)
    _commit(b, log)
    a.put(b"k", 3)
    _commit(a, log)
    assert (a.checkpoint(), b.checkpoint()) == (2, 2)
    assert dict(a.items()) == {b"k": 3} and dict(b.items()) == {b"j": 2, b"k": "other"}
    a.close()
    assert not b.closed and b.get(b"j") == 2  # the environment stays open for its other store
    b.close()
    assert StoreEnvironment._open.get(os.path.realpath(root)) is None  # closed with its last store

    # reopened: each store restores from its own checkpoint, a store whose changelog was recreated alone is wiped
    log.delete_topic("c2")
    log.create_topic("c2", 1)
    a = KeyValueStore(os.path.join(root, "a-0"), log, "c1", 0, environment=StoreEnvironment.shared_at(root, 2))
    b = KeyValueStore(os.path.join(root, "0_1/b"), log, "c2", 0, environment=StoreEnvironment.shared_at(root, 2))
    assert (a.restore(), b.restore()) == (0, 0)
    assert dict(a.items()) == {b"k": 3}
    assert dict(b.items()) == {} and b.checkpoint() == 0
    a.close()
    b.close()
    log.close()


def test_a_store_without_changelog_takes_its_entries_with_it(tmp_path: Path) -> None:
    root = str(tmp_path / "q")
    keep = KeyValueStore(os.path.join(root, "keep"), None, None, 0, environment=StoreEnvironment.shared_at(root, 2))
    gone = KeyValueStore(os.path.join(root, "gone"), None, None, 0, environment=StoreEnvironment.shared_at(root, 2))
    keep.put(b"a", 1)
    keep.commit_local()
    gone.put(b"b", 2)
    gone.commit_local()
    assert sorted(stores_in(root)) == ["gone", "keep"]
    gone.close()
    assert stores_in(root) == ["keep"]
    assert keep.get(b"a") == 1
    keep.close()


def test_a_store_beyond_the_environments_room_gets_one_of_its_own(tmp_path: Path) -> None:
    """A query rebuilt in this process while its earlier stores are open may need more databases than the
    environment was opened with: the store gets its own environment and works alike."""
    log = _log(tmp_path, "c")
    root = str(tmp_path / "q")
    first = StoreEnvironment.shared_at(root, 0)
    stores = [KeyValueStore(os.path.join(root, f"s-{i}"), None, None, 0,
                            environment=first if i == 0 else StoreEnvironment.shared_at(root, 0))
              for i in range(first.max_dbs)]  # the meta database takes one: the last store has no room
    assert [kv.env is first.env for kv in stores] == [True] * (first.max_dbs - 1) + [False]
    last = stores[-1]
    assert os.path.exists(os.path.join(last.directory, "data.mdb"))
    last.put(b"x", 1)
    last.commit_local()
    assert last.get(b"x") == 1
    for kv in stores:
        kv.close()
    assert not os.path.exists(last.directory)  # a store without changelog: its own files go with it
    assert StoreEnvironment._open.get(os.path.realpath(root)) is None
    log.close()


def test_the_tasks_of_a_query_share_its_serdes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each source's key and value serde is built once for the query, not once per partition's task."""
    engine = Engine(str(tmp_path / "data"), {"auto.offset.reset": "earliest"})
    built: list[tuple[str, str]] = []
    try:
        for sql in _JOIN_THEN_COUNT[:2]:
            engine.execute(sql)
        for side in ("key_serde", "value_serde"):
            real = getattr(engine.serdes, side)
            monkeypatch.setattr(engine.serdes, side,
                                lambda source, real=real, side=side: built.append((side, source.topic)) or real(source))
        engine.execute(_JOIN_THEN_COUNT[2])
        monkeypatch.undo()
        reads = [b for b in built if b[1] in ("p", "a")]
        assert sorted(reads) == sorted({(s, t) for s in ("key_serde", "value_serde") for t in ("p", "a")})
        _feed(engine, 4)
        engine.drain(60)
        assert _count(engine) == {i: 2 for i in range(4)}
    finally:
        engine.close()
