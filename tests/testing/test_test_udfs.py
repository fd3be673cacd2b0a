"""ksqlDB's test-only scalar and table functions (ksqlpy/testing/extension, the public API, loaded like a user's
extension directory) behave as ksqlDB's: the conformance cases that call them rely on it."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.testing.extension import DIRECTORY, with_test_functions
from ksqlpy.types import BIGINT, BOOLEAN, INTEGER, STRING, Struct
from ksqlpy.udf.loader import FunctionSources, load_functions

REGISTRY = load_functions(FunctionSources(extension_dir=DIRECTORY, entry_points=False))


def test_the_runner_loads_them_as_an_extension_directory() -> None:
    assert with_test_functions({})["ksql.extension.dir"] == DIRECTORY
    assert with_test_functions({"ksql.extension.dir": "/elsewhere"})["ksql.extension.dir"] == "/elsewhere"
    assert REGISTRY.scalars["TEST_UDF"].path.endswith("ksqldb_udfs.py")


def test_the_engine_has_no_special_case_for_them() -> None:
    """Issue 15's acceptance: the conformance cases' test functions come only from the extension directory -
    the built-in registry has none of them, and no module outside the directory names them."""
    import re

    from ksqlpy.functions import builtin_registry

    ext = load_functions(FunctionSources(extension_dir=DIRECTORY, entry_points=False))
    builtin = builtin_registry()
    names = {n for group in (ext.scalars, ext.aggregates, ext.tables) for n in group} - {
        n for group in (builtin.scalars, builtin.aggregates, builtin.tables) for n in group}
    assert {"WHENCONDITION", "TEST_UDF", "MID_VAR_ARG", "TEST_UDAF", "TEST_UDTF", "THROWING_UDTF"} <= names
    pattern = re.compile(r"\b(" + "|".join(sorted(names)) + r")\b", re.IGNORECASE)
    root = Path(DIRECTORY).parents[1]  # the ksqlpy package
    mentions = [f"{p.relative_to(root)}:{m.group(1)}" for p in root.rglob("*.py")
                if Path(DIRECTORY) not in p.parents for m in [pattern.search(p.read_text())] if m]
    assert mentions == []


def test_bad_udf_on_a_boolean_returns_zero_or_throws() -> None:
    r = REGISTRY.scalars["BAD_UDF"].resolve([BOOLEAN])
    assert r.return_type == INTEGER
    assert r.impl(False) == 0
    with pytest.raises(RuntimeError, match="You asked me to throw"):
        r.impl(True)
    assert REGISTRY.scalars["BAD_UDF"].resolve([STRING]).impl("d1") is None


@pytest.mark.parametrize("types, result", [
    ([INTEGER, STRING], "doStuffIntString"),
    ([BIGINT, STRING], "doStuffLongString"),
    ([BIGINT, BIGINT, STRING], "doStuffLongLongString"),
    ([INTEGER, BIGINT, STRING], "doStuffLongLongString"),  # widened
    ([BIGINT, BIGINT, BIGINT], "doStuffLongVarargs"),
    ([], None),
])  # fmt: skip
def test_test_udf_overloads(types: list[Any], result: str | None) -> None:
    r = REGISTRY.scalars["TEST_UDF"].resolve(types)
    args = [1] * len(types[:-1]) + (["s"] if types and types[-1] == STRING else [1] if types else [])
    if result is None:
        assert r.return_type == Struct((("A", STRING),)) and r.impl() == {"A": "foo"}
    else:
        assert r.impl(*args) == result


def test_when_condition_and_when_result_fail_when_their_condition_is_false() -> None:
    wc = REGISTRY.scalars["WHENCONDITION"].resolve([BOOLEAN, BOOLEAN])
    assert wc.impl(True, True) is True
    with pytest.raises(RuntimeError):
        wc.impl(True, False)
    wr = REGISTRY.scalars["WHENRESULT"].resolve([INTEGER, BOOLEAN])
    assert wr.return_type == INTEGER and wr.impl(5, True) == 5


def _engine(tmp_path: Path) -> Engine:
    return Engine(str(tmp_path), with_test_functions({"auto.offset.reset": "earliest"}))


def _values(engine: Engine, name: str) -> list[Any]:
    src = engine.catalog.source(name)
    vs = engine.value_serde(src)
    batch = engine.log.fetch(src.topic, 0, 0, 1000)
    return [vs.deserialize(v) for v in batch.values]


def test_case_calls_only_the_chosen_branch(tmp_path: Path) -> None:
    with _engine(tmp_path) as e:
        e.execute("CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        e.execute("INSERT INTO S (K, V) VALUES ('a', 1); INSERT INTO S (K, V) VALUES ('b', -1);")
        e.execute("CREATE STREAM O AS SELECT K, CASE WHEN V > 0 THEN WHENRESULT(V, V > 0) "
                  "WHEN WHENCONDITION(false, V <= 0) THEN 100 ELSE WHENRESULT(0, V <= 0) END AS R FROM S;")
        e.drain(10)
        assert _values(e, "O") == [(1,), (0,)]
        assert not [x for x in e.plog.entries if x["message"].get("recordProcessingError")]


def test_test_udtf_rows_and_the_decimal_provider(tmp_path: Path) -> None:
    with _engine(tmp_path) as e:
        e.execute("CREATE STREAM S (K STRING KEY, I INT, L BIGINT, D DOUBLE, B BOOLEAN, S STRING, BD DECIMAL(4, 2), "
                  "ST STRUCT<A INT, B STRING>) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        e.execute("INSERT INTO S (K, I, L, D, B, S, BD, ST) VALUES ('a', 1, 2, 3.5, true, 'x', 1.25, "
                  "STRUCT(A:=7, B:='y'));")
        e.execute("CREATE STREAM O AS SELECT K, TEST_UDTF(I, L, D, B, S, BD, ST) AS T FROM S;")
        e.execute("CREATE STREAM O2 AS SELECT K, TEST_UDTF(ARRAY[I], ARRAY[L], ARRAY[D], ARRAY[B], ARRAY[S], "
                  "ARRAY[BD], ARRAY[ST]) AS T FROM S;")
        e.execute("CREATE STREAM O3 AS SELECT K, TEST_UDTF(BD) AS T FROM S;")
        e.drain(10)
        texts = [("1",), ("2",), ("3.5",), ("true",), ("x",), ("1.25",), ("Struct{A=7,B=y}",)]
        assert _values(e, "O") == texts
        assert _values(e, "O2") == texts
        assert e.catalog.source("O3").schema_string() == "K STRING KEY, T DECIMAL(30, 10)"
        assert _values(e, "O3") == [(Decimal("1.2500000000"),)]


def test_throwing_udtf_logs_and_the_query_goes_on(tmp_path: Path) -> None:
    with _engine(tmp_path) as e:
        e.execute("CREATE STREAM S (K STRING KEY, B BOOLEAN) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
                  "PARTITIONS=1);")
        for k, b in (("a", "false"), ("b", "true"), ("c", "false")):
            e.execute(f"INSERT INTO S (K, B) VALUES ('{k}', {b});")
        e.execute("CREATE STREAM O AS SELECT K, THROWING_UDTF(B) AS R FROM S;")
        e.drain(10)
        assert _values(e, "O") == [(False,), (False,)]
        errors = [x["message"]["recordProcessingError"] for x in e.plog.entries
                  if x["message"].get("recordProcessingError")]
        assert [(x["errorMessage"], x["cause"]) for x in errors] == [
            ("Table function THROWING_UDTF threw an exception", ["You asked me to throw..."])]


def test_test_udaf_over_a_table_and_its_configured_start(tmp_path: Path) -> None:
    with _engine(tmp_path) as e:
        e.execute("CREATE TABLE T (ID STRING PRIMARY KEY, G STRING, V INT) WITH (KAFKA_TOPIC='t', "
                  "VALUE_FORMAT='JSON', PARTITIONS=1);")
        e.execute("CREATE TABLE A AS SELECT G, TEST_UDAF(V) AS S FROM T GROUP BY G;",
                  {"ksql.functions.test_udaf.init": 100})
        for id_, g, v in (("1", "x", 1), ("2", "x", 2), ("1", "x", 5)):
            e.execute(f"INSERT INTO T (ID, G, V) VALUES ('{id_}', '{g}', {v});")
        e.drain(10)
        assert _values(e, "A")[-1] == (107,)
        with pytest.raises(KsqlError, match=r"Function 'TEST_UDAF' does not accept parameters \(BOOLEAN\)"):
            e.execute("CREATE TABLE B AS SELECT G, TEST_UDAF(V > 1) AS S FROM T GROUP BY G;")
