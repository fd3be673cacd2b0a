"""ksqlDB's test-only aggregate functions: variadic columns (at the end and in the middle), literal initial
arguments, configuration, undo (tables), argument-typed results and a STRUCT aggregate."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypeVar

from ksqlpy.udf import sql, udaf

T = TypeVar("T")
V = TypeVar("V")
STRUCT_AB = sql.of("STRUCT<A INT, B INT>")


class _Sum:
    """initialize 0, merge +, map identity (the shape most of these share)."""

    def initialize(self) -> int:
        return 0

    def merge(self, a: int, b: int) -> int:
        return a + b

    def map(self, agg: int) -> int:
        return agg


def _lengths(strings: tuple[Any, ...]) -> int:
    return sum(len(s) for s in strings if s is not None)


@udaf("VAR_ARG", description="The BIGINT plus the lengths of the non-NULL strings, summed.")
class VarArg(_Sum):
    def aggregate(self, first: int, *strings: str, agg: int) -> int:
        return agg + (first or 0) + _lengths(strings)


@udaf("MID_VAR_ARG", description="As VAR_ARG; the two INT literals are added to the result.")
class MidVarArg(_Sum):
    def __init__(self, a: sql.INT, b: sql.INT) -> None:
        self.extra = (a or 0) + (b or 0)

    def aggregate(self, first: int, *strings: str, agg: int) -> int:
        return agg + (first or 0) + _lengths(strings)

    def map(self, agg: int) -> int:
        return agg + self.extra


# ------------------------------------------------------------------------------------------ TEST_UDAF
@udaf("TEST_UDAF", description="Sums (BIGINT, INT with a configurable start, DOUBLE, DECIMAL), string "
      "lengths from a literal's, a field-wise STRUCT sum.")
class SumLong(_Sum):
    def aggregate(self, v: int, agg: int) -> int:
        return agg if v is None else agg + v

    def undo(self, v: int, agg: int) -> int:
        return agg if v is None else agg - v


@udaf("TEST_UDAF")
class SumInt:
    def __init__(self) -> None:
        self.start = 0

    def configure(self, config: dict[str, Any]) -> None:
        self.start = int(config.get("ksql.functions.test_udaf.init", 0))

    def initialize(self) -> sql.INT:
        return self.start

    def aggregate(self, v: sql.INT, agg: sql.INT) -> sql.INT:
        return agg if v is None else agg + v

    def undo(self, v: sql.INT, agg: sql.INT) -> sql.INT:
        return agg if v is None else agg - v

    def merge(self, a: sql.INT, b: sql.INT) -> sql.INT:
        return a + b

    def map(self, agg: sql.INT) -> sql.INT:
        return agg


@udaf("TEST_UDAF")
class SumDouble:
    def initialize(self) -> float:
        return 0.0

    def aggregate(self, v: float, agg: float) -> float:
        return agg if v is None else agg + v

    def merge(self, a: float, b: float) -> float:
        return a + b

    def map(self, agg: float) -> float:
        return agg


def _argument_type(types: list[Any]) -> Any:
    return types[0]


@udaf("TEST_UDAF", aggregate=_argument_type, returns=_argument_type)
class SumDecimal:
    def initialize(self) -> Decimal:
        return Decimal(0)

    def aggregate(self, v: Decimal, agg: Decimal) -> Decimal:
        return agg if v is None else agg + v

    def merge(self, a: Decimal, b: Decimal) -> Decimal:
        return a + b

    def map(self, agg: Decimal) -> Decimal:
        return agg


@udaf("TEST_UDAF")
class TotalLength(_Sum):
    def __init__(self, start: str) -> None:
        self.start = len(start or "")

    def initialize(self) -> int:
        return self.start

    def aggregate(self, s: str, agg: int) -> int:
        return agg if s is None else agg + len(s)


@udaf("TEST_UDAF")
class SumStruct:
    def initialize(self) -> STRUCT_AB:
        return {"A": 0, "B": 0}

    def aggregate(self, v: STRUCT_AB, agg: STRUCT_AB) -> STRUCT_AB:
        if v is None:
            return agg
        return {"A": agg["A"] + (v["A"] or 0), "B": agg["B"] + (v["B"] or 0)}

    def merge(self, a: STRUCT_AB, b: STRUCT_AB) -> STRUCT_AB:
        return {"A": a["A"] + b["A"], "B": a["B"] + b["B"]}

    def map(self, agg: STRUCT_AB) -> STRUCT_AB:
        return agg


# ------------------------------------------------------------------------------------------ example UDAFs
class _LengthSum(_Sum):
    """Columns (BIGINT, STRING...) then literals (INT, STRING...): starts at the INT plus the literal strings'
    lengths; adds the BIGINT and the string columns' lengths (NULL counts 0)."""

    def __init__(self, start: sql.INT, *texts: str) -> None:
        self.start = (start or 0) + _lengths(texts)

    def initialize(self) -> int:
        return self.start


@udaf("MULTI_ARG", description="Sum of the first column and the lengths of the second, from a start of the "
      "INT literal plus the lengths of the string literals.")
class MultiArg(_LengthSum):
    def aggregate(self, first: int, second: str, agg: int) -> int:
        return agg + (first or 0) + _lengths((second,))


@udaf("FOUR_ARG", description="As MULTI_ARG over three string columns.")
class FourArg(_LengthSum):
    def aggregate(self, first: int, s1: str, s2: str, s3: str, agg: int) -> int:
        return agg + (first or 0) + _lengths((s1, s2, s3))


@udaf("FIVE_ARG", description="As FOUR_ARG plus an INT column.")
class FiveArg(_LengthSum):
    def aggregate(self, first: int, s1: str, s2: str, s3: str, i: sql.INT, agg: int) -> int:
        return agg + (first or 0) + _lengths((s1, s2, s3)) + (i or 0)


class _Collect:
    def merge(self, a: list[T], b: list[T]) -> list[T]:
        return a + b

    def map(self, agg: list[T]) -> list[T]:
        return list(agg)


@udaf("GENERIC_VAR_ARG", description="Collects the first argument of the rows where no argument is NULL.")
class GenericVarArg(_Collect):
    def initialize(self) -> list[T]:
        return []

    def aggregate(self, first: T, second: sql.INT, *rest: V, agg: list[T]) -> list[T]:
        if first is not None and second is not None and all(v is not None for v in rest):
            agg.append(first)
        return agg


@udaf("OBJ_COL_ARG", description="Collects the first argument of the rows where no argument is NULL.")
class ObjColArg(_Collect):
    def initialize(self) -> list[sql.INT]:
        return []

    def aggregate(self, first: sql.INT, *rest: Any, agg: list[sql.INT]) -> list[sql.INT]:
        if first is not None and all(v is not None for v in rest):
            agg.append(first)
        return agg

    def merge(self, a: list[sql.INT], b: list[sql.INT]) -> list[sql.INT]:
        return a + b

    def map(self, agg: list[sql.INT]) -> list[sql.INT]:
        return list(agg)
