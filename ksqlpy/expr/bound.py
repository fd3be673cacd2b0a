"""The bound expression IR: what an expression means once names, types and overloads are resolved.

The binder (``ksqlpy.expr.binder``) turns a parsed sqlglot tree into these nodes; everything after
analysis - code generation, printing, equality, constant folding, the plan the Spark backfill pickles -
works on them and never on sqlglot. Nodes are frozen dataclasses holding only plain values (SQL types,
Python values, tuples of nodes), so they are hashable, picklable and compare structurally:

- every node carries its SQL ``type`` and the source ``pos`` (line, column) it was bound from; ``pos``
  takes no part in equality, so ``T.A + 1`` and ``A + 1`` over the same row are the same expression;
- a column is a position in the row the expression is evaluated over (``ColumnRef.index``); its name is
  kept for printing only by the row's schema (it is part of equality, as the name of that position);
- a function call names its function and the argument types it was resolved for: that pair identifies
  the overload, so a code generator in another process finds the implementation in its own registry
  (``FunctionRef.resolve``);
- implicit conversions the typing rules require are explicit ``Cast(implicit=True)`` nodes: code
  generation never re-derives a typing rule, and printing leaves them out, as ksqlDB prints what was
  written.

The value of a node at run time follows ``ksqlpy.types`` (DATE = days, TIMESTAMP = epoch ms, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any

from ksqlpy import types as T
from ksqlpy.expr.printer import format_bound
from ksqlpy.functions.registry import FunctionRegistry, Resolved

Position = tuple[int, int]


class ArithOp(Enum):
    ADD = "+"
    SUBTRACT = "-"
    MULTIPLY = "*"
    DIVIDE = "/"
    MODULUS = "%"


class CmpOp(Enum):
    """Comparison operators; ``value`` is the SQL symbol, ``name`` ksqlDB's name for it in messages."""

    EQUAL = "="
    NOT_EQUAL = "<>"
    LESS_THAN = "<"
    LESS_THAN_OR_EQUAL = "<="
    GREATER_THAN = ">"
    GREATER_THAN_OR_EQUAL = ">="
    IS_DISTINCT_FROM = "IS DISTINCT FROM"
    IS_NOT_DISTINCT_FROM = "IS NOT DISTINCT FROM"

    @property
    def is_equality(self) -> bool:
        """``=``, ``<>`` and IS [NOT] DISTINCT FROM: the only operators BOOLEAN and containers allow."""
        return self in _EQUALITY

    @property
    def null_safe(self) -> bool:
        return self in (CmpOp.IS_DISTINCT_FROM, CmpOp.IS_NOT_DISTINCT_FROM)


_EQUALITY = frozenset({CmpOp.EQUAL, CmpOp.NOT_EQUAL, CmpOp.IS_DISTINCT_FROM, CmpOp.IS_NOT_DISTINCT_FROM})


class LogicOp(Enum):
    AND = "AND"
    OR = "OR"


class FunctionKind(Enum):
    SCALAR = "scalar"
    TABLE = "table"


@dataclass(frozen=True)
class FunctionRef:
    """Which overload a call resolved to: the function and the argument types it was resolved for.

    Resolution is deterministic, so ``resolve`` against any registry holding the same function gives the
    same overload (and the same implementation built for those types)."""

    kind: FunctionKind
    name: str
    arg_types: tuple[T.SqlType, ...]

    def resolve(self, registry: FunctionRegistry) -> Resolved:
        table = registry.tables if self.kind is FunctionKind.TABLE else registry.scalars
        return table[self.name].resolve(list(self.arg_types))


# --------------------------------------------------------------------------- nodes


@dataclass(frozen=True, kw_only=True)
class Expr:
    """Base of every bound node. Child nodes live in fields holding an ``Expr``, or tuples (of tuples)
    of them; ``children`` and ``transform`` find them generically."""

    type: T.SqlType
    pos: Position | None = field(default=None, compare=False, repr=False)

    def children(self) -> tuple[Expr, ...]:
        out: list[Expr] = []
        for f in fields(self):
            _collect(getattr(self, f.name), out)
        return tuple(out)

    def walk(self) -> Iterator[Expr]:
        """This node and every node below it, depth first, left to right. An explicit stack: nested
        ``yield from`` costs each node its depth, quadratic on a chain of a thousand operators."""
        stack: list[Expr] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def transform(self, fn: Callable[[Expr], Expr]) -> Expr:
        """Bottom-up rewrite: children first, then ``fn`` on the rebuilt node."""
        changes = {}
        for f in fields(self):
            if f.name in ("type", "pos"):
                continue
            v = getattr(self, f.name)
            nv = _rebuild(v, fn)
            if nv is not v:
                changes[f.name] = nv
        node = replace(self, **changes) if changes else self
        return fn(node)

    def __str__(self) -> str:
        return format_bound(self)


def _collect(v: Any, out: list[Expr]) -> None:
    if isinstance(v, Expr):
        out.append(v)
    elif isinstance(v, tuple):
        for x in v:
            _collect(x, out)


def _rebuild(v: Any, fn: Callable[[Expr], Expr]) -> Any:
    if isinstance(v, Expr):
        return v.transform(fn)
    if isinstance(v, tuple) and v:
        items = [_rebuild(x, fn) for x in v]
        if any(a is not b for a, b in zip(items, v, strict=True)):
            return tuple(items)
    return v


