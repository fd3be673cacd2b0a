"""Engine.execute parses a whole script before it runs any statement of it, as ksqlDB's KsqlContext.sql and
KsqlEngine.parse do (and as the server's /ksql and the shell do): a syntax error anywhere fails the script with
nothing run; what a statement's preparation refuses (WITH clause values, substituted variables, custom types)
is found in that statement's turn of the sandbox pass (``engine/script.py``: KsqlContext.sql prepares and
executes every statement on a sandbox first), so nothing of the script runs either."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlParseError

CREATE = "CREATE STREAM {name} (id INT KEY, v STRING) WITH (kafka_topic='{name}', value_format='JSON', partitions=1);"


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    yield e
    e.close()


def _streams(engine: Engine) -> set[str]:
    return {s.name for s in engine.catalog.sources() if s.kind == "STREAM"}


@pytest.mark.parametrize("bad", [
    "SELECT * FROM a WHERE id = = 1 EMIT CHANGES;",   # an expression
    "CREATE STREAM c (id INT KEY) WITH (kafka_topic='c', value_format='JSON') EMIT;",  # text after a statement
    "CREATE STREAM c (id DECIMAL(2) KEY) WITH (kafka_topic='c', value_format='JSON');",  # a type
    "SELEC 1;",  # no statement at all
])
def test_a_later_syntax_error_fails_the_script_before_anything_runs(engine: Engine, bad: str) -> None:
    script = CREATE.format(name="a") + "\n" + CREATE.format(name="b") + "\n" + bad
    with pytest.raises(KsqlParseError) as err:
        engine.execute(script)
    assert err.value.line == 3  # positions are those of the whole script
    assert not err.value.prepared
    assert _streams(engine) == set()
    assert not engine.log.topic_exists("a")


def test_a_syntax_error_after_a_define_fails_before_the_define(engine: Engine) -> None:
    with pytest.raises(KsqlParseError):
        engine.execute("DEFINE t = 'x';\nSHOW STREAMS;\nSHOW STREAMZ;")
    assert engine.variables == {}


def test_variables_stand_where_names_and_literals_may_in_the_whole_script_check(engine: Engine) -> None:
    engine.execute("DEFINE n = 'a';\nDEFINE p = '1';\n"
                   "CREATE STREAM ${n} (id INT KEY) WITH (kafka_topic='${n}', value_format='JSON', partitions=${p});\n"
                   "SELECT * FROM ${n} EMIT CHANGES LIMIT 1;")
    assert _streams(engine) == {"A"}


def test_a_variable_where_no_name_may_stand_is_a_syntax_error_of_the_whole_script(engine: Engine) -> None:
    with pytest.raises(KsqlParseError) as err:
        engine.execute("DEFINE k = 'STREAM';\n" + CREATE.format(name="a") + "\nCREATE ${k} b (id INT KEY) "
                       "WITH (kafka_topic='b', value_format='JSON', partitions=1);")
    assert (err.value.line, err.value.column) == (3, 8)
    assert _streams(engine) == set() and engine.variables == {}


def test_a_preparation_failure_waits_for_its_statement(engine: Engine) -> None:
    """ksqlDB's AST builder refuses these while it prepares the statement - in the sandbox pass, before the
    statements before it run for real: nothing runs."""
    script = CREATE.format(name="a") + "\n" + CREATE.format(name="b").replace("partitions=1", "partitions='x'")
    with pytest.raises(KsqlParseError) as err:
        engine.execute(script)
    assert err.value.prepared
    assert _streams(engine) == set()


def test_a_type_created_earlier_in_the_script_is_known_to_a_later_statement(engine: Engine) -> None:
    engine.execute("CREATE TYPE pair AS STRUCT<x INT, y INT>;\n"
                   "CREATE STREAM a (id INT KEY, p pair) WITH (kafka_topic='a', value_format='JSON', partitions=1);")
    assert _streams(engine) == {"A"}


def test_one_statement_alone_reports_its_own_error(engine: Engine) -> None:
    with pytest.raises(KsqlParseError) as err:
        engine.execute("\n\nSHOW STREAMZ;")
    assert (err.value.line, err.value.column) == (3, 6)
