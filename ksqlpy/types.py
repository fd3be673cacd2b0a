"""SQL types of the ksql dialect and their Python value representation.

Values travel through the runtime as plain Python objects so generated code stays cheap:

| SQL type      | Python value                                   |
|---------------|------------------------------------------------|
| BOOLEAN       | bool                                           |
| INT, BIGINT   | int                                            |
| DOUBLE        | float                                          |
| DECIMAL(p,s)  | decimal.Decimal (quantized to scale s)         |
| STRING        | str                                            |
| BYTES         | bytes                                          |
| DATE          | int, days since 1970-01-01                     |
| TIME          | int, milliseconds since midnight               |
| TIMESTAMP     | int, milliseconds since the epoch (UTC)        |
| ARRAY<T>      | list                                           |
| MAP<K,V>      | dict                                           |
| STRUCT<...>   | dict field name -> value, in declared order    |

NULL is ``None`` for every type. Types are immutable and hashable so they can key caches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass


class SqlType:
    """Base of all SQL types."""

    name: str = "?"

    def __str__(self) -> str:  # ksqlDB's display form, e.g. ARRAY<STRING>
        return self.name

    def __repr__(self) -> str:
        return str(self)

    @property
    def is_numeric(self) -> bool:
        return isinstance(self, Primitive) and self.name in NUMERIC_ORDER or isinstance(self, Decimal)


@dataclass(frozen=True, repr=False)
class Primitive(SqlType):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, repr=False)
class Decimal(SqlType):
    precision: int
    scale: int

    @property
    def name(self) -> str:  # type: ignore[override]
        return "DECIMAL"

    def __str__(self) -> str:
        return f"DECIMAL({self.precision}, {self.scale})"


@dataclass(frozen=True, repr=False)
class Array(SqlType):
    element: SqlType

    @property
    def name(self) -> str:  # type: ignore[override]
        return "ARRAY"

    def __str__(self) -> str:
        return f"ARRAY<{self.element}>"


@dataclass(frozen=True, repr=False)
class Map(SqlType):
    key: SqlType
    value: SqlType

    @property
    def name(self) -> str:  # type: ignore[override]
        return "MAP"

    def __str__(self) -> str:
        return f"MAP<{self.key}, {self.value}>"


@dataclass(frozen=True, repr=False)
class Struct(SqlType):
    fields: tuple[tuple[str, SqlType], ...]

    @property
    def name(self) -> str:  # type: ignore[override]
        return "STRUCT"

    def field(self, name: str) -> SqlType | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None

    def __str__(self) -> str:
        return "STRUCT<" + ", ".join(f"`{n}` {t}" for n, t in self.fields) + ">"


@dataclass(frozen=True, repr=False)
class LambdaType(SqlType):
    """Type of a lambda argument during function resolution: parameter types and result."""

    params: tuple[SqlType, ...]
    result: SqlType | None = None

    @property
    def name(self) -> str:  # type: ignore[override]
        return "LAMBDA"

    def __str__(self) -> str:
        head = f"LAMBDA<{', '.join(map(str, self.params))}>"
        return head if self.result is None else f"{head} -> {self.result}"  # untyped yet: its arity only


@dataclass(frozen=True, repr=False)
class NullType(SqlType):
    """The type of a bare NULL literal before context gives it one; coerces to anything."""

    @property
    def name(self) -> str:  # type: ignore[override]
        return "NULL"

    def __str__(self) -> str:
        return "NULL"


BOOLEAN = Primitive("BOOLEAN")
INTEGER = Primitive("INTEGER")
BIGINT = Primitive("BIGINT")
DOUBLE = Primitive("DOUBLE")
STRING = Primitive("STRING")
BYTES = Primitive("BYTES")
DATE = Primitive("DATE")
TIME = Primitive("TIME")
TIMESTAMP = Primitive("TIMESTAMP")
NULL = NullType()

# Widening order for implicit numeric casts: INT -> BIGINT -> DECIMAL -> DOUBLE (ksqlDB's rule).
NUMERIC_ORDER = {"INTEGER": 0, "BIGINT": 1, "DECIMAL": 2, "DOUBLE": 3}

PRIMITIVES_BY_NAME: dict[str, SqlType] = {
    "BOOLEAN": BOOLEAN,
    "INT": INTEGER,
    "INTEGER": INTEGER,
    "BIGINT": BIGINT,
    "DOUBLE": DOUBLE,
    "STRING": STRING,
    "VARCHAR": STRING,
    "BYTES": BYTES,
    "DATE": DATE,
    "TIME": TIME,
    "TIMESTAMP": TIMESTAMP,
}

# Precision a whole-number type needs as a DECIMAL (ksqlDB: INT -> DECIMAL(10,0), BIGINT -> DECIMAL(19,0)).
INT_DECIMAL = Decimal(10, 0)
BIGINT_DECIMAL = Decimal(19, 0)


def holds(t: SqlType, pred: Callable[[SqlType], bool]) -> bool:
    """Whether ``t`` or a type inside it (element, map key or value, struct field) satisfies ``pred``."""
    if pred(t):
        return True
    if isinstance(t, Array):
        return holds(t.element, pred)
    if isinstance(t, Map):
        return holds(t.key, pred) or holds(t.value, pred)
    if isinstance(t, Struct):
        return any(holds(ft, pred) for _, ft in t.fields)
    return False


def contains_map(t: SqlType) -> bool:
    """A MAP anywhere inside ``t`` (keys and GROUP BY / join columns may not hold one, as in ksqlDB)."""
    return holds(t, lambda x: isinstance(x, Map))


def is_numeric(t: SqlType) -> bool:
    return t.name in NUMERIC_ORDER


def is_integral(t: SqlType) -> bool:
    return t is INTEGER or t is BIGINT or t == INTEGER or t == BIGINT


def as_decimal(t: SqlType) -> Decimal:
    """The DECIMAL a numeric type widens to."""
    if isinstance(t, Decimal):
        return t
    if t == INTEGER:
        return INT_DECIMAL
    if t == BIGINT:
        return BIGINT_DECIMAL
    raise TypeError(f"{t} has no DECIMAL form")


def widen_numeric(a: SqlType, b: SqlType) -> SqlType:
    """The common type of two numeric types for arithmetic/comparison (not the DECIMAL result rules)."""
    if a == b:
        return a
    ra, rb = NUMERIC_ORDER[a.name], NUMERIC_ORDER[b.name]
    if ra == NUMERIC_ORDER["DECIMAL"] and rb == NUMERIC_ORDER["DECIMAL"]:
        da, db = as_decimal(a), as_decimal(b)
        scale = max(da.scale, db.scale)
        return Decimal(max(da.precision - da.scale, db.precision - db.scale) + scale, scale)
    hi, lo = (a, b) if ra >= rb else (b, a)
    if isinstance(hi, Decimal):
        return widen_numeric(hi, as_decimal(lo))
    return hi


def can_implicitly_cast(src: SqlType, dst: SqlType) -> bool:
    """ksqlDB's implicit casts: NULL to anything, numeric widening, and element-wise for containers."""
    if src == dst or isinstance(src, NullType):
        return True
    if is_numeric(src) and is_numeric(dst):
        rs, rd = NUMERIC_ORDER[src.name], NUMERIC_ORDER[dst.name]
        if rs < rd:
            return True
        if isinstance(src, Decimal) and isinstance(dst, Decimal):
            return (dst.precision - dst.scale) >= (src.precision - src.scale) and dst.scale >= src.scale
        return False
    if isinstance(src, Array) and isinstance(dst, Array):
        return can_implicitly_cast(src.element, dst.element)
    if isinstance(src, Map) and isinstance(dst, Map):
        return can_implicitly_cast(src.key, dst.key) and can_implicitly_cast(src.value, dst.value)
    if isinstance(src, Struct) and isinstance(dst, Struct):
        names = {n for n, _ in dst.fields}
        return all(n in names and can_implicitly_cast(t, dst.field(n)) for n, t in src.fields)  # type: ignore[arg-type]
    return False


