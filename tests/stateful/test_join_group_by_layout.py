"""A GROUP BY over a table-table join's result is re-grouped through ``Aggregate-GroupBy-repartition`` (ksqlDB's
``SchemaKTable.groupBy`` is always ``KTable.groupBy``), also when it groups by the join key. A query created
under plan rules revision 6 or before aggregated in the join's task and keeps doing so across a restart: its aggregate
state is there."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine import Engine, command_log
from ksqlpy.engine.command_log import DurableStatements
from tests.stateful.conftest import Harness

TABLES = ["CREATE TABLE A (ID STRING PRIMARY KEY, X INT) WITH (kafka_topic='a', value_format='JSON', partitions=2);",
          "CREATE TABLE B (ID STRING PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='JSON', partitions=2);"]
APP = "_confluent-ksql-test_query_CTAS_G_"


def _repartitions(engine: Engine) -> list[str]:
    return sorted(t.name.split("-", 3)[-1] for t in engine.log.list_topics()
                  if t.name.startswith(APP) and t.name.endswith("-repartition"))


@pytest.mark.parametrize(("first_revision", "repartitions"), [(6, []), (None, ["Aggregate-GroupBy-repartition"])])
def test_the_grouping_of_a_table_join_result_by_its_key(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                        first_revision: int | None, repartitions: list[str]) -> None:
    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(tmp_path), dict(props))
        try:
            shell = DurableStatements(engine)
            for sql in TABLES:
                shell.execute(sql)
            shell.execute("CREATE TABLE G AS SELECT A.ID AS ID, COUNT(*) AS C, SUM(Y) AS S FROM A JOIN B "
                          "ON A.ID = B.ID GROUP BY A.ID;")
            h = Harness(engine)
            h.send("a", "k1", {"X": 1}, 10)
            h.send("b", "k1", {"Y": 2}, 11)
            h.run()
            assert _repartitions(engine) == repartitions
        finally:
            engine.close()
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.send("b", "k1", {"Y": 5}, 20)  # the row before is undone: the state is where the query reads it
        h.send("a", "k2", {"X": 3}, 21)
        h.send("b", "k2", {"Y": 4}, 22)
        h.run()
        assert _repartitions(engine) == repartitions
        assert sorted(h.pull("SELECT * FROM G;")) == [("k1", 1, 5), ("k2", 1, 4)]
    finally:
        engine.close()


def _previous_rows_topics(engine: Engine) -> list[str]:
    return sorted(t.name.split("-", 3)[-1] for t in engine.log.list_topics()
                  if t.name.startswith(APP) and "KsqlTopic-Reduce" in t.name)


@pytest.mark.parametrize(("first_revision", "topics"), [(7, ["KsqlTopic-Reduce-changelog"]), (None, [])])
def test_the_previous_joined_rows_of_a_table_join_aggregation(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                              first_revision: int | None, topics: list[str]) -> None:
    """Revision 8: the previous joined row comes with the join's change, no ``KsqlTopic-Reduce`` store; a query
    created under revision 7 keeps its store of them across a restart, and both take a moved row back."""
    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_"}
    with monkeypatch.context() as m:
        if first_revision is not None:
            m.setattr(command_log, "PLAN_RULES", first_revision)
        engine = Engine(str(tmp_path), dict(props))
        try:
            shell = DurableStatements(engine)
            for sql in TABLES:
                shell.execute(sql)
            shell.execute("CREATE TABLE G AS SELECT A.X AS X, COUNT(*) AS C, SUM(Y) AS S FROM A JOIN B "
                          "ON A.ID = B.ID GROUP BY A.X;")
            h = Harness(engine)
            h.send("a", "k1", {"X": 1}, 10)
            h.send("b", "k1", {"Y": 2}, 11)
            h.send("a", "k2", {"X": 1}, 12)
            h.send("b", "k2", {"Y": 3}, 13)
            h.run()
            assert _previous_rows_topics(engine) == topics
            assert sorted(h.pull("SELECT * FROM G;")) == [(1, 2, 5)]
        finally:
            engine.close()
    engine = Engine(str(tmp_path), dict(props))
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        h = Harness(engine)
        h.send("a", "k1", {"X": 7}, 20)  # moves from group 1 to group 7
        h.send("b", "k2", {"Y": 4}, 21)  # changes within group 1
        h.send("b", "k1", None, 22)  # takes k1 back out of group 7
        h.run()
        assert _previous_rows_topics(engine) == topics
        assert sorted(h.pull("SELECT * FROM G;")) == [(1, 1, 4), (7, 0, 0)]
    finally:
        engine.close()
