"""Queries ksqlDB refuses, with its messages, for every persistent statement kind that can reach the rule
(CREATE STREAM/TABLE AS SELECT, INSERT INTO ... SELECT) and transient queries where the rule applies too."""

from __future__ import annotations

from pathlib import Path

import pytest
from statement_errors import error as _error

from ksqlpy.engine import Engine

SETUP = [
    "CREATE STREAM s (k STRING KEY, a INT, b STRING, arr ARRAY<INT>) WITH (kafka_topic='s', partitions=1, "
    "value_format='JSON');",
    "CREATE TABLE t (k STRING PRIMARY KEY, a INT, arr ARRAY<INT>) WITH (kafka_topic='t', partitions=1, "
    "value_format='JSON');",
    "CREATE TABLE u (k STRING PRIMARY KEY, fk STRING, x INT) WITH (kafka_topic='u', partitions=1, value_format='JSON');",
    "CREATE TABLE v (k STRING PRIMARY KEY, y INT) WITH (kafka_topic='v', partitions=1, value_format='JSON');",
    "CREATE TABLE u2 (k1 STRING PRIMARY KEY, k2 INT PRIMARY KEY, fk STRING) WITH (kafka_topic='u2', partitions=1, "
    "key_format='JSON', value_format='JSON');",
    "CREATE TABLE w WITH (kafka_topic='w') AS SELECT k, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 SECOND) "
    "GROUP BY k;",
    "CREATE TABLE w2 (k STRING PRIMARY KEY, n BIGINT) WITH (kafka_topic='w', value_format='JSON', "
    "window_type='TUMBLING', window_size='1 SECOND');",
    "CREATE STREAM sink_s (k STRING KEY, a INT) WITH (kafka_topic='sink_s', partitions=1, value_format='JSON');",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path_factory.mktemp("rejections")), {"auto.offset.reset": "earliest"})
    for sql in SETUP:
        e.execute(sql)
    yield e
    e.close()


def _as(kind: str, select: str) -> str:
    if kind == "INSERT":
        return f"INSERT INTO sink_s {select};"
    return f"CREATE {kind} out AS {select};"


PERSISTENT = ["STREAM", "TABLE", "INSERT"]


@pytest.mark.parametrize("kind", ["TABLE", "STREAM"])
def test_foreign_key_joins_are_inner_or_left(engine: Engine, kind: str) -> None:
    assert _error(engine, _as(kind, "SELECT u.k, v.y FROM u RIGHT JOIN v ON u.fk = v.k")).endswith(
        "RIGHT OUTER JOIN on a foreign key is not supported")
    assert _error(engine, _as(kind, "SELECT u.k, v.y FROM u FULL OUTER JOIN v ON u.fk = v.k")).endswith(
        "Invalid join type: full-outer join not supported for foreign-key table-table join. Got U [FULL] OUTER "
        "JOIN V.")
    assert _error(engine, "SELECT u.k, v.y FROM u RIGHT JOIN v ON u.fk = v.k EMIT CHANGES;").endswith(
        "RIGHT OUTER JOIN on a foreign key is not supported")


def test_no_foreign_key_join_after_the_first_step_of_an_n_way_join(engine: Engine) -> None:
    # ksqlDB's LogicalPlanner.verifyJoin: a foreign-key join only between two data sources - the innermost join
    # may be one (tests/cases/joins/foreign-key-n-way.json), a later step may not
    sql = "CREATE TABLE out AS SELECT u.k, v.y, t.a FROM u JOIN t ON u.k = t.k JOIN v ON u.fk = v.k;"
    assert _error(engine, sql).endswith(
        "Invalid join condition: foreign-key table-table joins are not supported as part of n-way joins. "
        "Got U.FK = V.K.")
    # after an innermost foreign-key join (keyed by U_K), a step on its right table's key would re-key a table
    sql = "CREATE TABLE out AS SELECT t.k, v.y, t.a FROM u JOIN v ON u.fk = v.k LEFT JOIN t ON v.k = t.k;"
    assert _error(engine, sql).endswith(
        "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's key "
        "column U_K instead of [V_K]")


def test_no_foreign_key_join_on_windowed_tables(engine: Engine) -> None:
    assert _error(engine, "SELECT w.k, w2.n FROM w JOIN w2 ON CAST(w.n AS STRING) = w2.k EMIT CHANGES;").endswith(
        "Foreign-key table-table joins are not supported on windowed tables.")
    assert "Can not join windowed source to non-windowed source." in _error(
        engine, "SELECT u.k, w.n FROM u JOIN w ON u.fk = w.k EMIT CHANGES;")


def test_a_foreign_key_projection_holds_the_left_primary_key(engine: Engine) -> None:
    assert _error(engine, "CREATE TABLE out AS SELECT v.y, u.x FROM u JOIN v ON u.fk = v.k;") == (
        "Primary key column missing in projection. For foreign-key table-table joins, the projection must include "
        "all primary key columns from the left input table (`U`). Missing column: `K`.")
    assert _error(engine, "CREATE TABLE out AS SELECT u2.k1, v.y FROM u2 JOIN v ON u2.fk = v.k;") == (
        "Primary key column missing in projection. For foreign-key table-table joins, the projection must include "
        "all primary key columns from the left input table (`U2`). Missing column: `K2`.")
    assert _error(engine, "CREATE TABLE out AS SELECT v.y FROM u2 JOIN v ON u2.fk = v.k;") == (
        "Primary key columns missing in projection. For foreign-key table-table joins, the projection must include "
        "all primary key columns from the left input table (`U2`). Missing columns: `K1`, `K2`.")


