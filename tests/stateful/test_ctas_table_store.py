"""A CREATE TABLE AS SELECT without aggregation over a table keeps the source's rows as read (ksqlDB's
``KsqlTopic-Reduce`` store) and applies its WHERE and projection when pull queries read them."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.catalog import Column, Source
from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.runtime.materialize import InputRowStore
from tests.stateful.conftest import Harness

TABLE = ("CREATE TABLE S (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='s', value_format='JSON', "
         "partitions=2);")
APP = "_confluent-ksql-test_query_CTAS_T_"


def _topics(h: Harness) -> set[str]:
    return {t.name for t in h.engine.log.list_topics() if t.name.startswith(APP)}


def test_the_store_is_the_source_materialized_as_read(h: Harness) -> None:
    h.sql(TABLE)
    h.sql("CREATE TABLE T AS SELECT K, A * 10 AS A10 FROM S WHERE A > 0;")
    h.send("s", "k1", {"A": 1, "B": "x"}, 10)
    h.send("s", "k2", {"A": 0, "B": "y"}, 20)
    h.run()
    assert [t.split("-", 3)[-1] for t in _topics(h)] == ["KsqlTopic-Reduce-changelog"]
    (query,) = [q for q in h.engine.queries.values() if q.sink_name == "T"]
    stores = query.materialization.stores
    rows = sorted(r[0] for s in stores for r in s.scan())  # the source's rows, the failing one too
    assert rows == [("k1", 1, "x"), ("k2", 0, "y")]
    assert h.pull("SELECT * FROM T;") == [("k1", 10)]
    assert h.pull("SELECT * FROM T WHERE K = 'k2';") == []


def test_deletes_go_out_only_for_keys_whose_previous_row_passed(h: Harness) -> None:
    h.sql(TABLE)
    h.sql("CREATE TABLE T AS SELECT K, A FROM S WHERE A > 0;")
    h.send("s", "pass", {"A": 1, "B": "x"}, 10)
    h.send("s", "fail", {"A": 0, "B": "y"}, 20)
    h.send("s", "pass", None, 30)
    h.send("s", "fail", None, 40)
    h.send("s", "never", None, 50)
    h.run()
    assert sorted(h.read("T"), key=lambda r: r[2]) == [(("pass",), (1,), 10), (("pass",), None, 30)]
    assert h.pull("SELECT * FROM T;") == []


def test_a_reordered_multi_column_key_is_looked_up(h: Harness) -> None:
    h.sql("CREATE TABLE S (K1 INT PRIMARY KEY, K2 STRING PRIMARY KEY, A INT) WITH (kafka_topic='s', "
          "key_format='JSON', value_format='JSON', partitions=2);")
    h.sql("CREATE TABLE T AS SELECT K2, K1, A FROM S;")
    for i, (k1, k2) in enumerate(((1, "x"), (2, "y"), (3, "z"))):
        h.send("s", {"K1": k1, "K2": k2}, {"A": 10 * k1}, i)
    h.run()
    scanned = h.pull("SELECT * FROM T;")
    assert len(scanned) == 3
    looked_up = h.pull("SELECT * FROM T WHERE K1 = 2 AND K2 = 'y';")
    assert looked_up == [r for r in scanned if 20 in r]
    assert h.pull("SELECT A FROM T WHERE K2 = 'z' AND K1 = 3;") == [(30,)]


def test_the_store_is_rebuilt_from_its_changelog(tmp_path: Any) -> None:
    """With the state files gone, a restarted query's store replays its changelog (and writes nothing)."""
    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
    ctas = "CREATE TABLE T AS SELECT K, UCASE(B) AS UB FROM S WHERE A > 0;"
    engine = Engine(str(tmp_path), props)
    h = Harness(engine)
    h.sql(TABLE)
    h.sql(ctas)
    h.send("s", "k1", {"A": 1, "B": "x"}, 10)
    h.send("s", "k2", {"A": 0, "B": "y"}, 20)
    h.run()
    written = h.read("T")
    engine.close()
    states = [d for d in tmp_path.rglob("state") if d.is_dir()]
    assert states
    for d in states:
        shutil.rmtree(d)
    engine = Engine(str(tmp_path), props)
    try:
        h = Harness(engine)
        h.sql(TABLE)
        h.sql(ctas)
        h.run()
        assert h.pull("SELECT * FROM T;") == [("k1", "X")]
        h.send("s", "k1", None, 30)  # the key's previous row (restored) passed: the delete goes out
        h.send("s", "k2", None, 40)
        h.run()
        assert h.read("T") == [*written, (("k1",), None, 30)]
        assert h.pull("SELECT * FROM T;") == []
    finally:
        engine.close()


class _Kv:
    """A store's entries by key, as ``InputRowStore`` reads them."""

    partition = 0

    def __init__(self) -> None:
        self.entries: dict[bytes, Any] = {}

    def put(self, key: bytes, value: Any) -> None:
        self.entries[key] = value

    def get(self, key: bytes) -> Any:
        return self.entries.get(key)


def test_rows_stored_before_the_source_gained_columns_read_them_as_null() -> None:
    source = Source("S", "TABLE", "s", [Column("K", T.STRING, key=True), Column("A", T.INTEGER),
                                         Column("B", T.STRING), Column("H", T.BYTES, header_key="h")],
                    "KAFKA", "JSON")
    store = InputRowStore(_Kv(), source)  # type: ignore[arg-type]
    store.kv.put(store._key(("k",), None, None), (("k", 1, b"h"), 5, 0))  # stored with (K, A, H)
    assert store.lookup(("k",), None, None) == [(("k", 1, None, b"h"), 5, 0)]


def _stores(engine: Engine) -> list[str]:
    (query,) = [q for q in engine.queries.values() if q.sink_name == "T"]
    return [s.name for s in query.built.topology.stores]


@pytest.mark.parametrize(("first_revision", "store"), [(2, "Materialize"), (None, "KsqlTopic-Reduce")])
def test_a_query_stored_under_an_earlier_revision_keeps_its_store(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, first_revision: int | None, store: str) -> None:
    """Revision 2 of the plan rules kept a table CTAS's result rows (``Materialize``): a query created then
    is replayed with that store after the upgrade (its rows are there, nothing read twice), and a CREATE OR
    REPLACE of it keeps it too."""
    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(tmp_path), dict(props))
        try:
            shell = DurableStatements(engine)
            shell.execute(TABLE)
            shell.execute("CREATE TABLE T AS SELECT K, A FROM S;")
            Harness(engine).send("s", "k1", {"A": 1, "B": "x"}, 10)
            engine.drain(10)
        finally:
            engine.close()
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.send("s", "k2", {"A": 2, "B": "y"}, 20)
        h.run()
        assert _stores(engine) == [store]
        assert h.pull("SELECT * FROM T;") == [("k1", 1), ("k2", 2)]
        shell.execute("CREATE OR REPLACE TABLE T AS SELECT K, A, B FROM S;")
        h.run()
        assert _stores(engine) == [store]
        assert sorted(h.pull("SELECT K, A FROM T;")) == [("k1", 1), ("k2", 2)]
    finally:
        engine.close()
