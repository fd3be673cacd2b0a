"""A CREATE TABLE AS SELECT with WHERE over a table filters as ksqlDB's table filter over a materialized
source (KTableFilter sending old values): each update evaluates the WHERE on the new row and on the key's
previous row - failures logged each time - and never the projection of the previous row. Pull queries read
the source's rows through the same WHERE, each row at its own ROWTIME."""

from __future__ import annotations

from typing import Any

from tests.stateful.conftest import Harness

TABLE = ("CREATE TABLE T (K STRING PRIMARY KEY, V INT, S STRING) WITH (kafka_topic='t', value_format='JSON', "
         "partitions=1);")


def _errors(h: Harness) -> list[tuple[str, Any]]:
    out = []
    for entry in h.engine.plog.entries:
        err = entry["message"]["recordProcessingError"]
        out.append((err["errorMessage"], err["record"]))
    return out


def test_the_projection_of_the_previous_row_is_never_computed(h: Harness) -> None:
    h.sql(TABLE)
    h.sql("CREATE TABLE F AS SELECT K, 10 / V AS Q FROM T WHERE S = 'x';")
    h.send("t", "k1", {"V": 0, "S": "x"}, 1)  # passes: its projection fails (logged once)
    h.send("t", "k1", {"V": 0, "S": "y"}, 2)  # fails: the previous row passed (WHERE only) - a delete
    h.run()
    assert h.read("F") == [(("k1",), (None,), 1), (("k1",), None, 2)]
    assert [e[0] for e in _errors(h)] == ["Error computing expression (10 / V) for column Q with index 0"]


def test_a_where_failing_on_the_previous_row_is_logged_again(h: Harness) -> None:
    h.sql(TABLE)
    h.sql("CREATE TABLE F AS SELECT K, V FROM T WHERE 10 / V > 1;")
    h.send("t", "k1", {"V": 0, "S": "a"}, 1)  # the WHERE fails (logged)
    h.send("t", "k1", {"V": 2, "S": "b"}, 2)  # passes; the previous row's WHERE fails again (logged)
    h.send("t", "k2", {"V": 3, "S": "c"}, 3)  # no previous row: evaluated once
    h.run()
    assert h.read("F") == [(("k1",), (2,), 2), (("k2",), (3,), 3)]
    assert _errors(h) == [("Error evaluating predicate ((10 / V) > 1)", None)] * 2


def test_pull_reads_each_source_row_at_its_own_rowtime(h: Harness) -> None:
    """The sink keeps a row whose key's update no longer passes and whose previous row, at the update's
    ROWTIME, does not pass either (no delete goes out); a pull query reads the stored update through the
    WHERE at its own ROWTIME and finds no row for the key."""
    h.sql(TABLE)
    h.sql("CREATE TABLE F AS SELECT K, V FROM T WHERE ROWTIME < 100 OR V > 10;")
    h.send("t", "k1", {"V": 1, "S": "a"}, 50)
    h.send("t", "k1", {"V": 2, "S": "a"}, 150)
    h.send("t", "k2", {"V": 3, "S": "b"}, 60)
    h.send("t", "k3", {"V": 30, "S": "c"}, 70)
    h.send("t", "k3", {"V": 4, "S": "c"}, 160)  # the previous row passes at 160 (V > 10): a delete
    h.run()
    assert sorted(h.read("F"), key=lambda r: r[2]) == [
        (("k1",), (1,), 50), (("k2",), (3,), 60), (("k3",), (30,), 70), (("k3",), None, 160)]
    assert h.pull("SELECT * FROM F;") == [("k2", 3)]
    assert h.pull("SELECT * FROM F WHERE K = 'k1';") == []
    assert h.pull("SELECT K, V FROM F WHERE K = 'k2';") == [("k2", 3)]


def test_the_previous_rows_survive_a_restart(tmp_path: Any) -> None:
    """After a restart the stored previous rows decide the deletes as before."""
    from ksqlpy.engine import Engine

    props = {"auto.offset.reset": "earliest", "ksql.service.id": "test_", "cache.max.bytes.buffering": 0}
    ctas = "CREATE TABLE F AS SELECT K, V FROM T WHERE V > 10;"
    engine = Engine(str(tmp_path), props)
    h = Harness(engine)
    h.sql(TABLE)
    h.sql(ctas)
    h.send("t", "pass", {"V": 20, "S": "a"}, 1)
    h.send("t", "fail", {"V": 5, "S": "b"}, 2)
    h.run()
    engine.close()
    engine = Engine(str(tmp_path), props)
    try:
        h = Harness(engine)
        h.sql(TABLE)
        h.sql(ctas)
        h.send("t", "pass", {"V": 1, "S": "a"}, 3)
        h.send("t", "fail", {"V": 6, "S": "b"}, 4)
        h.run()
        assert h.read("F") == [(("pass",), (20,), 1), (("pass",), None, 3)]
    finally:
        engine.close()


def test_a_join_tables_where_is_evaluated_on_the_new_and_the_previous_joined_row(h: Harness) -> None:
    """Over a table-table join the filter sees each change's new and previous joined rows: a WHERE failing
    on either is logged (and does not pass)."""
    h.sql("CREATE TABLE A (ID STRING PRIMARY KEY, X INT) WITH (kafka_topic='a', value_format='JSON', "
          "partitions=1);")
    h.sql("CREATE TABLE B (ID STRING PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='JSON', "
          "partitions=1);")
    h.sql("CREATE TABLE J AS SELECT A.ID AS ID, X, Y FROM A JOIN B ON A.ID = B.ID WHERE 10 / X > 1;")
    h.send("a", "k", {"X": 0}, 1)
    h.run()
    h.send("b", "k", {"Y": 1}, 2)  # joined (0, 1): the WHERE fails (logged); no previous row: nothing
    h.run()
    h.send("a", "k", {"X": 2}, 3)  # joined (2, 1) passes; the previous (0, 1) fails again (logged)
    h.run()
    h.send("a", "k", {"X": 20}, 4)  # (20, 1) does not pass, (2, 1) did: a delete
    h.run()
    assert h.read("J") == [(("k",), (2, 1), 3), (("k",), None, 4)]
    assert _errors(h) == [("Error evaluating predicate ((10 / A_X) > 1)", None)] * 2
