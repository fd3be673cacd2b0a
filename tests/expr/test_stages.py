"""The stage an expression error is found at decides how it reads, in every clause and statement kind.

ksqlDB's order: column references (analysis) -> expression typing (logical planning; WHERE and HAVING
wrapped as ``Error in WHERE expression: ...``) -> code generation (``Invalid Predicate: ...``, ``Invalid
Select: ...``, ``Invalid Group By: ...``, ``Invalid SelectKey: ...``; ``Invalid expression: ...`` for pull
queries), each stage over all clauses before the next. These tests run statements through the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from statement_errors import error as any_error

from ksqlpy.engine import Engine
from ksqlpy.log.base import ProducerRecord

SOURCES = (
    "CREATE STREAM a (k STRING KEY, x INT, s STRING, flag BOOLEAN) WITH (kafka_topic='a', value_format='JSON', "
    "partitions=1);\n"
    "CREATE TABLE t (k STRING PRIMARY KEY, x INT, n INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);\n"
    "CREATE TABLE mv AS SELECT k, x, n FROM t;"
)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute(SOURCES)
    yield e
    e.close()


def error(engine: Engine, sql: str) -> str:
    """The message of the error ``sql`` fails with, without its ``Line: n, Col: m: `` position."""
    return re.sub(r"^Line: \d+, Col: \d+: ", "", any_error(engine, sql))


COMPARE = "Cannot compare X (INTEGER) to '10' (STRING) with EQUAL."
COMPARE_WHERE = f"Error in WHERE expression: {COMPARE}\nStatement: (X = '10')"
CAST = "Cast of BOOLEAN to INTEGER is not supported."

# --------------------------------------------------------------------------- typing errors, per clause


@pytest.mark.parametrize("sql", [
    "CREATE STREAM o AS SELECT k, x FROM a WHERE x = '10';",
    "INSERT INTO a SELECT * FROM a WHERE x = '10';",
    "SELECT k, x FROM a WHERE x = '10' EMIT CHANGES;",
])
def test_where_typing_errors_name_the_clause(engine: Engine, sql: str) -> None:
    assert error(engine, sql) == COMPARE_WHERE


def test_pull_query_where_typing_errors_name_the_clause(engine: Engine) -> None:
    assert error(engine, "SELECT * FROM mv WHERE k = 'a' AND x = '10';") == COMPARE_WHERE
    assert error(engine, "SELECT * FROM mv WHERE x = NULL;") == (
        "Error in WHERE expression: Comparison with NULL not supported: INTEGER = NULL\n"
        "Use 'IS NULL' or 'IS NOT NULL' instead.\nStatement: (X = null)")


def test_having_typing_errors_name_the_clause_and_the_aggregate(engine: Engine) -> None:
    assert error(engine, "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM a GROUP BY k HAVING COUNT(*) = 'a';") == (
        "Error in HAVING expression: Cannot compare COUNT(*) (BIGINT) to 'a' (STRING) with EQUAL.\n"
        "Statement: (COUNT(*) = 'a')")


@pytest.mark.parametrize("sql", [
    "CREATE STREAM o AS SELECT k, x = '10' AS b FROM a;",
    "SELECT k, x = '10' AS b FROM a EMIT CHANGES;",
    "CREATE TABLE o AS SELECT x = '10' AS g, COUNT(*) AS c FROM a GROUP BY (x = '10');",
    "CREATE STREAM o AS SELECT x = '10' AS p, k FROM a PARTITION BY (x = '10');",
])
def test_other_clauses_report_the_cause_as_it_is(engine: Engine, sql: str) -> None:
    assert error(engine, sql) == COMPARE


def test_join_on_typing_errors(engine: Engine) -> None:
    engine.execute("CREATE STREAM b (k STRING KEY, y INT) WITH (kafka_topic='b', value_format='JSON', partitions=1);")
    msg = error(engine, "CREATE STREAM o AS SELECT * FROM a JOIN b WITHIN 1 SECOND ON a.k = UCASE(b.y);")
    assert msg.startswith("Function 'ucase' does not accept parameters (INTEGER).")


@pytest.mark.parametrize("clause, sql", [
    ("WHERE", "CREATE STREAM o AS SELECT k, x FROM a WHERE x + 1;"),
    ("WHERE", "SELECT k FROM a WHERE x + 1 EMIT CHANGES;"),
    ("HAVING", "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM a GROUP BY k HAVING COUNT(*);"),
])
def test_filters_must_be_boolean(engine: Engine, clause: str, sql: str) -> None:
    shown = "(X + 1) (INTEGER)" if clause == "WHERE" else "COUNT(*) (BIGINT)"
    assert error(engine, sql) == f"Type error in {clause} expression: Should evaluate to boolean but is {shown} instead."


def test_and_or_are_typed_as_their_right_operand(engine: Engine) -> None:
    # ksqlDB's type checker gives AND/OR the type of their right operand; the left one is only checked
    # when code is generated
    assert error(engine, "CREATE STREAM o AS SELECT k, x FROM a WHERE flag AND x;") == (
        "Type error in WHERE expression: Should evaluate to boolean but is (FLAG AND X) (INTEGER) instead.")
    assert error(engine, "CREATE STREAM o AS SELECT k, x FROM a WHERE x AND flag;") == (
        "Invalid Predicate: Logical operand must be BOOLEAN: X is INTEGER.")


# --------------------------------------------------------------------------- code-generation errors


@pytest.mark.parametrize("sql, context", [
    ("CREATE STREAM o AS SELECT k, x FROM a WHERE CAST(flag AS INT) = 1;", "Predicate"),
    ("CREATE STREAM o AS SELECT k, CAST(flag AS INT) AS i FROM a;", "Select"),
    ("SELECT k, CAST(flag AS INT) AS i FROM a EMIT CHANGES;", "Select"),
    ("CREATE TABLE o AS SELECT CAST(flag AS INT) AS g, COUNT(*) AS c FROM a GROUP BY CAST(flag AS INT);",
     "Group By"),
    ("CREATE STREAM o AS SELECT CAST(flag AS INT) AS p, x FROM a PARTITION BY CAST(flag AS INT);", "SelectKey"),
    ("SELECT * FROM mv WHERE k = 'a' AND CAST(CAST(x AS STRING) AS BOOLEAN) = CAST(n AS BOOLEAN);", "expression"),
    ("CREATE STREAM o AS SELECT k, EXPLODE(CAST(flag AS ARRAY<INT>)) AS e FROM a;", "Table function"),
])
def test_code_generation_errors_name_the_context(engine: Engine, sql: str, context: str) -> None:
    assert error(engine, sql).startswith(f"Invalid {context}: Cast of ")


@pytest.mark.parametrize("sql, message", [
    ("CREATE STREAM o AS SELECT k, x FROM a WHERE x IN (1, 'one');",
     'Invalid Predicate: invalid input syntax for type INTEGER: "one".'),
    ("CREATE STREAM o AS SELECT k, x FROM a WHERE x IN (s);",
     "Invalid Predicate: operator does not exist: INTEGER = STRING (S)\nHint: You might need to add explicit type "
     "casts."),
    ("CREATE STREAM o AS SELECT k, x FROM a WHERE s BETWEEN 1 AND 2;",
     "Invalid Predicate: Cannot compare S (STRING) to 1 (INTEGER) with GREATER_THAN_OR_EQUAL."),
    ("CREATE STREAM o AS SELECT k, x LIKE 'a%' AS l FROM a;",
     "Invalid Select: The column type for Like condition must be VARCHAR. The column type is INTEGER."),
    ("SELECT * FROM mv WHERE k = 'a' AND x BETWEEN 'a' AND 'b';",
     "Invalid expression: Cannot compare X (INTEGER) to 'a' (STRING) with GREATER_THAN_OR_EQUAL."),
    ("CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM a GROUP BY k HAVING COUNT(*) IN ('x');",
     'Invalid Predicate: invalid input syntax for type BIGINT: "x".'),
])
def test_list_coercion_between_and_like_are_code_generation_rules(engine: Engine, sql: str, message: str) -> None:
    assert error(engine, sql) == message


def test_typing_errors_come_before_code_generation_errors_of_any_clause(engine: Engine) -> None:
    # the WHERE's unsupported cast is found after the SELECT list is typed
    assert error(engine, "CREATE STREAM o AS SELECT k, x = '10' AS b FROM a WHERE CAST(flag AS INT) = 1;") == COMPARE
    assert error(engine, "CREATE STREAM o AS SELECT k, CAST(flag AS INT) AS i FROM a WHERE x = '10';") == COMPARE_WHERE
    # and a typing error inside IN is found by the code generator too
    assert error(engine, "CREATE STREAM o AS SELECT k, x FROM a WHERE x IN (UCASE(x));").startswith(
        "Invalid Predicate: Function 'ucase' does not accept parameters (INTEGER).")


def test_unknown_columns_come_before_any_typing(engine: Engine) -> None:
    assert error(engine, "CREATE STREAM o AS SELECT k, nope FROM a WHERE x = '10';") == (
        "SELECT column 'NOPE' cannot be resolved.")
    assert error(engine, "CREATE TABLE o AS SELECT x, COUNT(*) AS c FROM a WHERE x = '10' GROUP BY nope;") == (
        "GROUP BY column 'NOPE' cannot be resolved.")


# --------------------------------------------------------------------------- declared types and values


@pytest.mark.parametrize("sql", [
    "CREATE STREAM d (k STRING KEY, v DECIMAL(2, 3)) WITH (kafka_topic='d', value_format='JSON', partitions=1);",
    "CREATE TYPE dt AS DECIMAL(2, 3);",
    "CREATE STREAM o AS SELECT k, CAST(x AS DECIMAL(2, 3)) AS v FROM a;",
    "SELECT k, CAST(x AS DECIMAL(2, 3)) FROM a EMIT CHANGES;",
])
def test_decimal_precision_must_cover_the_scale(engine: Engine, sql: str) -> None:
    assert error(engine, sql) == "Failed to prepare statement: DECIMAL precision must be >= scale: DECIMAL(2,3)"


def test_decimal_precision_and_scale_bounds(engine: Engine) -> None:
    assert error(engine, "SELECT CAST(x AS DECIMAL(0, 0)) FROM a EMIT CHANGES;") == (
        "Failed to prepare statement: DECIMAL precision must be >= 1: DECIMAL(0,0)")


def run_values(engine: Engine, select: str, value: dict[str, Any]) -> tuple:
    engine.execute(f"CREATE STREAM o AS SELECT k, {select} FROM a;")
    import orjson

    engine.log.produce(ProducerRecord("a", b"r", orjson.dumps(value), 0))
    engine.drain(10)
    src = engine.catalog.source("O")
    assert src is not None
    batch = engine.log.fetch(src.topic, 0, 0, 10)
    return tuple(engine.value_serde(src).deserialize(batch.values[0]))


def test_integer_arithmetic_and_abs_wrap_as_java_does(engine: Engine) -> None:
    got = run_values(engine, "x + 1 AS a1, x * 2 AS a2, -x AS a3, ABS(x) AS a4, x / -1 AS a5, "
                             "CAST(x AS BIGINT) * 4294967296 * 4294967296 AS a6, ABS(CAST(x AS BIGINT) - 1) AS a7",
                     {"X": -2147483648})
    assert got == (-2147483647, 0, -2147483648, -2147483648, -2147483648, 0, 2147483649)


# --------------------------------------------------------------------------- each rule over every clause

MATRIX_SOURCES = (
    "CREATE TABLE tt (k STRING PRIMARY KEY, x INT, s STRING, flag BOOLEAN) WITH (kafka_topic='tt', "
    "value_format='JSON', partitions=1);\nCREATE TABLE mt AS SELECT * FROM tt;"
)
# (clause name for filters or None, statement template with {e} a BOOLEAN expression, code-generation context)
CLAUSES = {
    "persistent WHERE": ("WHERE", "CREATE STREAM o AS SELECT k, x FROM a WHERE {e};", "Predicate"),
    "push WHERE": ("WHERE", "SELECT k, x FROM a WHERE {e} EMIT CHANGES;", "Predicate"),
    "pull WHERE": ("WHERE", "SELECT * FROM mt WHERE k = 'a' AND {e};", "expression"),
    "HAVING": ("HAVING", "CREATE TABLE o AS SELECT k, x, s, flag, COUNT(*) AS c FROM a GROUP BY k, x, s, flag "
                         "HAVING {e};", "Predicate"),
    "persistent SELECT": (None, "CREATE STREAM o AS SELECT k, ({e}) AS b FROM a;", "Select"),
    "push SELECT": (None, "SELECT k, ({e}) AS b FROM a EMIT CHANGES;", "Select"),
    "pull SELECT": (None, "SELECT k, ({e}) AS b FROM mt WHERE k = 'a';", "expression"),
    "GROUP BY": (None, "CREATE TABLE o AS SELECT ({e}) AS g, COUNT(*) AS c FROM a GROUP BY ({e});", "Group By"),
    "PARTITION BY": (None, "CREATE STREAM o AS SELECT ({e}) AS p, x FROM a PARTITION BY ({e});", "SelectKey"),
}
# typing rules: (expression, cause, the expression ksqlDB names after "Statement:" when a filter wraps it)
TYPING_RULES = {
    "comparison": ("x = '10'", "Cannot compare X (INTEGER) to '10' (STRING) with EQUAL.", "(X = '10')"),
    "null comparison": ("x = NULL", "Comparison with NULL not supported: INTEGER = NULL\n"
                                    "Use 'IS NULL' or 'IS NOT NULL' instead.", "(X = null)"),
    "case": ("(CASE WHEN flag THEN NULL END) IS NULL", "Invalid Case expression. All case branches have NULL type",
             None),
    "function": ("UCASE(x) = 'A'", "Function 'ucase' does not accept parameters (INTEGER).", None),
    "array": ("ARRAY[1, 'a'][1] = 1", 'invalid input syntax for type INTEGER: "a".', None),
    "struct": ("x->f = 1", "Expected STRUCT type, got: INTEGER", None),
}
CODEGEN_RULES = {
    "cast": ("CAST(flag AS INT) = 1", "Cast of BOOLEAN to INTEGER is not supported."),
    "in list": ("x IN (1, 'one')", 'invalid input syntax for type INTEGER: "one".'),
    "between": ("s BETWEEN 1 AND 2", "Cannot compare S (STRING) to 1 (INTEGER) with GREATER_THAN_OR_EQUAL."),
    "between boolean": ("flag BETWEEN false AND true", "Unexpected boolean comparison: >=."),
    "like": ("x LIKE 'a%'", "The column type for Like condition must be VARCHAR. The column type is INTEGER."),
    "logic": ("NOT s", "Logical operand must be BOOLEAN: S is STRING."),
}


@pytest.mark.parametrize("rule", TYPING_RULES)
@pytest.mark.parametrize("clause", CLAUSES)
def test_typing_rules_in_every_clause(engine: Engine, clause: str, rule: str) -> None:
    engine.execute(MATRIX_SOURCES)
    filter_name, template, _ = CLAUSES[clause]
    expr, cause, statement = TYPING_RULES[rule]
    expected = cause
    if filter_name is not None:
        expected = f"Error in {filter_name} expression: {cause}" + (f"\nStatement: {statement}" if statement else "")
    assert error(engine, template.format(e=expr)).startswith(expected)


@pytest.mark.parametrize("rule", CODEGEN_RULES)
@pytest.mark.parametrize("clause", CLAUSES)
def test_code_generation_rules_in_every_clause(engine: Engine, clause: str, rule: str) -> None:
    engine.execute(MATRIX_SOURCES)
    _, template, context = CLAUSES[clause]
    expr, cause = CODEGEN_RULES[rule]
    assert error(engine, template.format(e=expr)) == f"Invalid {context}: {cause}"


def test_a_null_boolean_makes_logic_null_for_the_record(engine: Engine) -> None:
    # Java's &&, ||, ! and CASE unbox their Boolean: a NULL one fails the expression, which is NULL for the
    # record; FALSE AND NULL short-circuits first
    got = run_values(engine, "flag AND true AS a, NOT flag AS b, CASE WHEN flag THEN 1 ELSE 0 END AS c, "
                             "false AND flag AS d, flag IS NULL AS e", {"X": 1})
    assert got == (None, None, None, False, True)


@pytest.mark.parametrize("select", ["flag AND NULL", "flag OR NULL", "flag AND (flag OR NULL)"])
def test_a_logical_operator_with_a_null_right_operand_has_no_type(engine: Engine, select: str) -> None:
    """AND/OR are typed as their right operand: a bare NULL there leaves the projection without a type."""
    assert error(engine, f"CREATE STREAM o AS SELECT k, {select} AS r FROM a;") == (
        "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR).")
    assert error(engine, f"CREATE STREAM o AS SELECT k, ({select}) = true AS r FROM a;").startswith(
        "Comparison with NULL not supported: NULL = BOOLEAN")


def test_a_logical_operator_with_a_typed_right_operand_is_that_type(engine: Engine) -> None:
    engine.execute("CREATE STREAM o AS SELECT k, CAST(NULL AS BOOLEAN) AND flag AS r1, "
                   "flag OR CAST(NULL AS BOOLEAN) AS r2 FROM a;")
    assert error(engine, "CREATE STREAM p AS SELECT k, x FROM a WHERE flag AND x;") == (
        "Type error in WHERE expression: Should evaluate to boolean but is (FLAG AND X) (INTEGER) instead.")