@pytest.mark.parametrize("kind", PERSISTENT)
@pytest.mark.parametrize("window", ["TUMBLING (SIZE 1 SECOND)", "w HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND)",
                                    "SESSION (1 MINUTE)"])
def test_a_window_needs_a_group_by(engine: Engine, kind: str, window: str) -> None:
    sql = _as(kind, f"SELECT k, a FROM s WINDOW {window}")
    column = sql.index("WINDOW") + len("WINDOW") + 2
    assert _error(engine, sql) == f"Line: 1, Col: {column}: WINDOW clause requires a GROUP BY clause."


def test_a_table_aggregation_has_no_window(engine: Engine) -> None:
    assert _error(engine, "CREATE TABLE out AS SELECT a, COUNT(*) AS n FROM t WINDOW TUMBLING (SIZE 1 SECOND) "
                          "GROUP BY a;") == "Windowing not supported for table aggregations."


@pytest.mark.parametrize("table", ["w", "w2"])
@pytest.mark.parametrize("kind", ["TABLE", "STREAM"])
def test_no_persistent_query_reads_a_windowed_table(engine: Engine, table: str, kind: str) -> None:
    assert _error(engine, _as(kind, f"SELECT * FROM {table}")) == (
        "KSQL does not support persistent queries on windowed tables.")
    engine.execute(f"SELECT * FROM {table} EMIT CHANGES LIMIT 0;")


@pytest.mark.parametrize("kind", PERSISTENT)
def test_table_functions_are_not_nested(engine: Engine, kind: str) -> None:
    assert _error(engine, _as(kind, "SELECT k, EXPLODE(EXPLODE(ARRAY[arr])) AS a FROM s")) == (
        "Table functions cannot be nested: EXPLODE(EXPLODE())")


@pytest.mark.parametrize("kind", PERSISTENT)
def test_table_functions_are_not_in_case(engine: Engine, kind: str) -> None:
    assert _error(engine, _as(kind, "SELECT k, CASE WHEN a > 1 THEN EXPLODE(arr) END AS a FROM s")).startswith(
        "Table functions cannot be used in CASE: ")


@pytest.mark.parametrize("select", [
    "SELECT k, EXPLODE(arr) AS e, COUNT(*) AS n FROM s GROUP BY k",
    "SELECT EXPLODE(arr) AS e, COUNT(*) AS n FROM s",
    "SELECT k, EXPLODE(arr) AS e FROM s GROUP BY k HAVING COUNT(*) > 1",
])
def test_table_functions_are_not_aggregated(engine: Engine, select: str) -> None:
    assert _error(engine, f"CREATE TABLE out AS {select};") == "Table functions cannot be used with aggregations."
    assert _error(engine, f"{select} EMIT CHANGES;") == "Table functions cannot be used with aggregations."


@pytest.mark.parametrize("kind", ["TABLE", "STREAM"])
def test_table_functions_read_streams(engine: Engine, kind: str) -> None:
    assert _error(engine, _as(kind, "SELECT k, EXPLODE(arr) AS e FROM t")) == (
        "Table source is not supported with table functions")
    assert _error(engine, "SELECT k, EXPLODE(arr) AS e FROM t EMIT CHANGES;") == (
        "Table source is not supported with table functions")


def test_aggregation_messages(engine: Engine) -> None:
    assert _error(engine, "CREATE TABLE out AS SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING a > 1;") == (
        "Non-aggregate HAVING expression not part of GROUP BY: A\n"
        "Consider switching the HAVING clause to a WHERE clause before the GROUP BY.")
    assert _error(engine, "CREATE TABLE out AS SELECT k, COUNT(*) AS n FROM s;") == (
        "Non-aggregate SELECT expression(s) not part of GROUP BY: K\n"
        "Either add the column(s) to the GROUP BY or remove them from the SELECT.")
    assert _error(engine, "CREATE TABLE out AS SELECT a, MAX(a) AS m FROM t GROUP BY a;") == (
        "The aggregation function MAX cannot be applied to a table source, only to a stream source.")
    assert _error(engine, "CREATE TABLE out AS SELECT a, MAX(a) AS m, MIN(a) AS n FROM t GROUP BY a;") == (
        "The aggregation functions MAX and MIN cannot be applied to a table source, only to a stream source.")


