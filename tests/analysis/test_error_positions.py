"""Semantic errors say where in the submitted text the culprit is, in ksqlDB's ``Line: n, Col: m:`` form.

Positions are those of the whole script (line of the statement in it, 1-based column of the name), so a
user submitting several statements at once is pointed at the right one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from statement_errors import statement_error as error

from ksqlpy.engine import Engine


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM a (k STRING KEY, x INT, y INT) WITH (kafka_topic='a', value_format='JSON', partitions=1);"
              "\nCREATE STREAM b (k STRING KEY, x INT, z INT) WITH (kafka_topic='b', value_format='JSON', "
              "partitions=1);")
    yield e
    e.close()


def test_unknown_column_in_select(engine: Engine) -> None:
    assert error(engine, "CREATE STREAM o AS SELECT k, nope FROM a;") == (
        "Line: 1, Col: 30: SELECT column 'NOPE' cannot be resolved.")


def test_unknown_column_in_where_on_a_later_line(engine: Engine) -> None:
    msg = error(engine, "CREATE STREAM o AS SELECT *\n  FROM a\n  WHERE  missing > 1;")
    assert msg.startswith("Line: 3, Col: 10: ") and "'MISSING' cannot be resolved" in msg


def test_positions_count_from_the_start_of_the_script(engine: Engine) -> None:
    msg = error(engine, "SHOW STREAMS;\nCREATE STREAM o AS SELECT a.k, x FROM a JOIN b WITHIN 1 SECOND ON a.k = b.k;")
    assert msg == ("Exception while preparing statement: Line: 2, Col: 32: Column 'X' is ambiguous. "
                   "Could be A.X or B.X.")


def test_unresolved_join_condition(engine: Engine) -> None:
    msg = error(engine, "CREATE STREAM o AS SELECT * FROM a JOIN b WITHIN 1 SECOND ON a.k = b.nope;")
    assert msg == "Line: 1, Col: 68: JOIN ON column 'B.NOPE' cannot be resolved."


def test_unknown_sources(engine: Engine) -> None:
    assert error(engine, "CREATE STREAM o AS SELECT * FROM  ghost;") == "Line: 1, Col: 35: GHOST does not exist."
    assert error(engine, "CREATE STREAM o AS SELECT * FROM a JOIN ghost WITHIN 1 SECOND ON a.k = ghost.k;") == (
        "Line: 1, Col: 41: GHOST does not exist.")
    assert error(engine, "\nINSERT INTO  ghost SELECT * FROM a;") == "Line: 2, Col: 14: Source `GHOST` does not exist."


def test_type_and_code_generation_errors_name_no_position(engine: Engine) -> None:
    """ksqlDB's ExpressionTypeManager, FilterTypeValidator and CodeGenRunner raise without a node location
    (from memory): their texts carry none, whichever statement the expression is in."""
    msg = error(engine, "CREATE STREAM o AS SELECT k,\n    UCASE(x) FROM a;")
    assert msg.startswith("Function 'ucase' does not accept parameters (INTEGER).")
    msg = error(engine, "CREATE STREAM o AS SELECT k, x FROM a WHERE x IN (1, k);")
    assert msg.startswith("Invalid Predicate: operator does not exist: INTEGER = STRING (K)")
    msg = error(engine, "CREATE STREAM o AS SELECT k, y - k FROM a;")
    assert msg.startswith("Error processing expression: (Y - K).")
    msg = error(engine, "CREATE STREAM o AS SELECT * FROM a WHERE k = 1;")
    assert msg.startswith("Error in WHERE expression: Cannot compare K (STRING) to 1 (INTEGER) with EQUAL.")


@pytest.mark.parametrize("where, text", [
    ("k = 1", "Error in WHERE expression: Cannot compare K (STRING) to 1 (INTEGER) with EQUAL.\nStatement: (K = 1)"),
    ("x + k > 1", "Error in WHERE expression: Error processing expression: (X + K). Unsupported arithmetic types. "
                  "INTEGER STRING"),
    ("x", "Type error in WHERE expression: Should evaluate to boolean but is X (INTEGER) instead."),
])
def test_one_type_error_reads_alike_in_pull_push_and_persistent_queries(engine: Engine, where: str, text: str) -> None:
    for sql in (f"SELECT * FROM a WHERE {where};", f"SELECT * FROM a WHERE {where} EMIT CHANGES;",
                f"CREATE STREAM o AS SELECT * FROM a WHERE {where};"):
        assert error(engine, sql).startswith(text), sql


def test_an_unknown_column_still_says_where_it_is_in_every_query_kind(engine: Engine) -> None:
    for sql in ("SELECT * FROM a WHERE nope = 1;", "SELECT * FROM a WHERE nope = 1 EMIT CHANGES;",
                "CREATE STREAM o AS SELECT * FROM a WHERE nope = 1;"):
        assert error(engine, sql).startswith(f"Line: 1, Col: {sql.index('nope') + 1}: WHERE column 'NOPE' cannot "
                                             "be resolved."), sql


def test_declared_column_errors_point_at_the_column(engine: Engine) -> None:
    # PARTITIONS: the topic is judged first (TopicCreateInjector), a missing one before any column
    msg = error(engine, "CREATE STREAM c (k STRING KEY,\n  v INT, ROWTIME STRING) WITH (kafka_topic='c', "
                        "value_format='JSON', partitions=1);")
    assert msg == "Line: 2, Col: 10: 'ROWTIME' is a reserved column name. You cannot use it as a name for a column."
    msg = error(engine, "CREATE STREAM c (k MAP<STRING, INT> KEY) WITH (kafka_topic='c', value_format='JSON', "
                        "partitions=1);")
    assert msg.startswith("Line: 1, Col: 18: Map keys, including types that contain maps, are not supported")


def test_join_errors_say_nothing_of_where_the_join_is(engine: Engine) -> None:
    # ksqlDB's Analyzer.visitJoinedSource, LogicalPlanner.verifyJoin and JoinNode throw plain KsqlExceptions (no
    # node location); only a column or source that cannot be resolved in the ON clause is placed
    engine.execute("CREATE TABLE t (k STRING PRIMARY KEY, w INT) WITH (kafka_topic='t', value_format='JSON', "
                   "partitions=1);")
    assert error(engine, "CREATE STREAM o AS SELECT * FROM a\n  JOIN t WITHIN 1 SECOND ON a.k = t.k;") == (
        "A window definition was provided for a Stream-Table join. These joins are not windowed. Please drop the "
        "window definition (ie. the WITHIN clause) and try to execute your join again.")
    assert error(engine, "CREATE STREAM o AS SELECT * FROM a\n  JOIN t ON a.x = t.k;") == (
        "Invalid join condition: types don't match. Got A.X{INTEGER} = T.K{STRING}.")
    assert error(engine, "CREATE STREAM o AS SELECT * FROM a\n  JOIN b WITHIN 1 SECOND ON a.k = 1;") == (
        "Invalid comparison expression '1' in join '(A.K = 1)'. Each side of the join comparision must contain "
        "references from exactly one source.")
    assert error(engine, "CREATE STREAM o AS SELECT * FROM a\n  JOIN b WITHIN 1 SECOND ON a.k = b.nope;") == (
        "Line: 2, Col: 35: JOIN ON column 'B.NOPE' cannot be resolved.")
