"""A SOURCE table's ``CST_`` query keeps the table materialized as read: ksqlDB's ``KsqlTopic-Reduce`` store
(changelog ``<app>-KsqlTopic-Reduce-changelog``), which pull queries read and which a restarted query
restores from its changelog; a CST query created under plan rules revision 3 keeps its ``Reduce`` store."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from tests.stateful.conftest import Harness

PROPS = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
TABLE = ("CREATE SOURCE TABLE S (K STRING PRIMARY KEY, A INT, B STRING) WITH (kafka_topic='s', "
         "value_format='JSON', partitions=2);")
APP = "_confluent-ksql-test_query_CST_S_"


def _changelogs(engine: Engine) -> list[str]:
    return sorted(t.name.split("-", 3)[-1] for t in engine.log.list_topics() if t.name.startswith(APP))


def _stores(engine: Engine) -> list[str]:
    (query,) = [q for q in engine.queries.values() if q.query_id.startswith("CST_S_")]
    return [s.name for s in query.built.topology.stores]


def test_the_cst_store_is_the_table_source_materialized_as_read(h: Harness) -> None:
    h.sql(TABLE)
    h.send("s", "k1", {"A": 1, "B": "x"}, 10)
    h.send("s", "k2", {"A": 2, "B": "y"}, 20)
    h.send("s", "k2", None, 30)
    h.run()
    assert _changelogs(h.engine) == ["KsqlTopic-Reduce-changelog"]
    assert _stores(h.engine) == ["KsqlTopic-Reduce"]
    assert h.pull("SELECT * FROM S;") == [("k1", 1, "x")]
    assert h.pull("SELECT B FROM S WHERE K = 'k1';") == [("x",)]


def test_the_cst_store_is_rebuilt_from_its_changelog(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path), dict(PROPS))
    try:
        shell = DurableStatements(engine)
        shell.execute(TABLE)
        h = Harness(engine)
        h.send("s", "k1", {"A": 1, "B": "x"}, 10)
        h.send("s", "k2", {"A": 2, "B": "y"}, 20)
        h.run()
    finally:
        engine.close()
    states = [d for d in tmp_path.rglob("state") if d.is_dir()]
    assert states
    for d in states:
        shutil.rmtree(d)
    engine = Engine(str(tmp_path), dict(PROPS))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.run()
        assert sorted(h.pull("SELECT * FROM S;")) == [("k1", 1, "x"), ("k2", 2, "y")]
        h.send("s", "k1", None, 30)
        h.run()
        assert h.pull("SELECT * FROM S;") == [("k2", 2, "y")]
    finally:
        engine.close()


@pytest.mark.parametrize(("first_revision", "store"), [(3, "Reduce"), (None, "KsqlTopic-Reduce")])
def test_a_cst_query_created_under_an_earlier_revision_keeps_its_store(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, first_revision: int | None, store: str) -> None:
    """Revision 3 named a CST query's store ``Reduce``: replayed after the upgrade it keeps that store and
    its changelog, so its rows are there and nothing is read twice."""
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(tmp_path), dict(PROPS))
        try:
            DurableStatements(engine).execute(TABLE)
            Harness(engine).send("s", "k1", {"A": 1, "B": "x"}, 10)
            engine.drain(10)
            assert _stores(engine) == [store]
        finally:
            engine.close()
    engine = Engine(str(tmp_path), dict(PROPS))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.send("s", "k2", {"A": 2, "B": "y"}, 20)
        h.run()
        assert _stores(engine) == [store]
        assert _changelogs(engine) == [f"{store}-changelog"]
        assert sorted(h.pull("SELECT * FROM S;")) == [("k1", 1, "x"), ("k2", 2, "y")]
    finally:
        engine.close()
