"""A CREATE TABLE AS SELECT over a table-table join keeps its result rows for pull queries in the store
ksqlDB's TableSelect step materializes the join's result in, named after the step: ``Project`` (changelog
``<app>-Project-changelog``). A query created under plan rules revision 4 keeps its ``Materialize`` store."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from tests.stateful.conftest import Harness

TABLES = ["CREATE TABLE A (ID STRING PRIMARY KEY, X INT) WITH (kafka_topic='a', value_format='JSON', partitions=2);",
          "CREATE TABLE B (ID STRING PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='JSON', partitions=2);"]
APP = "_confluent-ksql-test_query_CTAS_J_"


def _stores(engine: Engine) -> list[str]:
    (query,) = [q for q in engine.queries.values() if q.sink_name == "J"]
    return sorted(s.name for s in query.built.topology.stores)


def _changelogs(engine: Engine) -> list[str]:
    return sorted(t.name.split("-", 3)[-1] for t in engine.log.list_topics() if t.name.startswith(APP))


@pytest.mark.parametrize(("first_revision", "store"), [(4, "Materialize"), (None, "Project")])
def test_the_join_result_store_and_its_changelog(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                 first_revision: int | None, store: str) -> None:
    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(tmp_path), dict(props))
        try:
            shell = DurableStatements(engine)
            for sql in TABLES:
                shell.execute(sql)
            shell.execute("CREATE TABLE J AS SELECT A.ID AS ID, X, Y FROM A JOIN B ON A.ID = B.ID WHERE X > 0;")
            h = Harness(engine)
            h.send("a", "k1", {"X": 1}, 10)
            h.send("b", "k1", {"Y": 2}, 11)
            h.run()
            assert store in _stores(engine)
        finally:
            engine.close()
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.send("a", "k2", {"X": 3}, 20)
        h.send("b", "k2", {"Y": 4}, 21)
        h.run()
        assert _stores(engine) == ["KafkaTopic_Left-Reduce", "KafkaTopic_Right-Reduce", store]
        assert _changelogs(engine) == sorted(["KafkaTopic_Left-Reduce-changelog", "KafkaTopic_Right-Reduce-changelog",
                                              f"{store}-changelog"])
        assert sorted(h.pull("SELECT * FROM J;")) == [("k1", 1, 2), ("k2", 3, 4)]
        h.send("a", "k1", {"X": 0}, 30)  # no longer passes: deleted from the store too
        h.run()
        assert h.pull("SELECT * FROM J;") == [("k2", 3, 4)]
    finally:
        engine.close()
