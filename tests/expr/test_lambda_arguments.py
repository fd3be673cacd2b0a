"""ksqlDB's sanitizer rule for lambda parameter names, checked before analysis and typing in every statement
kind: a parameter name already used by an enclosing lambda, or twice by one lambda, is refused with one
message (its sanitizer adds the names to a set and counts how many were new)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError

REUSED = "Exception while preparing statement: Reusing lambda arguments in nested lambda is not allowed"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM s (k STRING KEY, n INT, xs ARRAY<INT>, m MAP<STRING, INT>) WITH (kafka_topic='s', "
              "value_format='JSON', partitions=1);\n"
              "CREATE TABLE t (k STRING PRIMARY KEY, xs ARRAY<INT>) WITH (kafka_topic='t', format='JSON', "
              "partitions=1);\n"
              "CREATE TABLE mv AS SELECT * FROM t;")
    yield e
    e.close()


@pytest.mark.parametrize("lam", [
    "TRANSFORM(xs, (x, x) => x)",                       # twice in one lambda, whatever the function's arity
    "REDUCE(xs, 0, (a, a) => a + 1)",
    "REDUCE(xs, 0, (a, A) => a)",                       # unquoted names are upper case
    "TRANSFORM(m, (q, q) => q, (q2, v) => v)",
    "TRANSFORM(xs, x => TRANSFORM(xs, x => x))",       # reused by a nested lambda
    "TRANSFORM(xs, x => REDUCE(xs, 0, (a, x) => a))",
    "FILTER(xs, x => ARRAY_LENGTH(FILTER(xs, y => REDUCE(xs, 0, (x, z) => z) > 0)) > 0)",
])
@pytest.mark.parametrize("statement", [
    "CREATE STREAM o AS SELECT k, {lam} AS r FROM s;",
    "CREATE STREAM o AS SELECT k, n + 'x' AS bad, {lam} AS r FROM s;",  # before the typing error
    "INSERT INTO s SELECT k, n, xs, m FROM s WHERE ARRAY_LENGTH({lam}) > 0;",
    "SELECT k, {lam} AS r FROM s EMIT CHANGES;",
    "SELECT k FROM mv WHERE k = 'a' AND ARRAY_LENGTH({lam}) > 0;",
])
def test_reused_lambda_argument(engine: Engine, lam: str, statement: str) -> None:
    if "m," in lam and "mv" in statement:
        lam = "TRANSFORM(xs, (q, q) => q)"  # the table has no map
    with pytest.raises(KsqlError) as info:
        engine.execute(statement.format(lam=lam))
    assert info.value.message == REUSED


@pytest.mark.parametrize("lam", [
    "REDUCE(xs, 0, (a, `a`) => a)",                  # a quoted lower-case name is another name
    "TRANSFORM(xs, x => x) AS r2, TRANSFORM(xs, x => x + 1)",  # sibling lambdas may share names
    "TRANSFORM(xs, x => TRANSFORM(xs, y => x + y))",
])
def test_distinct_names_are_accepted(engine: Engine, lam: str) -> None:
    engine.execute(f"CREATE STREAM o AS SELECT k, {lam} AS r FROM s;")
