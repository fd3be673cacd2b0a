"""Python annotations -> SQL types (ksqlpy.udf.type_mapping) and values between the engine and user code
(ksqlpy.udf.values), one row per supported annotation."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Annotated, Any, Optional, TypedDict, TypeVar

import pytest

from ksqlpy import types as T
from ksqlpy.functions.patterns import AnyDecimal, AnyType, ArrayOf, Exact, MapOf, Var
from ksqlpy.udf import sql
from ksqlpy.udf.type_mapping import AnnotationError, pattern_of, unwrap
from ksqlpy.udf.values import from_python, to_python

K = TypeVar("K")


@dataclasses.dataclass
class Point:
    x: int
    y: float


class Person(TypedDict):
    name: str
    born: dt.date


NS = dict(globals())


@pytest.mark.parametrize("ann, pattern", [
    (int, Exact(T.BIGINT)),
    (float, Exact(T.DOUBLE)),
    (str, Exact(T.STRING)),
    (bool, Exact(T.BOOLEAN)),
    (bytes, Exact(T.BYTES)),
    (Decimal, AnyDecimal()),
    (dt.datetime, Exact(T.TIMESTAMP)),
    (dt.date, Exact(T.DATE)),
    (dt.time, Exact(T.TIME)),
    (list[int], ArrayOf(Exact(T.BIGINT))),
    (dict[str, float], MapOf(Exact(T.STRING), Exact(T.DOUBLE))),
    (dict[str, list[str]], MapOf(Exact(T.STRING), ArrayOf(Exact(T.STRING)))),
    (Point, Exact(T.Struct((("X", T.BIGINT), ("Y", T.DOUBLE))))),
    (Person, Exact(T.Struct((("NAME", T.STRING), ("BORN", T.DATE))))),
    (K, Var("K")),
    (list[K], ArrayOf(Var("K"))),
    (Any, AnyType()),
    (Optional[int], Exact(T.BIGINT)),  # noqa: UP045 - the typing spelling must work too
    (int | None, Exact(T.BIGINT)),
    (Annotated[str, "the text"], Exact(T.STRING)),
    ("DECIMAL(10, 2)", Exact(T.Decimal(10, 2))),
    ("INT", Exact(T.INTEGER)),
    ("STRUCT<A INT, B ARRAY<STRING>>", Exact(T.Struct((("A", T.INTEGER), ("B", T.Array(T.STRING)))))),
    ("ARRAY<T>", ArrayOf(Var("T"))),
    ("int", Exact(T.BIGINT)),  # a string that is Python: evaluated in the module
    ("list[Point]", ArrayOf(Exact(T.Struct((("X", T.BIGINT), ("Y", T.DOUBLE)))))),
    (sql.INT, Exact(T.INTEGER)),
    (sql.DECIMAL(12, 3), Exact(T.Decimal(12, 3))),
    (sql.of("MAP<STRING, INT>"), MapOf(Exact(T.STRING), Exact(T.INTEGER))),
    (list[sql.TIMESTAMP], ArrayOf(Exact(T.TIMESTAMP))),
])  # fmt: skip
def test_annotation_to_sql(ann: Any, pattern: Any) -> None:
    assert pattern_of(ann, NS) == pattern


def test_annotated_gives_the_parameter_description() -> None:
    assert unwrap(Annotated[int, "how many"], NS) == (int, "how many")


@pytest.mark.parametrize("ann, message", [
    (set[int], "has no SQL type"),
    (list, "needs its element types"),
    (int | str, "is a union"),
    (None, "None has no SQL type"),
    ("NOT A TYPE AT ALL", "neither a Python type nor a SQL type"),
    ("ADDRESS", "custom types from CREATE TYPE"),
])  # fmt: skip
def test_annotations_without_a_sql_type_are_refused(ann: Any, message: str) -> None:
    with pytest.raises(AnnotationError, match=message):
        pattern_of(ann, NS)


def test_results_need_a_concrete_type() -> None:
    with pytest.raises(AnnotationError, match="DECIMAL result needs its precision and scale"):
        pattern_of(Decimal, NS, result=True)
    with pytest.raises(AnnotationError, match="result of type Any"):
        pattern_of(Any, NS, result=True)
    assert pattern_of(sql.DECIMAL(5, 1), NS, result=True) == Exact(T.Decimal(5, 1))


@pytest.mark.parametrize("t, ann, engine_value, python_value", [
    (T.TIMESTAMP, dt.datetime, 1_700_000_000_123, dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)),
    (T.DATE, dt.date, 19753, dt.date(2024, 1, 31)),
    (T.TIME, dt.time, 45_296_007, dt.time(12, 34, 56, 7000)),
    (T.Array(T.DATE), list[dt.date], [0, None], [dt.date(1970, 1, 1), None]),
    (T.Map(T.STRING, T.TIME), dict[str, dt.time], {"a": 1000}, {"a": dt.time(0, 0, 1)}),
    (T.Struct((("X", T.BIGINT), ("Y", T.DOUBLE))), Point, {"X": 1, "Y": 2.5}, Point(1, 2.5)),
    (T.Struct((("NAME", T.STRING), ("BORN", T.DATE))), Person, {"NAME": "ann", "BORN": 1},
     {"name": "ann", "born": dt.date(1970, 1, 2)}),
])  # fmt: skip
def test_values_round_trip(t: T.SqlType, ann: Any, engine_value: Any, python_value: Any) -> None:
    to, back = to_python(t, ann, NS), from_python(t, ann, NS)
    assert to is not None and back is not None
    assert to(engine_value) == python_value
    assert back(python_value) == engine_value
    assert to(None) is None and back(None) is None


def test_plain_values_need_no_conversion() -> None:
    for t, ann in ((T.BIGINT, int), (T.STRING, str), (T.BOOLEAN, bool), (T.Array(T.BIGINT), list[int]),
                   (T.Struct((("A", T.INTEGER),)), None)):
        assert to_python(t, ann, NS) is None


def test_results_are_normalized_to_the_sql_type() -> None:
    assert from_python(T.DOUBLE)(3) == 3.0 and isinstance(from_python(T.DOUBLE)(3), float)
    assert from_python(T.Decimal(5, 2))(Decimal("1.005")) == Decimal("1.01")  # HALF_UP to the scale
    assert from_python(T.Decimal(5, 2))(2.5) == Decimal("2.50")
    naive = dt.datetime(1970, 1, 1, 0, 0, 1)  # no zone: UTC
    assert from_python(T.TIMESTAMP)(naive) == 1000
    struct = from_python(T.Struct((("A", T.INTEGER), ("B", T.STRING))))
    assert struct({"a": 1, "B": "x"}) == {"A": 1, "B": "x"}  # keys matched case-insensitively, missing NULL
    assert struct({"A": 2}) == {"A": 2, "B": None}
