"""``Engine.execute`` of a script: every statement prepared and checked against one sandbox (which keeps the
effects of the statements before it) before any runs - ksqlDB's KsqlContext.sql - so a failing statement
anywhere runs none; the same check holds each front door to ``ksql.query.persistent.active.limit``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError

LIMIT_ERROR = ("Not executing query(ies) as it would cause the number of active, persistent queries to exceed the "
               "configured limit. Use the TERMINATE command to terminate existing queries, or increase the "
               "'ksql.query.persistent.active.limit' setting via the 'ksql-server.properties' file. Current "
               "persistent query count: {count}. Configured limit: {limit}.")
A = "CREATE STREAM a (id INT KEY, v INT) WITH (kafka_topic='a', partitions=1, value_format='JSON');"


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    yield e
    e.close()


def _state(engine: Engine) -> tuple[list[str], list[str], int, list[str]]:
    return (sorted(s.name for s in engine.catalog.sources()), sorted(engine.queries), len(engine.transient),
            sorted(engine.catalog.types()))


def _refused(engine: Engine, script: str) -> str:
    before = _state(engine)
    topics = {t.name for t in engine.log.list_topics()}
    with pytest.raises(KsqlError) as err:
        engine.execute(script)
    assert _state(engine) == before, "nothing of a refused script may run"
    assert {t.name for t in engine.log.list_topics()} == topics
    return err.value.message


@pytest.mark.parametrize(("last", "message"), [
    ("SELECT * FROM nope EMIT CHANGES;", "NOPE does not exist."),
    ("SELECT * FROM nope;", "NOPE does not exist."),
    ("SELECT * FROM b WHERE x > 1 EMIT CHANGES;", "cannot be resolved"),
    ("SELECT id, COUNT(*) FROM b GROUP BY id;", "Pull queries don't support GROUP BY clauses."),
    ("CREATE STREAM c AS SELECT * FROM b WHERE x > 1;", "WHERE column 'X' cannot be resolved."),
    ("CREATE TABLE c AS SELECT * FROM b;", "Invalid result type. Your SELECT query produces a STREAM."),
    ("INSERT INTO a SELECT id, v, v AS w FROM b;", "Incompatible schema between results and sink."),
    ("INSERT INTO a (id, v) VALUES (1, 'x');", "Expected type INTEGER for field `V` but got STRING(x)"),
    ("DROP STREAM nope;", "Stream NOPE does not exist."),
    ("DROP STREAM a;", "Cannot drop A"),
    ("TERMINATE nope;", "Unknown queryId: NOPE"),
    ("CREATE STREAM a (id INT KEY) WITH (kafka_topic='a', value_format='JSON');", "already exists"),
])
def test_a_failing_statement_anywhere_runs_none(engine: Engine, last: str, message: str) -> None:
    # the later statements see what the earlier ones would create: B, its query, a type
    script = (f"{A}\nCREATE TYPE pair AS STRUCT<x INT>;\nCREATE STREAM b AS SELECT * FROM a;\n"
              f"INSERT INTO a (id, v) VALUES (1, 2);\n{last}")
    assert message in _refused(engine, script)
    assert engine.log.partition_count("a") is None


@pytest.mark.parametrize(("last", "message"), [
    ("DESCRIBE nope;", "Could not find STREAM/TABLE 'NOPE' in the Metastore"),
    ("DESCRIBE nope EXTENDED;", "Could not find STREAM/TABLE 'NOPE' in the Metastore"),
    ("EXPLAIN nope;", "NOPE"),
])
def test_statements_ksqldb_does_not_validate_fail_when_they_run(engine: Engine, last: str, message: str) -> None:
    """SHOW/LIST, DESCRIBE and EXPLAIN are NO_VALIDATION in ksqlDB's CustomValidators (db611a23): the check
    of the whole script passes them, so the statements before one run and its failure comes when it runs."""
    with pytest.raises(KsqlError) as err:
        engine.execute(f"{A}\nCREATE STREAM b AS SELECT * FROM a;\n{last}")
    assert message in err.value.message
    assert {"A", "B"} <= {s.name for s in engine.catalog.sources()}


def test_a_script_that_passes_runs_whole_and_later_statements_see_earlier_ones(engine: Engine) -> None:
    results = engine.execute(
        "DEFINE topic = 'a';\n"
        "CREATE STREAM a (id INT KEY, v INT) WITH (kafka_topic='${topic}', partitions=1, value_format='JSON');\n"
        "CREATE TYPE pair AS STRUCT<x INT>;\n"
        "CREATE STREAM p (id INT KEY, q pair) WITH (kafka_topic='p', partitions=1, value_format='JSON');\n"
        "CREATE STREAM b AS SELECT * FROM a;\n"
        "CREATE TABLE t AS SELECT id, COUNT(*) AS n FROM b GROUP BY id;\n"
        "TERMINATE CTAS_T_1;\n"
        "DROP TABLE t;\n"
        "INSERT INTO a (id, v) VALUES (1, 2);\n"
        "SELECT * FROM b EMIT CHANGES;\n"
        "UNDEFINE topic;\n")
    assert [r.message for r in results][1:8] == [
        "Stream created", "Registered custom type with name 'PAIR' and SQL type STRUCT<`X` INTEGER>",
        "Stream created", "Created query with ID CSAS_B_0", "Created query with ID CTAS_T_1", "Query terminated.",
        "Source `T` (topic: T) was dropped."]
    assert _state(engine)[:3] == (["A", "B", "P"], ["CSAS_B_0"], 1)
    assert results[-2].kind == "push"


def test_set_and_variables_of_a_script_reach_the_statements_after_them(engine: Engine) -> None:
    engine.execute(A)
    # a SET in the script is in force for the sandbox's check of the statements after it, as when they run
    message = _refused(engine, "SET 'ksql.query.pull.table.scan.enabled'='false';\n"
                               "CREATE TABLE t AS SELECT id, COUNT(*) AS n FROM a GROUP BY id;\n"
                               "SELECT * FROM t;")
    assert "table scan" in message.lower() or "scan" in message.lower()
    assert _refused(engine, "DEFINE s = 'nope';\nCREATE STREAM b AS SELECT * FROM a;\n"
                            "SELECT * FROM ${s} EMIT CHANGES;").endswith("NOPE does not exist.")
    # a variable a script UNDEFINEs is undefined for the statements after it: refused while preparing them
    engine.execute("DEFINE s = 'a';")
    assert "'${s}' is not defined" in _refused(engine, "CREATE STREAM b AS SELECT * FROM a;\nUNDEFINE s;\n"
                                                       "SELECT * FROM ${s} EMIT CHANGES;")
    # a type a script drops is gone for the statements after it
    assert "PAIR" in _refused(engine, "CREATE TYPE pair AS STRUCT<x INT>;\nDROP TYPE pair;\n"
                                      "CREATE STREAM q (id INT KEY, p pair) WITH (kafka_topic='q', partitions=1, "
                                      "value_format='JSON');").upper()


@pytest.mark.parametrize("kind", ["CSAS", "CTAS", "INSERT"])
def test_the_active_query_limit_holds_for_the_engine(tmp_path: Path, kind: str) -> None:
    engine = Engine(str(tmp_path), {"ksql.query.persistent.active.limit": "2"})
    try:
        engine.execute(A)
        engine.execute("CREATE STREAM b AS SELECT * FROM a;")
        engine.execute("CREATE TABLE t AS SELECT id, COUNT(*) AS n FROM a GROUP BY id;")
        third = {"CSAS": "CREATE STREAM c AS SELECT * FROM a;",
                 "CTAS": "CREATE TABLE u AS SELECT id, SUM(v) AS s FROM a GROUP BY id;",
                 "INSERT": "INSERT INTO b SELECT * FROM a;"}[kind]
        assert _refused(engine, third) == LIMIT_ERROR.format(count=3, limit=2)
        # a script's earlier statements do not run either
        assert _refused(engine, f"CREATE STREAM s2 (id INT KEY, v INT) WITH (kafka_topic='s2', partitions=1, "
                                f"value_format='JSON');\n{third}") == LIMIT_ERROR.format(count=3, limit=2)
        # replacing a query starts none; a TERMINATE before it in the script makes room
        engine.execute("CREATE OR REPLACE STREAM b AS SELECT * FROM a WHERE v > 0;")
        assert sorted(engine.queries) == ["CSAS_B_0", "CTAS_T_1"]
        engine.execute(f"TERMINATE CSAS_B_0;\n{third}")
        assert len(engine.queries) == 2
        # a session cannot raise the server's limit
        assert _refused(engine, "SET 'ksql.query.persistent.active.limit'='10';\nCREATE STREAM d AS SELECT * FROM a;"
                        ) == "Cannot override property 'ksql.query.persistent.active.limit'"
        assert _refused(engine, "CREATE STREAM d AS SELECT * FROM a;") == LIMIT_ERROR.format(count=3, limit=2)
    finally:
        engine.close()


def test_a_limit_of_zero_refuses_every_persistent_query(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path), {"ksql.query.persistent.active.limit": "0"})
    try:
        engine.execute(A)
        assert _refused(engine, "CREATE STREAM b AS SELECT * FROM a;") == LIMIT_ERROR.format(count=1, limit=0)
        engine.execute("SELECT * FROM a EMIT CHANGES;")  # a push query is not persistent
    finally:
        engine.close()