@dataclass(frozen=True)
class ColumnRef(Expr):
    """The value of column ``index`` of the row the expression is evaluated over. ``display``: how the
    column reads in messages when that is not its name (an aggregate's internal column prints as the
    call it holds, ``COUNT(*)``)."""

    index: int
    name: str
    display: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LambdaVar(Expr):
    """A parameter of an enclosing ``Lambda``."""

    name: str


@dataclass(frozen=True)
class Literal(Expr):
    """A constant: ``value`` in the Python representation of ``type`` (None is SQL NULL). ``shown``: the
    literal as written when a list coercion changed its type (``'2'`` in ``ARRAY[1, '2']``), or as its BigDecimal
    prints (``DECIMAL '1e3'``: ``1E+3``)."""

    value: Any
    shown: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Call(Expr):
    """A scalar or table function call; implicit argument casts are already ``Cast`` nodes in ``args``."""

    fn: FunctionRef
    args: tuple[Expr, ...]
    null_on_null: bool = False  # NULL for any NULL argument, without calling the implementation
    deterministic: bool = True
    errors_null: bool = True  # ksql.nested.error.set.null: a failing call is NULL alone (else it fails around it)



@dataclass(frozen=True)
class Cast(Expr):
    """Conversion of ``operand`` to ``type``: written ``CAST(x AS T)``, or ``implicit`` when a typing
    rule inserted it (numeric widening, a string compared with a time, list coercion...)."""

    operand: Expr
    implicit: bool = False
    null_as_text: bool = False  # ksql.cast.strings.preserve.nulls=false: a NULL cast to STRING is 'null'
    errors_null: bool = True  # ksql.nested.error.set.null: a failing CAST is NULL alone (else it fails around it)



@dataclass(frozen=True)
class Arithmetic(Expr):
    """``left op right``; numeric operands are already cast to the type the operation is computed in
    (for DECIMAL: each side's own DECIMAL form; the result is quantized to ``type``'s scale)."""

    op: ArithOp
    left: Expr
    right: Expr



@dataclass(frozen=True)
class Negate(Expr):
    operand: Expr


@dataclass(frozen=True)
class UnaryPlus(Expr):
    """``+operand``: the operand's value (a NULL one fails the expression, as Java's unboxing does)."""

    operand: Expr



@dataclass(frozen=True)
class Comparison(Expr):
    """``left op right``, operands already made comparable (a DOUBLE side, a TIMESTAMP for DATE vs
    TIMESTAMP, a parsed time for STRING vs a time type). FALSE, not NULL, when an operand is NULL."""

    op: CmpOp
    left: Expr
    right: Expr



@dataclass(frozen=True)
class Logical(Expr):
    op: LogicOp
    left: Expr
    right: Expr



@dataclass(frozen=True)
class Not(Expr):
    operand: Expr



@dataclass(frozen=True)
class IsNull(Expr):
    """``operand IS NULL`` (``negated``: IS NOT NULL)."""

    operand: Expr
    negated: bool = False



@dataclass(frozen=True)
class Between(Expr):
    """``operand BETWEEN low AND high``, each bound already comparable with the operand."""

    operand: Expr
    low: Expr
    high: Expr



@dataclass(frozen=True)
class InList(Expr):
    """``operand IN (items)``. ``items`` are as written (for printing); ``tests`` hold, per non-NULL item,
    the type the operand is compared as and the item made comparable with it (ksqlDB compares each item
    with the operand in the type the two have in common; literals are coerced to the list's type)."""

    operand: Expr
    items: tuple[Expr, ...]
    tests: tuple[tuple[T.SqlType, Expr], ...]


@dataclass(frozen=True)
class Like(Expr):
    operand: Expr
    pattern: Expr
    escape: str | None = None



@dataclass(frozen=True)
class Subscript(Expr):
    """``base[index]``: 1-based array element (negative from the end) or map value."""

    base: Expr
    index: Expr



@dataclass(frozen=True)
class Dereference(Expr):
    """``base->field`` of a STRUCT."""

    base: Expr
    field: str



@dataclass(frozen=True)
class ArrayCtor(Expr):
    items: tuple[Expr, ...]
    element_errors_null: bool = True  # ksql.nested.error.set.null: a failing element is NULL alone



@dataclass(frozen=True)
class MapCtor(Expr):
    entries: tuple[tuple[Expr, Expr], ...]
    element_errors_null: bool = True  # ksql.nested.error.set.null: a failing element is NULL alone



@dataclass(frozen=True)
class StructCtor(Expr):
    fields: tuple[tuple[str, Expr], ...]
    element_errors_null: bool = True  # ksql.nested.error.set.null: a failing element is NULL alone



@dataclass(frozen=True)
class Case(Expr):
    """Searched CASE: the first WHEN that is TRUE gives the value; else ``default`` (NULL if absent).
    Branch values are already of ``type``."""

    whens: tuple[tuple[Expr, Expr], ...]
    default: Expr | None = None



@dataclass(frozen=True)
class Lambda(Expr):
    """``(params) => body``, typed ``LambdaType(param types, body type)``."""

    params: tuple[str, ...]
    body: Expr


def columns_used(e: Expr) -> set[int]:
    """Indexes of the row columns ``e`` reads."""
    return {n.index for n in e.walk() if isinstance(n, ColumnRef)}

