"""Unary ``+``: ksqlDB keeps it (an ArithmeticUnaryExpression with sign PLUS) instead of dropping it.

Its rule, over its whole scope: the type is the operand's (every numeric type, DECIMAL's precision and scale
kept); a non-numeric operand is refused by code generation, as unary minus is; it prints ``+x`` in EXPLAIN,
DESCRIBE and messages; a select item written ``+col`` is an expression (``KSQL_COL_n``), not the column; a
NULL operand fails the expression (Java unboxing); and it works in every clause.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from ksqlpy import types as T
from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions import builtin_registry
from ksqlpy.grammar import parse_expression

REGISTRY = builtin_registry()
NUMERIC = {"I": T.INTEGER, "BI": T.BIGINT, "DBL": T.DOUBLE, "DEC": T.Decimal(5, 3)}
OTHER = {"S": T.STRING, "FLAG": T.BOOLEAN, "DT": T.DATE, "TM": T.TIME, "TS": T.TIMESTAMP, "BYT": T.BYTES,
         "ARR": T.Array(T.INTEGER), "M": T.Map(T.STRING, T.INTEGER), "ST": T.Struct((("F", T.INTEGER),))}
SCOPE = Scope.of(list({**NUMERIC, **OTHER}.items()))


def bound(text: str) -> B.Expr:
    return bind(parse_expression(text), SCOPE, BindContext(REGISTRY))


@pytest.mark.parametrize(("col", "sql_type"), NUMERIC.items())
def test_the_type_is_the_operands_for_every_numeric_type(col: str, sql_type: T.SqlType) -> None:
    e = bound(f"+{col}")
    assert isinstance(e, B.UnaryPlus)
    assert e.type == sql_type
    assert str(e) == f"+{col}"


@pytest.mark.parametrize(("text", "sql_type", "printed"), [
    ("+1", T.INTEGER, "+1"),
    ("+3000000000", T.BIGINT, "+3000000000"),
    ("+1.5", T.Decimal(2, 1), "+1.5"),
    ("+1e3", T.DOUBLE, "+1000.0"),
    ("+-2", T.INTEGER, "+-2"),
    ("-+I", T.INTEGER, "-+I"),
    ("+(I + 1)", T.INTEGER, "+(I + 1)"),
    ("+DEC * 2", T.Decimal(16, 3), "(+DEC * 2)"),
])
def test_literals_and_nesting_keep_the_sign(text: str, sql_type: T.SqlType, printed: str) -> None:
    e = bound(text)
    assert e.type == sql_type
    assert str(e) == printed


@pytest.mark.parametrize("col", OTHER)
def test_a_non_numeric_operand_is_refused_as_unary_minus_is(col: str) -> None:
    for sign in "+-":
        with pytest.raises(KsqlError) as info:
            bound(f"{sign}{col}")
        assert info.value.message.endswith(f"Unsupported arithmetic: {sign}{col} ({OTHER[col]})")


# --------------------------------------------------------------------------- end to end, every clause


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM s (k INT KEY, a INT, b BIGINT, d DOUBLE, m DECIMAL(4, 2), c STRING) "
              "WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


def _rows(engine: Engine, topic: str) -> list[dict]:
    return [orjson.loads(v) for v in engine.log.fetch(topic, 0, 0, 100).values if v is not None]


def test_select_items_are_expressions_named_ksql_col_and_printed_with_the_sign(engine: Engine) -> None:
    engine.execute("CREATE STREAM o AS SELECT k, +a, +b, +d, +m, +1, -a FROM s WHERE +a > 0;")
    [desc] = engine.execute("DESCRIBE o;")
    fields = [(f["name"], f["schema"]["type"]) for f in desc.data["fields"]]
    assert fields == [("K", "INTEGER"), ("KSQL_COL_0", "INTEGER"), ("KSQL_COL_1", "BIGINT"),
                      ("KSQL_COL_2", "DOUBLE"), ("KSQL_COL_3", "DECIMAL"), ("KSQL_COL_4", "INTEGER"),
                      ("KSQL_COL_5", "INTEGER")]
    plan = engine.execute("EXPLAIN CSAS_O_0;")[0].data["executionPlan"]
    assert "Value: [+A AS KSQL_COL_0, +B AS KSQL_COL_1, +D AS KSQL_COL_2, +M AS KSQL_COL_3, +1 AS KSQL_COL_4, " \
           "-A AS KSQL_COL_5]" in plan
    assert "Predicate: (+A > 0)" in plan
    engine.execute("INSERT INTO s (k, a, b, d, m, c) VALUES (+1, +2, +3, +4.5, +1.25, 'x');")
    engine.execute("INSERT INTO s (k, a, b, d, m, c) VALUES (2, -2, -3, -4.5, -1.25, 'y');")
    engine.drain()
    assert _rows(engine, "O") == [{"KSQL_COL_0": 2, "KSQL_COL_1": 3, "KSQL_COL_2": 4.5, "KSQL_COL_3": 1.25,
                                   "KSQL_COL_4": 1, "KSQL_COL_5": -2}]


def test_group_by_having_and_partition_by(engine: Engine) -> None:
    engine.execute("CREATE TABLE t AS SELECT +a AS g, COUNT(*) AS n FROM s GROUP BY +a HAVING +COUNT(*) > 1;")
    engine.execute("CREATE STREAM p AS SELECT +b AS pk, a FROM s PARTITION BY +b;")
    for i, (a, b) in enumerate([(1, 10), (1, 11), (2, 12)]):
        engine.execute(f"INSERT INTO s (k, a, b) VALUES ({i}, {a}, {b});")
    engine.drain()
    assert _rows(engine, "T") == [{"N": 2}]
    assert [int.from_bytes(k, "big", signed=True) for k in engine.log.fetch("P", 0, 0, 100).keys] == [10, 11, 12]


def test_a_null_operand_fails_the_expression_as_unary_minus_does(engine: Engine) -> None:
    engine.execute("CREATE STREAM o AS SELECT k, +a AS x, -a AS y, COALESCE(+a, 0) AS z FROM s;")
    engine.execute("CREATE STREAM w AS SELECT k, c FROM s WHERE +a IS NULL;")
    engine.execute("INSERT INTO s (k, a) VALUES (1, NULL);")
    engine.drain()
    assert _rows(engine, "O") == [{"X": None, "Y": None, "Z": None}]
    assert _rows(engine, "W") == []
    logged = sorted(e["message"]["recordProcessingError"]["errorMessage"] for e in engine.plog.entries)
    assert logged == ["Error computing expression +A for column X with index 0",
                      "Error computing expression -A for column Y with index 1",
                      "Error evaluating predicate (+A IS NULL)",
                      "Error processing COALESCE"]  # a failing argument fails the call, as for -A


@pytest.mark.parametrize("clause", ["SELECT +c FROM s EMIT CHANGES;", "SELECT k FROM s WHERE +c = 'x' EMIT CHANGES;"])
def test_non_numeric_operand_is_a_code_generation_error_in_each_clause(engine: Engine, clause: str) -> None:
    with pytest.raises(KsqlError) as info:
        engine.execute(clause)
    prefix = "Invalid Select" if "WHERE" not in clause else "Invalid Predicate"
    assert f"{prefix}: Unsupported arithmetic: +C (STRING)" in info.value.message
