"""A built-in aggregate no signature fits answers as every other function does (ksqlDB's UdfIndex serves
scalar, table and aggregate functions alike): the argument types, then "Valid alternatives are:" with every
signature on its own line, then the DESCRIBE FUNCTION hint - not the first line alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ksqlpy import types as T
from ksqlpy.engine import Engine
from ksqlpy.engine.describe import describe_function
from ksqlpy.errors import KsqlError, KsqlTypeError
from ksqlpy.functions import builtin_registry
from ksqlpy.functions.aggregates.base import alternatives
from ksqlpy.functions.registry import top_level_split
from ksqlpy.functions.signatures import alternative_text

REGISTRY = builtin_registry()
HINT = "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;"
MAP = T.Map(T.STRING, T.INTEGER)

# one call per built-in aggregate that some argument types cannot fit
CALLS = {
    "AVG": [T.STRING], "SUM": [T.STRING], "SUM_LIST": [T.Array(T.STRING)], "MIN": [MAP], "MAX": [T.BOOLEAN],
    "HISTOGRAM": [T.INTEGER], "STDDEV_SAMP": [T.STRING], "STDDEV_SAMPLE": [T.BOOLEAN],
    "CORRELATION": [T.STRING, T.DOUBLE], "TOPK": [T.INTEGER, T.STRING], "TOPKDISTINCT": [T.INTEGER, T.DOUBLE],
    "LATEST_BY_OFFSET": [T.INTEGER, T.STRING], "EARLIEST_BY_OFFSET": [T.INTEGER, T.STRING],
}


def _message(name: str, arg_types: list[T.SqlType]) -> str:
    fn = REGISTRY.aggregates[name]
    n = fn.literal_arg_count(len(arg_types))
    with pytest.raises(KsqlTypeError) as info:
        fn.init_arg_count(arg_types)
    with pytest.raises(KsqlTypeError) as again:  # the same words whichever way resolution is reached
        fn.resolve(arg_types[: len(arg_types) - n], [{"k": 1}] * n if n else [], {})
    assert again.value.message.splitlines()[1:] == info.value.message.splitlines()[1:]
    return info.value.message


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_alternative_is_listed(name: str) -> None:
    lines = _message(name, CALLS[name]).splitlines()
    assert lines[0].startswith(f"Function '{name}' does not accept parameters (")
    assert lines[1] == "Valid alternatives are:"
    assert lines[2:-1] == alternatives(REGISTRY.aggregates[name].signatures())
    assert all(line.startswith(f"{name}(") and line.endswith(")") for line in lines[2:-1])
    assert lines[-1] == HINT


def test_the_whole_message() -> None:
    assert _message("SUM", [T.STRING]) == (
        "Function 'SUM' does not accept parameters (STRING).\nValid alternatives are:\n"
        f"SUM(INT val)\nSUM(BIGINT val)\nSUM(DOUBLE val)\nSUM(DECIMAL val)\n{HINT}")


def test_optional_parameters_are_written_out_both_ways() -> None:
    assert alternatives(["LATEST_BY_OFFSET(T [, BOOLEAN ignoreNulls]) -> T", "X(INT) -> INT"]) == [
        "LATEST_BY_OFFSET(T)", "LATEST_BY_OFFSET(T, BOOLEAN ignoreNulls)", "X(INT)"]


@pytest.mark.parametrize("kind", ["CREATE TABLE T AS SELECT K, {call} AS A FROM S GROUP BY K;",
                                  "SELECT K, {call} FROM S GROUP BY K EMIT CHANGES;",
                                  "SELECT {call} FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K EMIT CHANGES;"])
def test_in_statements(tmp_path: Path, kind: str) -> None:
    with Engine(str(tmp_path)) as e:
        e.execute("CREATE STREAM S (K STRING KEY, V INT, W STRING) "
                  "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        with pytest.raises(KsqlError) as err:
            e.execute(kind.format(call="SUM(W)"))
        text = str(err.value)
        assert "Function 'SUM' does not accept parameters (STRING).\nValid alternatives are:\nSUM(INT val)\n" in text
        assert text.rstrip().endswith(HINT)


# --------------------------------------------------------------------------- one formatter, parameter names


def test_one_line_format_for_every_kind_of_function() -> None:
    """Scalar, table and aggregate functions' lines come from one formatter: a named parameter reads
    ``TYPE name``, an unnamed one its type alone, the variadic one ``TYPE...``."""
    assert alternative_text("F", [("INT", "n"), ("STRING", ""), ("ANY...", "rest")]) == "F(INT n, STRING, ANY... rest)"
    assert alternative_text("F", []) == "F()"
    overload = REGISTRY.scalars["GEO_DISTANCE"].overloads[0]
    assert overload.alternative("geo_distance") == alternative_text(
        "geo_distance", [("DOUBLE", n) for n in ("lat1", "lon1", "lat2", "lon2")])
    explode = REGISTRY.tables["EXPLODE"].overloads[0]
    assert explode.alternative("explode") == alternative_text("explode", [("ARRAY<T>", "list")])
    assert alternatives(["TOPK(T col, ANY... otherCols, INT k) -> ARRAY<T>"]) == [
        alternative_text("TOPK", [("T", "col"), ("ANY...", "otherCols"), ("INT", "k")])]


@pytest.mark.parametrize(("name", "args", "lines"), [
    ("CORRELATION", [T.STRING, T.DOUBLE], ["CORRELATION(DOUBLE val1, DOUBLE val2)"]),
    ("TOPK", [T.INTEGER, T.STRING], ["TOPK(T val, INT k)", "TOPK(T val1, ANY... val2, INT k)"]),
    ("TOPKDISTINCT", [T.INTEGER, T.DOUBLE], ["TOPKDISTINCT(T val, INT k)"]),
    ("LATEST_BY_OFFSET", [T.INTEGER, T.STRING], [
        "LATEST_BY_OFFSET(T val)", "LATEST_BY_OFFSET(T val, BOOLEAN ignoreNulls)",
        "LATEST_BY_OFFSET(T val, INT latestN)", "LATEST_BY_OFFSET(T val, INT latestN, BOOLEAN ignoreNulls)"]),
    ("EARLIEST_BY_OFFSET", [T.INTEGER, T.STRING], [
        "EARLIEST_BY_OFFSET(T val)", "EARLIEST_BY_OFFSET(T val, BOOLEAN ignoreNulls)",
        "EARLIEST_BY_OFFSET(T val, INT earliestN)", "EARLIEST_BY_OFFSET(T val, INT earliestN, BOOLEAN ignoreNulls)"]),
    ("SUM", [T.STRING], ["SUM(INT val)", "SUM(BIGINT val)", "SUM(DOUBLE val)", "SUM(DECIMAL val)"]),
    ("AVG", [T.STRING], ["AVG(INT val)", "AVG(BIGINT val)", "AVG(DOUBLE val)"]),
    ("STDDEV_SAMP", [T.STRING], ["STDDEV_SAMP(INT val)", "STDDEV_SAMP(BIGINT val)", "STDDEV_SAMP(DOUBLE val)"]),
    ("STDDEV_SAMPLE", [T.BOOLEAN], [
        "STDDEV_SAMPLE(INT val)", "STDDEV_SAMPLE(BIGINT val)", "STDDEV_SAMPLE(DOUBLE val)"]),
    ("SUM_LIST", [T.Array(T.Decimal(4, 2))], [
        "SUM_LIST(ARRAY<INT> val)", "SUM_LIST(ARRAY<BIGINT> val)", "SUM_LIST(ARRAY<DOUBLE> val)"]),
    ("HISTOGRAM", [T.INTEGER], ["HISTOGRAM(STRING val)"]),
])
def test_aggregates_name_the_parameters_as_their_factories(name: str, args: list[T.SqlType],
                                                           lines: list[str]) -> None:
    """ksqlDB's names (from memory of its UDAF sources): the column arguments ``val`` (``val1``, ``val2``..
    when there are several), the literal ones the factory method's parameters (``k``, ``latestN``,
    ``earliestN``, ``ignoreNulls``)."""
    assert _message(name, args).splitlines()[2:-1] == lines


AGGREGATES = sorted(REGISTRY.aggregates.items())


@pytest.mark.parametrize(("name", "fn"), AGGREGATES, ids=[n for n, _ in AGGREGATES])
def test_every_builtin_aggregate_overload_names_each_parameter(name: str, fn: Any) -> None:
    """In "Valid alternatives" and in DESCRIBE FUNCTION alike: every parameter of every overload has a name,
    distinct within the overload, and DESCRIBE lists the overloads the alternatives list."""
    lines = alternatives(fn.signatures())
    described = describe_function(REGISTRY, name)["functions"]
    assert len(described) == len(lines) > 0
    for line, variation in zip(lines, described, strict=True):
        params = [p.strip() for p in top_level_split(line[len(name) + 1:-1])]
        names = [p.rpartition(" ")[2] for p in params]
        assert all(n.isidentifier() for n in names) and len(set(names)) == len(names), line
        assert [a["name"] for a in variation["arguments"]] == names
        assert [a["type"] + ("..." if a["isVariadic"] else "") for a in variation["arguments"]] == [
            p.rpartition(" ")[0] for p in params]


def test_describe_lists_each_form_of_an_optional_parameter() -> None:
    described = describe_function(REGISTRY, "EARLIEST_BY_OFFSET")["functions"]
    assert [([a["name"] for a in v["arguments"]], v["returnType"]) for v in described] == [
        (["val"], "T"), (["val", "ignoreNulls"], "T"), (["val", "earliestN"], "ARRAY<T>"),
        (["val", "earliestN", "ignoreNulls"], "ARRAY<T>")]


def test_a_scalar_with_named_parameters_lists_them(tmp_path: Path) -> None:
    with Engine(str(tmp_path)) as e:
        e.execute("CREATE STREAM S (K STRING KEY, V DOUBLE) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        with pytest.raises(KsqlError) as err:
            e.execute("SELECT GEO_DISTANCE(V, 'x') FROM S EMIT CHANGES;")
        assert str(err.value).split("\n")[1:] == [
            "Valid alternatives are:",
            "geo_distance(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2)",
            "geo_distance(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2, STRING unit)", HINT]
        described = e.execute("DESCRIBE FUNCTION GEO_DISTANCE;")
        assert "lat1" in str(described) and "unit" in str(described)


@pytest.mark.parametrize("name", ["AVG", "STDDEV_SAMP", "STDDEV_SAMPLE"])
def test_a_decimal_reaches_the_double_overload_without_being_listed(name: str) -> None:
    """ksqlDB declares these with one annotated factory per Integer, Long and Double (from memory of
    AverageUdaf and StandardDeviationSampUdaf): DESCRIBE FUNCTION lists three variations, and a DECIMAL
    argument is taken by the DOUBLE one (implicit cast): a DOUBLE result, a DOUBLE running sum."""
    described = describe_function(REGISTRY, name)["functions"]
    assert [v["arguments"][0]["type"] for v in described] == ["INT", "BIGINT", "DOUBLE"]
    assert all(v["returnType"] == "DOUBLE" for v in described)
    resolved = REGISTRY.aggregates[name].resolve([T.Decimal(4, 2)], [], {})
    assert resolved.return_type == T.DOUBLE
    assert resolved.intermediate_type.fields[0] == ("SUM", T.DOUBLE)