def common_type(types: list[SqlType]) -> SqlType | None:
    """The type every one of ``types`` implicitly casts to (for CASE, COALESCE, IN, ARRAY[...]), or None."""
    result: SqlType = NULL
    for t in types:
        if isinstance(t, NullType):
            continue
        if isinstance(result, NullType):
            result = t
        elif can_implicitly_cast(t, result):
            continue
        elif can_implicitly_cast(result, t):
            result = t
        elif is_numeric(result) and is_numeric(t):
            result = widen_numeric(result, t)
        elif isinstance(result, Array) and isinstance(t, Array):
            inner = common_type([result.element, t.element])
            if inner is None:
                return None
            result = Array(inner)
        elif isinstance(result, Map) and isinstance(t, Map):
            k, v = common_type([result.key, t.key]), common_type([result.value, t.value])
            if k is None or v is None:
                return None
            result = Map(k, v)
        else:
            return None
    return result


_PLAIN_IDENT_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def type_sql(t: SqlType, name: Callable[[str], str]) -> str:
    """A type as ksqlDB prints one, its STRUCT field names through ``name``: back-quoted always in messages
    (``quote``), only where needed in a printed statement (``quote_ident``)."""
    if isinstance(t, Struct):
        return "STRUCT<" + ", ".join(f"{name(n)} {type_sql(ft, name)}" for n, ft in t.fields) + ">"
    if isinstance(t, Array):
        return f"ARRAY<{type_sql(t.element, name)}>"
    if isinstance(t, Map):
        return f"MAP<{type_sql(t.key, name)}, {type_sql(t.value, name)}>"
    return str(t)


def quote_ident(name: str) -> str:
    """Backtick-quote an identifier when it would not survive a round trip unquoted: not upper case, not a
    plain name, or a word ksqlDB reserves (IdentifierUtil.needsQuotes parses the name as an identifier; a
    reserved word such as SELECT fails, a non-reserved keyword such as KEY passes)."""
    if (name and name[0] not in "0123456789" and all(c in _PLAIN_IDENT_CHARS for c in name)
            and name not in _reserved_words()):
        return name
    return "`" + name.replace("`", "``") + "`"


@functools.cache
def _reserved_words() -> frozenset[str]:
    from ksqlpy.grammar.keywords import RESERVED  # the grammar imports this module

    return RESERVED
