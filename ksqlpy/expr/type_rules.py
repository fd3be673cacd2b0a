"""ksqlDB's typing rules for expression values, as functions of types: literal types, custom type names,
ComparisonUtil's table, arithmetic result types (``Operator.resultType``, SqlDecimal), and the implicit
casts the binder inserts so that compared and combined operands share one type."""

from __future__ import annotations

from decimal import Decimal as PyDecimal
from typing import Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr import bound as B
from ksqlpy.expr import lists
from ksqlpy.grammar.ast import TypeName

_TEMPORAL = (T.DATE, T.TIME, T.TIMESTAMP)
_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)


def literal_type(text: str) -> tuple[Any, T.SqlType]:
    """(value, type) of a numeric literal as written: INTEGER, BIGINT, DECIMAL(p, s) or DOUBLE."""
    low = text.lower()
    if "e" in low:
        return float(text), T.DOUBLE
    if "." in text:  # the written digits (0.5 is DECIMAL(2, 1))
        d = PyDecimal(text)
        if d.is_zero():  # new BigDecimal("-0.00") is 0.00: BigDecimal has no negative zero
            d = d.copy_abs()
        return d, lists.decimal_type_of(d)
    v = int(text)
    if _INT_RANGE[0] <= v <= _INT_RANGE[1]:
        return v, T.INTEGER
    if _LONG_RANGE[0] <= v <= _LONG_RANGE[1]:
        return v, T.BIGINT
    return PyDecimal(v), T.Decimal(len(text.lstrip("-")), 0)


def resolve_type(t: T.SqlType, custom_types: dict[str, T.SqlType]) -> T.SqlType:
    """``t`` with custom type names (CREATE TYPE) replaced by what they stand for."""
    if isinstance(t, TypeName):
        found = custom_types.get(t.type_name)
        if found is None:
            raise KsqlStatementError(f"Unknown type: {t.type_name}")
        return found
    if isinstance(t, T.Array):
        return T.Array(resolve_type(t.element, custom_types))
    if isinstance(t, T.Map):
        return T.Map(resolve_type(t.key, custom_types), resolve_type(t.value, custom_types))
    if isinstance(t, T.Struct):
        return T.Struct(tuple((n, resolve_type(ft, custom_types)) for n, ft in t.fields))
    return t


# --------------------------------------------------------------------------- rules shared with callers


def comparable_types(left: T.SqlType, op: B.CmpOp, right: T.SqlType) -> bool:
    """ksqlDB's ComparisonUtil table: numbers with numbers; STRING with STRING or a time type;
    BOOLEAN, ARRAY, MAP, STRUCT with their own kind and only for equality; DATE/TIMESTAMP with either or
    STRING; TIME with TIME or STRING; BYTES with BYTES."""
    if T.is_numeric(left):
        return T.is_numeric(right)
    if left == T.STRING:
        return right == T.STRING or right in _TEMPORAL
    if left == T.BOOLEAN:
        return right == T.BOOLEAN and op.is_equality
    if isinstance(left, T.Array | T.Map | T.Struct):
        return right.name == left.name and op.is_equality
    if left in (T.DATE, T.TIMESTAMP):
        return right in (T.DATE, T.TIMESTAMP, T.STRING)
    if left == T.TIME:
        return right in (T.TIME, T.STRING)
    if left == T.BYTES:
        return right == T.BYTES
    return False


def arithmetic_type(op: B.ArithOp, a: T.SqlType, b: T.SqlType) -> T.SqlType:
    """The result type of ``a op b`` for two numbers (ksqlDB's ``Operator.resultType`` and SqlDecimal)."""
    if a == T.DOUBLE or b == T.DOUBLE:
        return T.DOUBLE
    if isinstance(a, T.Decimal) or isinstance(b, T.Decimal):
        da, db = T.as_decimal(a), T.as_decimal(b)
        p1, s1, p2, s2 = da.precision, da.scale, db.precision, db.scale
        if op in (B.ArithOp.ADD, B.ArithOp.SUBTRACT):
            s = max(s1, s2)
            p = max(p1 - s1, p2 - s2) + s + 1
        elif op is B.ArithOp.MULTIPLY:
            p, s = p1 + p2 + 1, s1 + s2
        elif op is B.ArithOp.DIVIDE:
            s = max(6, s1 + p2 + 1)
            p = p1 - s1 + s2 + s
        else:
            s = max(s1, s2)
            p = min(p1 - s1, p2 - s2) + s
        return T.Decimal(p, s)
    if a == T.BIGINT or b == T.BIGINT:
        return T.BIGINT
    return T.INTEGER


def _base(t: T.SqlType) -> str:
    return "NULL" if isinstance(t, T.NullType) else t.name


def _null(t: T.SqlType) -> bool:
    return isinstance(t, T.NullType)



def _implicit(e: B.Expr, target: T.SqlType) -> B.Expr:
    """``e`` as ``target`` through an implicit cast (nothing when it already is; a NULL literal retyped)."""
    if e.type == target:
        return e
    if isinstance(e, B.Literal) and e.value is None:
        return B.Literal(None, type=target, pos=e.pos)
    return B.Cast(e, type=target, implicit=True, pos=e.pos)


def _comparable(a: B.Expr, b: B.Expr) -> tuple[B.Expr, B.Expr]:
    """Two comparable operands in the form they are compared in: mixed numbers with a DOUBLE as DOUBLEs,
    a STRING against a time type parsed as that type, DATE against TIMESTAMP as TIMESTAMPs. A DOUBLE against
    a DECIMAL stays as it is: ksqlDB compares the two as BigDecimals (the code generator's business)."""
    ta, tb = a.type, b.type
    if ta == tb or _null(ta) or _null(tb):
        return a, b
    if T.is_numeric(ta) and T.is_numeric(tb):
        if isinstance(ta, T.Decimal) or isinstance(tb, T.Decimal):
            return a, b  # a DOUBLE side becomes BigDecimal.valueOf(d); INT/BIGINT compare exactly
        if T.DOUBLE in (ta, tb):
            return _implicit(a, T.DOUBLE), _implicit(b, T.DOUBLE)
        return a, b  # Python compares int and Decimal exactly
    if ta in _TEMPORAL and tb == T.STRING:
        return a, _implicit(b, ta)
    if tb in _TEMPORAL and ta == T.STRING:
        return _implicit(a, tb), b
    if ta in (T.DATE, T.TIMESTAMP) and tb in (T.DATE, T.TIMESTAMP):
        return _implicit(a, T.TIMESTAMP), _implicit(b, T.TIMESTAMP)
    return a, b


def _negate(v: Any, t: T.SqlType) -> Any:
    """``-v`` as Java computes it: the minimum INT/BIGINT negates to itself."""
    if t == T.INTEGER and v == _INT_RANGE[0]:
        return v
    if t == T.BIGINT and v == _LONG_RANGE[0]:
        return v
    if isinstance(v, PyDecimal):  # BigDecimal.negate(): exact at any precision, no negative zero
        return v.copy_negate() if v else v
    return -v


def _is_generic(t: T.SqlType) -> bool:
    return type(t).__name__ in ("TypeVar", "AnyType")
