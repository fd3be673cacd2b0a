"""Deep and long expressions either run (with the values they should have) or are refused with the nesting
limit named - never a Python error: operator chains, nested parentheses, CASE, function calls, AND/OR,
in every clause that takes an expression, in persistent, push and pull queries and INSERT VALUES."""

from __future__ import annotations

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import parse
from ksqlpy.grammar.limits import MAX_NESTING, StatementTooLarge


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path_factory.mktemp("deep")), {"auto.offset.reset": "earliest",
                                                      "ksql.logging.processing.stream.auto.create": "false"})
    e.execute("CREATE STREAM S (ID INT KEY, N INT, D DOUBLE, B BOOLEAN, T STRING) "
              "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    e.execute("INSERT INTO S (ID, N, D, B, T) VALUES (1, 5, 1.5, true, 'x');")
    e.execute("INSERT INTO S (ID, N, D, B, T) VALUES (2, 2147483647, 0.5, false, 'y');")
    yield e
    e.close()


_names = iter(range(10_000))


def run_one(engine: Engine, select: str, where: str = "") -> list[dict]:
    name = f"DEEP{next(_names)}"
    engine.execute(f"CREATE STREAM {name} AS SELECT ID, {select} AS X FROM S {where};")
    engine.drain()
    batch = engine.log.fetch(name, 0, 0, 100)
    return [orjson.loads(v)["X"] for v in batch.values]


@pytest.mark.parametrize("terms", [100, 1000, MAX_NESTING - 10])
def test_long_integer_chain_runs_with_java_wrapping(engine: Engine, terms: int) -> None:
    # INT + INT wraps at every step in Java; the sum of the steps wraps the same way
    expected = [5 + terms, ((2147483647 + terms + 2**31) % 2**32) - 2**31]
    assert run_one(engine, "N" + "+1" * terms) == expected


def test_long_string_concatenation_runs(engine: Engine) -> None:
    assert run_one(engine, " + ".join(["T"] * 500)) == ["x" * 500, "y" * 500]


@pytest.mark.parametrize("depth", [90, 200, 1000])
def test_nested_parentheses_run(engine: Engine, depth: int) -> None:
    assert run_one(engine, "(" * depth + "N * 2" + ")" * depth) == [10, -2]


def test_deep_case_runs(engine: Engine) -> None:
    depth = 300
    sql = "CASE WHEN B THEN 1 ELSE " * depth + "0" + " END" * depth
    assert run_one(engine, sql) == [1, 0]


def test_case_with_many_branches_runs(engine: Engine) -> None:
    whens = " ".join(f"WHEN N = {i} THEN {i * 10}" for i in range(1000))
    assert run_one(engine, f"CASE {whens} ELSE -1 END") == [50, -1]


@pytest.mark.parametrize("depth", [200, 900])
def test_deep_function_nesting_runs(engine: Engine, depth: int) -> None:
    assert run_one(engine, "ABS(" * depth + "D - 3" + ")" * depth) == [1.5, 2.5]


@pytest.mark.parametrize("op", ["AND", "OR"])
def test_long_boolean_chain_in_where_runs(engine: Engine, op: str) -> None:
    chain = f" {op} ".join(["N > 3"] * 1500)
    assert run_one(engine, "N", f"WHERE {chain}") == [5, 2147483647]


def test_deep_expression_in_a_push_query_and_insert_values(engine: Engine) -> None:
    engine.execute("INSERT INTO S (ID, N, D, B, T) VALUES (3, " + "1+" * 800 + "1, 0.0, true, 'z');")
    [res] = engine.execute("SELECT ID, N" + "-1" * 800 + " AS X FROM S WHERE ID = 3 EMIT CHANGES LIMIT 1;")
    query = res.data
    engine.drain()
    query.poll()
    assert query.get(timeout=30) == (3, 1)


@pytest.mark.parametrize("sql", [
    "SELECT ID, N" + "+1" * (MAX_NESTING + 5) + " AS X FROM S EMIT CHANGES;",
    "SELECT ID, " + "(" * (MAX_NESTING + 5) + "N" + ")" * (MAX_NESTING + 5) + " AS X FROM S EMIT CHANGES;",
    "SELECT ID, " + "ABS(" * 5000 + "N" + ")" * 5000 + " AS X FROM S EMIT CHANGES;",
    "SELECT ID, " + "CASE WHEN B THEN 1 ELSE " * 5000 + "0" + " END" * 5000 + " AS X FROM S EMIT CHANGES;",
    "SELECT ID FROM S WHERE " + " AND ".join(["B"] * 10_000) + " EMIT CHANGES;",
    "SELECT ID FROM S WHERE " + "NOT " * 20_000 + "B EMIT CHANGES;",
    "SELECT ID, " + "- " * 20_000 + "N AS X FROM S EMIT CHANGES;",
    "INSERT INTO S (ID, N) VALUES (9, " + "1+" * 10_000 + "1);",
    "SELECT ID, ARRAY" + "[" * 3000 + "1" + "]" * 3000 + " AS X FROM S EMIT CHANGES;",
], ids=["plus", "parentheses", "calls", "case", "and", "not", "negation", "insert-values", "brackets"])
def test_past_the_limit_is_a_statement_error_naming_it(engine: Engine, sql: str) -> None:
    with pytest.raises(KsqlError) as caught:
        engine.execute(sql)
    assert isinstance(caught.value, StatementTooLarge), caught.value
    assert "Statement is too large to parse" in str(caught.value)
    assert f"The limit is {MAX_NESTING} levels" in str(caught.value)


def test_the_parser_alone_refuses_deep_text() -> None:
    with pytest.raises(StatementTooLarge):
        parse("SELECT " + "(" * 100_000 + "1" + ")" * 100_000 + " FROM S;")