NEW_PLANNER = [
    ("SELECT k, a FROM s WHERE a > 1", "New query planner does not support WHERE. Set "
                                       "ksql.new.query.planner.enabled=false."),
    ("SELECT k, COUNT(*) AS n FROM s GROUP BY k", "New query planner does not support GROUP BY. Set "
                                                  "ksql.new.query.planner.enabled=false."),
    ("SELECT * FROM s PARTITION BY a", "New query planner does not support PARTITION BY. Set "
                                       "ksql.new.query.planner.enabled=false."),
    ("SELECT s.k, t.a FROM s JOIN t ON s.k = t.k", "New query planner does not support joins. Set "
                                                   "ksql.new.query.planner.enabled=false."),
    ("SELECT k, a + 1 AS b FROM s", "New query planner only support column references, no expressions or aliases."),
    ("SELECT k, a AS b FROM s", "New query planner only support column references, no expressions or aliases."),
    ("SELECT * FROM t", "Input TABLES are not supported by the new planner"),
]


@pytest.mark.parametrize(("select", "message"), NEW_PLANNER)
def test_the_new_planner_takes_plain_projections_of_a_stream(tmp_path: Path, select: str, message: str) -> None:
    e = Engine(str(tmp_path), {"ksql.new.query.planner.enabled": "true"})
    try:
        for sql in SETUP[:2]:
            e.execute(sql)
        kind = "TABLE" if " t" in select.split("FROM")[1] or "GROUP" in select else "STREAM"
        assert _error(e, f"CREATE {kind} out AS {select};") == message
        e.execute("CREATE STREAM fine AS SELECT k, a, b FROM s;")
        e.execute("CREATE STREAM star AS SELECT * FROM s;")
    finally:
        e.close()


def test_quoted_names_with_dots_run_end_to_end(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        e.execute("CREATE STREAM `in.put` (k STRING KEY, `a.b` INT) WITH (kafka_topic='d', partitions=1, "
                  "value_format='JSON');")
        e.execute("CREATE STREAM `out.put` AS SELECT k, `a.b`, `a.b` * 2 AS `c.d` FROM `in.put` i WHERE i.`a.b` > 0;")
        e.execute("INSERT INTO `in.put` (k, `a.b`) VALUES ('x', 21);")
        e.drain()
        batch = e.log.fetch("out.put", 0, 0, 10)
        assert batch.values == [b'{"a.b":21,"c.d":42}']
    finally:
        e.close()


def test_a_table_is_not_re_keyed(engine: Engine) -> None:
    assert _error(engine, "CREATE TABLE out AS SELECT * FROM t PARTITION BY a;") == (
        "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's key "
        "column K instead of [A]")
    # a table keyed by one column names it, whatever the number of expressions (SchemaKTable.selectKey)
    assert _error(engine, "CREATE TABLE out AS SELECT * FROM t PARTITION BY a, k;") == (
        "Cannot repartition a TABLE source. If this is a join, make sure that the criteria uses the TABLE's key "
        "column K instead of [A, K]")
    assert "PARTITION BY column 'NOPE' cannot be resolved." in _error(
        engine, "CREATE TABLE out AS SELECT * FROM t PARTITION BY nope;")


def test_a_windowed_source_is_not_re_keyed(engine: Engine) -> None:
    engine.execute("CREATE STREAM ws (k STRING KEY, a INT) WITH (kafka_topic='ws', value_format='JSON', "
                   "partitions=1, window_type='SESSION');")
    assert _error(engine, "CREATE STREAM out AS SELECT * FROM ws PARTITION BY a;") == (
        "Implicit repartitioning of windowed sources is not supported. See https://github.com/confluentinc/ksql/"
        "issues/4385.")


def test_partitioning_by_the_key_keeps_it(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        for sql in SETUP[:2]:
            e.execute(sql)
        e.execute("CREATE TABLE same AS SELECT * FROM t PARTITION BY k;")
        e.execute("INSERT INTO t (k, a) VALUES ('x', 1);")
        e.drain()
        assert e.log.fetch("SAME", 0, 0, 10).keys == [b"x"]
    finally:
        e.close()


def test_emit_final_needs_suppression(tmp_path: Path) -> None:
    e = Engine(str(tmp_path), {"ksql.suppress.enabled": "false"})
    try:
        e.execute(SETUP[0])
        assert _error(e, "CREATE TABLE out AS SELECT k, COUNT(*) AS n FROM s WINDOW TUMBLING (SIZE 1 SECOND) "
                         "GROUP BY k EMIT FINAL;") == (
            "Suppression is currently disabled. You can enable it by setting ksql.suppress.enabled to true")
    finally:
        e.close()


@pytest.mark.parametrize(("query_id", "message"), [
    ("csas_mine", "Query IDs must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, CSAS_, CST_). "
                  "Got 'CSAS_MINE'."),
    ("InsertQuery_7", "Query IDs must not start with a reserved query ID prefix (INSERTQUERY_, CTAS_, CSAS_, CST_). "
                      "Got 'INSERTQUERY_7'."),
    ("my-query", "Query IDs may contain only alphanumeric characters and '_'. Got: 'MY-QUERY'"),
    ("two words", "Query IDs may contain only alphanumeric characters and '_'. Got: 'TWO WORDS'"),
])
def test_a_chosen_query_id(engine: Engine, query_id: str, message: str) -> None:
    assert _error(engine, f"INSERT INTO sink_s WITH (QUERY_ID='{query_id}') SELECT k, a FROM s;") == message
