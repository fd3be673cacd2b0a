"""Typed expression compilation: a sqlglot expression tree -> (Python source text, SQL type).

Each expression is type-checked and turned into Python source once per query. The operator code
generator (``ksqlpy.plan.codegen``) pastes these snippets into one fused function per pipeline, so a
record costs a few bytecodes per operator instead of a tree walk. SQL NULL is ``None`` and
propagates; temporaries use walrus assignments so an operand is evaluated once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal as PyDecimal
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError, KsqlTypeError
from ksqlpy.expr import casts
from ksqlpy.functions import default_registry
from ksqlpy.functions.registry import FunctionRegistry, Resolved
from ksqlpy.grammar.ast import Cast, Dereference, FunctionCall, MapConstructor, StructConstructor


@dataclass
class Binding:
    """How generated code reads a column: a Python expression (usually a local variable) and its type."""

    code: str
    type: T.SqlType


@dataclass
class Scope:
    """Column names visible to an expression. Qualified names are ``ALIAS.NAME``."""

    columns: dict[str, Binding] = field(default_factory=dict)
    qualified: dict[str, Binding] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)
    parent: Scope | None = None  # lambdas see the enclosing scope

    def lookup(self, name: str, qualifier: str | None) -> Binding | None:
        if qualifier:
            b = self.qualified.get(f"{qualifier}.{name}")
        else:
            if name in self.ambiguous:
                raise KsqlStatementError(f"Column '{name}' is ambiguous. Could be any of: "
                                         + ", ".join(sorted(k for k in self.qualified if k.endswith('.' + name))))
            b = self.columns.get(name)
        if b is None and self.parent is not None:
            return self.parent.lookup(name, qualifier)
        return b


@dataclass
class Compiled:
    code: str
    type: T.SqlType
    literal: bool = False
    value: Any = None


def _is_simple(code: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|-?\d+(\.\d+)?|'[^'\\]*'|None|True|False", code))


class ExprCompiler:
    """Compiles expressions against a Scope. ``consts`` collects objects the generated code refers to
    by name (function implementations, decimal literals, compiled regexes); pass the same dict as the
    globals of the generated function."""

    def __init__(self, scope: Scope, consts: dict[str, Any] | None = None,
                 registry: FunctionRegistry | None = None, custom_types: dict[str, T.SqlType] | None = None) -> None:
        self.scope = scope
        self.consts: dict[str, Any] = consts if consts is not None else {}
        self.registry = registry or default_registry()
        self.custom_types = custom_types or {}
        self._n = 0
        self.uses_nondeterministic = False
        # Table function calls the generated code has already expanded: id(node) -> binding of one element.
        self.table_function_vars: dict[int, Binding] | None = None
        self.clause: str | None = None  # SELECT / WHERE / ... for "unknown column" messages
        # When set, every function call's code is passed through it (the codegen's per-record slow path
        # wraps calls so one failing call yields NULL without nulling the whole expression).
        self.safe_calls: Callable[[str, str], str] | None = None

    # ------------------------------------------------------------------ helpers
    def const(self, value: Any, hint: str = "c") -> str:
        for k, v in self.consts.items():
            if v is value:
                return k
        self._n += 1
        name = f"_{hint}{len(self.consts)}_{self._n}"
        self.consts[name] = value
        return name

    def tmp(self) -> str:
        self._n += 1
        return f"_t{self._n}"

    def _guard(self, parts: list[Compiled], body: str) -> str:
        """``body`` with NULL propagation over ``parts``; ``body`` uses {0}, {1}... for operand values."""
        names = []
        checks = []
        for p in parts:
            if p.literal and p.value is not None:
                names.append(p.code)
                continue
            if p.literal and p.value is None:
                return "None"
            if _is_simple(p.code):
                names.append(p.code)
                checks.append(f"{p.code} is None")
            else:
                t = self.tmp()
                names.append(t)
                checks.append(f"({t} := {p.code}) is None")
        expr = body.format(*names)
        if not checks:
            return f"({expr})"
        return f"(None if {' or '.join(checks)} else {expr})"

    def coerce(self, c: Compiled, target: T.SqlType) -> Compiled:
        """Implicitly cast ``c`` to ``target`` (numeric widening, NULL typing, container elements)."""
        if c.type == target or isinstance(c.type, T.NullType):
            return Compiled(c.code, target, c.literal, c.value)
        code = casts.cast_code(self, c, target, implicit=True)
        return Compiled(code, target)

    # ------------------------------------------------------------------ entry
    def compile(self, node: exp.Expression) -> Compiled:
        method = getattr(self, f"_c_{type(node).__name__}", None)
        if method is None:
            raise KsqlStatementError(f"Unsupported expression: {node.sql() if hasattr(node, 'sql') else node}")
        return method(node)

    def compile_predicate(self, node: exp.Expression) -> Compiled:
        c = self.compile(node)
        if c.type != T.BOOLEAN and not isinstance(c.type, T.NullType):
            raise KsqlTypeError(f"Type error in WHERE expression: Should evaluate to boolean but is "
                                f"{_sql(node)} ({c.type}) instead.")
        return c

    # ------------------------------------------------------------------ leaves
    def _c_Paren(self, node: exp.Paren) -> Compiled:
        return self.compile(node.this)

    def _c_Column(self, node: exp.Column) -> Compiled:
        if isinstance(node.this, exp.Star):
            raise KsqlStatementError("'*' is only allowed in a SELECT list")
        name = node.this.name if isinstance(node.this, exp.Identifier) else node.name
        qual = node.table or None
        b = self.scope.lookup(name, qual)
        if b is None:
            if name in ("WINDOWSTART", "WINDOWEND") and not qual:
                raise KsqlStatementError(f"Window bounds column {name} can only be used in the SELECT clause of "
                                         "windowed aggregations")
            full = f"{qual}.{name}" if qual else name
            where = f"{self.clause} column" if self.clause else "Column"
            raise KsqlStatementError(f"{where} '{full}' cannot be resolved.")
        return Compiled(b.code, b.type)

    def _c_Identifier(self, node: exp.Identifier) -> Compiled:
        return self._c_Column(exp.Column(this=node))

    def _c_Literal(self, node: exp.Literal) -> Compiled:
        text = node.this
        if node.is_string:
            return Compiled(repr(text), T.STRING, True, text)
        low = text.lower()
        if "e" in low:
            v = float(text)
            return Compiled(repr(v), T.DOUBLE, True, v)
        if "." in text:
            d = PyDecimal(text)
            tup = d.as_tuple()
            scale = max(-tup.exponent, 0)  # type: ignore[operator]
            precision = max(len(tup.digits), scale)
            if precision == scale and d.adjusted() < 0:
                precision = scale + 1 if d == 0 else max(scale, len(tup.digits))
            return Compiled(self.const(d, "d"), T.Decimal(max(precision, 1), scale), True, d)
        v = int(text)
        t = T.INTEGER if -(2**31) <= v < 2**31 else T.BIGINT
        if not -(2**63) <= v < 2**63:
            d = PyDecimal(v)
            return Compiled(self.const(d, "d"), T.Decimal(len(text), 0), True, d)
        return Compiled(repr(v), t, True, v)

    def _c_Boolean(self, node: exp.Boolean) -> Compiled:
        v = bool(node.this)
        return Compiled(repr(v), T.BOOLEAN, True, v)

    def _c_Null(self, node: exp.Null) -> Compiled:
        return Compiled("None", T.NULL, True, None)

    # ------------------------------------------------------------------ arithmetic
    def _c_Neg(self, node: exp.Neg) -> Compiled:
        c = self.compile(node.this)
        if not T.is_numeric(c.type):
            raise KsqlTypeError(f"Unsupported arithmetic: -{c.type}")
        if c.literal and c.value is not None:
            v = -c.value
            code = self.const(v, "d") if isinstance(v, PyDecimal) else repr(v)
            return Compiled(code, c.type, True, v)
        return Compiled(self._guard([c], "-{0}"), c.type)

    def _arith(self, node: exp.Binary, op: str) -> Compiled:
        a, b = self.compile(node.this), self.compile(node.expression)
        ta, tb = a.type, b.type
        if isinstance(ta, T.NullType):
            ta = tb
        if isinstance(tb, T.NullType):
            tb = ta
        if op == "+" and ta == T.STRING and tb == T.STRING:
            return Compiled(self._guard([a, b], "{0} + {1}"), T.STRING)
        if not (T.is_numeric(ta) and T.is_numeric(tb)):
            raise KsqlTypeError(f"Error processing expression: {_sql(node)}. Unsupported arithmetic types. {ta} {tb}")
        rt = _arith_type(op, ta, tb)
        if isinstance(rt, T.Decimal):
            a2, b2 = self.coerce(a, T.as_decimal(ta)), self.coerce(b, T.as_decimal(tb))
            fn = {"+": "_rt.dec_add", "-": "_rt.dec_sub", "*": "_rt.dec_mul", "/": "_rt.dec_div", "%": "_rt.dec_mod"}[op]
            self.consts["_rt"] = _runtime()
            return Compiled(self._guard([a2, b2], fn + "({0}, {1}, " + str(rt.scale) + ")"), rt)
        if rt == T.DOUBLE:
            a2, b2 = self.coerce(a, T.DOUBLE), self.coerce(b, T.DOUBLE)
            if op == "/":
                self.consts["_rt"] = _runtime()
                return Compiled(self._guard([a2, b2], "_rt.ddiv({0}, {1})"), rt)
            if op == "%":
                self.consts["_rt"] = _runtime()
                return Compiled(self._guard([a2, b2], "_rt.dmod({0}, {1})"), rt)
            return Compiled(self._guard([a2, b2], "{0} " + op + " {1}"), rt)
        self.consts["_rt"] = _runtime()
        wrap = "_rt.wrap_int" if rt == T.INTEGER else "_rt.wrap_long"
        if op == "/":
            return Compiled(self._guard([a, b], "_rt.idiv({0}, {1})"), rt)
        if op == "%":
            return Compiled(self._guard([a, b], "_rt.imod({0}, {1})"), rt)
        return Compiled(self._guard([a, b], wrap + "({0} " + op + " {1})"), rt)

    def _c_Add(self, node: exp.Add) -> Compiled:
        return self._arith(node, "+")

    def _c_Sub(self, node: exp.Sub) -> Compiled:
        return self._arith(node, "-")

    def _c_Mul(self, node: exp.Mul) -> Compiled:
        return self._arith(node, "*")

    def _c_Div(self, node: exp.Div) -> Compiled:
        return self._arith(node, "/")

    def _c_Mod(self, node: exp.Mod) -> Compiled:
        return self._arith(node, "%")

    def _c_DPipe(self, node: exp.DPipe) -> Compiled:
        return self._call("CONCAT", [node.this, node.expression], node)

    # ------------------------------------------------------------------ comparison and logic
    def _comparable(self, node: exp.Expression, a: Compiled, b: Compiled,
                    in_list: bool = False) -> tuple[Compiled, Compiled]:
        """Make two operands comparable. String literals coerce to the other side's type (ksqlDB's
        literal coercion: ``ID = '10'``, ``FLAG IN ('true', 'y')``); other mismatches are errors."""
        a = self._coerce_literal(a, b.type, node.this)
        b = self._coerce_literal(b, a.type, node.expression)
        ta, tb = a.type, b.type
        if isinstance(ta, T.NullType) or isinstance(tb, T.NullType) or ta == tb:
            return a, b
        if T.is_numeric(ta) and T.is_numeric(tb):
            if T.DOUBLE in (ta, tb):
                return self.coerce(a, T.DOUBLE), self.coerce(b, T.DOUBLE)
            return a, b  # Python compares int and Decimal exactly
        temporal = (T.TIMESTAMP, T.DATE, T.TIME)
        if ta in temporal and tb == T.STRING:
            return a, casts.cast_compiled(self, b, ta)
        if tb in temporal and ta == T.STRING:
            return casts.cast_compiled(self, a, tb), b
        if ta in (T.TIMESTAMP, T.DATE) and tb in (T.TIMESTAMP, T.DATE):
            return casts.cast_compiled(self, a, T.TIMESTAMP), casts.cast_compiled(self, b, T.TIMESTAMP)
        if ta.name == tb.name == "STRUCT" and _common([ta, tb]) is not None:
            return a, b  # structs of other shapes compare unequal, as in ksqlDB
        if ta.name == tb.name and ta.name in ("ARRAY", "MAP") and (
                T.can_implicitly_cast(ta, tb) or T.can_implicitly_cast(tb, ta)):
            return a, b
        if in_list:
            raise KsqlTypeError(f"operator does not exist: {ta} = {tb} ({_sql(node.expression)})\n"
                                "Hint: You might need to add explicit type casts.")
        raise KsqlTypeError(f"Cannot compare {_sql(node.this)} ({ta}) to {_sql(node.expression)} ({tb}) "
                            f"with {_op_name(node)}.")

    def _coerce_literal(self, c: Compiled, target: T.SqlType, node: exp.Expression | None) -> Compiled:
        """A string literal (or a constructor of them) read as ``target``, as ksqlDB coerces literals."""
        if c.type == target or not isinstance(c.type, (T.Primitive, T.Array, T.Map, T.Struct)):
            return c
        if target == T.STRING and c.literal and c.value is not None and isinstance(c.type, (T.Primitive, T.Decimal)):
            from ksqlpy.expr import javafmt

            text = javafmt.value_str(c.value)
            return Compiled(repr(text), T.STRING, True, text)
        if c.literal and c.type == T.STRING and isinstance(c.value, str):
            v = _parse_literal(c.value, target)
            if v is _NO:
                return c
            if v is None:
                return Compiled("None", target, True, None)
            code = repr(v) if isinstance(v, (bool, int, float)) else self.const(v, "k")
            return Compiled(code, target, True, v)
        if node is None:
            return c
        if isinstance(target, T.Array) and isinstance(node, exp.Array) and isinstance(c.type, T.Array):
            items = [self._coerce_literal(self.compile(e), target.element, e) for e in node.expressions]
            if all(T.can_implicitly_cast(i.type, target.element) for i in items):
                return Compiled("[" + ", ".join(self.coerce(i, target.element).code for i in items) + "]", target)
        if isinstance(target, T.Map) and isinstance(node, MapConstructor) and isinstance(c.type, T.Map):
            ks = [self._coerce_literal(self.compile(k), target.key, k) for k in node.args.get("keys") or []]
            vs = [self._coerce_literal(self.compile(v), target.value, v) for v in node.args.get("values") or []]
            if all(T.can_implicitly_cast(k.type, target.key) for k in ks) and all(
                    T.can_implicitly_cast(v.type, target.value) for v in vs):
                pairs = ", ".join(f"{self.coerce(k, target.key).code}: {self.coerce(v, target.value).code}"
                                  for k, v in zip(ks, vs, strict=True))
                return Compiled("{" + pairs + "}", target)
        if isinstance(target, T.Struct) and isinstance(node, StructConstructor) and isinstance(c.type, T.Struct):
            names = node.args.get("names") or []
            vals = node.args.get("values") or []
            if [n for n, _ in target.fields] == list(names):
                parts = []
                for (n, ft), v in zip(target.fields, vals, strict=True):
                    cv = self._coerce_literal(self.compile(v), ft, v)
                    if not T.can_implicitly_cast(cv.type, ft):
                        return c
                    parts.append(f"{n!r}: {self.coerce(cv, ft).code}")
                return Compiled("{" + ", ".join(parts) + "}", target)
        return c

    def _compare(self, node: exp.Binary, op: str) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        if isinstance(a.type, T.NullType) and isinstance(b.type, T.NullType):
            raise KsqlTypeError(f"Comparison with NULL not supported: NULL {_SQL_OPS[op]} NULL")
        if op in ("<", "<=", ">", ">=") and a.type.name in ("ARRAY", "MAP", "STRUCT", "BOOLEAN") and a.type != T.BOOLEAN:
            raise KsqlTypeError(f"Cannot compare {a.type} with {op}")
        # ksqlDB's comparisons are FALSE, not NULL, when an operand is NULL
        body = self._guard([a, b], "{0} " + op + " {1}")
        if body.startswith("(None if "):
            body = "(False" + body[len("(None"):]
        elif body == "None":
            body = "False"
        return Compiled(body, T.BOOLEAN)

    def _c_EQ(self, node: exp.EQ) -> Compiled:
        return self._compare(node, "==")

    def _c_NEQ(self, node: exp.NEQ) -> Compiled:
        return self._compare(node, "!=")

    def _c_GT(self, node: exp.GT) -> Compiled:
        return self._compare(node, ">")

    def _c_GTE(self, node: exp.GTE) -> Compiled:
        return self._compare(node, ">=")

    def _c_LT(self, node: exp.LT) -> Compiled:
        return self._compare(node, "<")

    def _c_LTE(self, node: exp.LTE) -> Compiled:
        return self._compare(node, "<=")

    def _c_NullSafeEQ(self, node: exp.NullSafeEQ) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        return Compiled(f"({a.code} == {b.code})", T.BOOLEAN)

    def _c_NullSafeNEQ(self, node: exp.NullSafeNEQ) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        return Compiled(f"({a.code} != {b.code})", T.BOOLEAN)

    def _bool(self, node: exp.Expression) -> Compiled:
        c = self.compile(node)
        if c.type != T.BOOLEAN and not isinstance(c.type, T.NullType):
            raise KsqlTypeError(f"Logical operand must be BOOLEAN: {_sql(node)} is {c.type}")
        return c

    def _c_And(self, node: exp.And) -> Compiled:
        a, b = self._bool(node.this), self._bool(node.expression)
        self.consts["_rt"] = _runtime()
        ta = self.tmp()
        # short-circuit on False like Java; NULL AND FALSE is FALSE
        return Compiled(f"(False if ({ta} := {a.code}) is False else _rt.sql_and({ta}, {b.code}))", T.BOOLEAN)

    def _c_Or(self, node: exp.Or) -> Compiled:
        a, b = self._bool(node.this), self._bool(node.expression)
        self.consts["_rt"] = _runtime()
        ta = self.tmp()
        return Compiled(f"(True if ({ta} := {a.code}) is True else _rt.sql_or({ta}, {b.code}))", T.BOOLEAN)

    def _c_Not(self, node: exp.Not) -> Compiled:
        a = self._bool(node.this)
        return Compiled(self._guard([a], "not {0}"), T.BOOLEAN)

    def _c_Is(self, node: exp.Is) -> Compiled:
        a = self.compile(node.this)
        if isinstance(node.expression, exp.Null):
            return Compiled(f"({a.code} is None)", T.BOOLEAN)
        b = self.compile(node.expression)
        return Compiled(f"({a.code} is {b.code})", T.BOOLEAN)

    def _c_In(self, node: exp.In) -> Compiled:
        a = self.compile(node.this)
        items = [self.compile(e) for e in node.expressions]
        pairs = []
        acc = a  # ksqlDB widens the operand's type item by item and reports errors against the widened type
        for e, i in zip(node.expressions, items, strict=True):
            pairs.append(self._comparable(exp.EQ(this=node.this, expression=e), acc, i, in_list=True))
            it = pairs[-1][1].type
            if T.is_numeric(acc.type) and T.is_numeric(it):
                acc = Compiled(acc.code, T.widen_numeric(acc.type, it), acc.literal, acc.value)
        items = [p[1] for p in pairs]
        if pairs:
            a = pairs[0][0]
        t = self.tmp()
        if all(i.literal for i in items):
            vals = [i.value for i in items if i.value is not None]
            try:
                lit = self.const(frozenset(vals), "in")
            except TypeError:
                lit = self.const(tuple(vals), "in")
            return Compiled(f"(None if ({t} := {a.code}) is None else {t} in {lit})", T.BOOLEAN)
        lst = "(" + ", ".join(i.code for i in items) + ",)"
        return Compiled(f"(None if ({t} := {a.code}) is None else {t} in {lst})", T.BOOLEAN)

    def _c_Between(self, node: exp.Between) -> Compiled:
        a = self.compile(node.this)
        lo, hi = self.compile(node.args["low"]), self.compile(node.args["high"])
        a1, lo = self._comparable(exp.GTE(this=node.this, expression=node.args["low"]), a, lo)
        a2, hi = self._comparable(exp.LTE(this=node.this, expression=node.args["high"]), a, hi)
        return Compiled(self._guard([a1, lo, hi], "{1} <= {0} <= {2}"), T.BOOLEAN)

    def _like(self, node: exp.Expression, escape: str | None) -> Compiled:
        a = self.compile(node.this)
        p = self.compile(node.expression)
        if a.type != T.STRING and not isinstance(a.type, T.NullType):
            raise KsqlTypeError(f"LIKE requires a STRING operand, got {a.type}")
        rt = _runtime()
        if p.literal:
            if p.value is None:
                return Compiled("None", T.BOOLEAN)
            rx = self.const(re.compile(rt.like_regex(p.value, escape)), "re")
            return Compiled(self._guard([a], rx + ".match({0}) is not None"), T.BOOLEAN)
        self.consts["_rt"] = rt
        self.consts["_re"] = re
        esc = repr(escape)
        return Compiled(self._guard([a, p], "_re.match(_rt.like_regex({1}, " + esc + "), {0}) is not None"), T.BOOLEAN)

    def _c_Like(self, node: exp.Like) -> Compiled:
        return self._like(node, None)

    def _c_Escape(self, node: exp.Escape) -> Compiled:
        like = node.this
        esc = self.compile(node.expression)
        if not esc.literal or not isinstance(esc.value, str) or len(esc.value) != 1:
            raise KsqlStatementError("LIKE ESCAPE must be a single character literal")
        return self._like(like, esc.value)

    # ------------------------------------------------------------------ conditional
    def _c_Case(self, node: exp.Case) -> Compiled:
        conds = []
        values = []
        for i in node.args.get("ifs") or []:
            c = self.compile(i.this)
            if c.type != T.BOOLEAN and not isinstance(c.type, T.NullType):
                raise KsqlTypeError(f"WHEN operand type should be boolean. Type for '{_sql(i.this)}' is {c.type}")
            conds.append(c)
            values.append(self.compile(i.args["true"]))
        default = node.args.get("default")
        dv = self.compile(default) if default is not None else Compiled("None", T.NULL, True, None)
        rt = T.common_type([v.type for v in values] + [dv.type])
        if rt is None:
            raise KsqlTypeError("Invalid Case expression. Type for all 'THEN' clauses should be the same."
                                f" THEN expression '{_sql(node.args['ifs'][0].args['true'])}' has type: {values[0].type}.")
        code = self.coerce(dv, rt).code
        for c, v in zip(reversed(conds), reversed(values), strict=True):
            code = f"({self.coerce(v, rt).code} if {c.code} else {code})"
        return Compiled(code, rt)

    def _c_If(self, node: exp.If) -> Compiled:
        return self._c_Case(exp.Case(ifs=[node], default=node.args.get("false")))

    # ------------------------------------------------------------------ casts and structures
    def _c_Cast(self, node: Cast) -> Compiled:
        target = self.resolve_type(node.args["to"])
        c = self.compile(node.this)
        return casts.cast_compiled(self, c, target)

    def resolve_type(self, t: T.SqlType) -> T.SqlType:
        """Replace custom type names (CREATE TYPE) inside ``t``."""
        from ksqlpy.grammar.ast import TypeName

        if isinstance(t, TypeName):
            found = self.custom_types.get(t.type_name)
            if found is None:
                raise KsqlStatementError(f"Unknown type: {t.type_name}")
            return found
        if isinstance(t, T.Array):
            return T.Array(self.resolve_type(t.element))
        if isinstance(t, T.Map):
            return T.Map(self.resolve_type(t.key), self.resolve_type(t.value))
        if isinstance(t, T.Struct):
            return T.Struct(tuple((n, self.resolve_type(ft)) for n, ft in t.fields))
        return t

    def _c_Dereference(self, node: Dereference) -> Compiled:
        base = self.compile(node.this)
        name = node.args["field"]
        if not isinstance(base.type, T.Struct):
            raise KsqlTypeError(f"Can't find field {name} in non-struct type {base.type}")
        ft = base.type.field(name)
        if ft is None:
            raise KsqlStatementError(f"Could not find field '{name}' in '{_sql(node.this)}'.")
        return Compiled(self._guard([base], "{0}.get(" + repr(name) + ")"), ft)

    def _c_Bracket(self, node: exp.Bracket) -> Compiled:
        base = self.compile(node.this)
        idx = self.compile(node.expressions[0])
        if isinstance(base.type, T.Array):
            if not T.is_integral(idx.type):
                raise KsqlTypeError(f"Array index must be INT or BIGINT, got {idx.type}")
            self.consts["_rt"] = _runtime()
            return Compiled(self._guard([base, idx], "_rt.array_index({0}, {1})"), base.type.element)
        if isinstance(base.type, T.Map):
            idx = self.coerce(idx, base.type.key) if T.can_implicitly_cast(idx.type, base.type.key) else idx
            return Compiled(self._guard([base, idx], "{0}.get({1})"), base.type.value)
        raise KsqlTypeError(f"Subscript expression requires an ARRAY or MAP, got {base.type}")

    def unify(self, items: list[Compiled]) -> tuple[T.SqlType, list[Compiled]]:
        """The element type of a constructor (ARRAY[...], MAP keys/values) and the items cast to it.

        As ksqlDB does: the type comes from the non-literal items (structs merge their fields), literals
        then coerce to it ('10' -> 10, 10 -> '10', 'yes' -> true); numeric strings may widen it to DECIMAL.
        """
        exprs = [i for i in items if not i.literal and not isinstance(i.type, T.NullType)]
        lits = [i for i in items if i.literal and i.value is not None]
        base = _common([i.type for i in exprs]) if exprs else None
        if base is None and exprs:
            raise KsqlTypeError("invalid input syntax for type ARRAY: elements must share a type: "
                                + ", ".join(str(i.type) for i in items))
        if base is None:
            non_str = [i.type for i in lits if i.type != T.STRING]
            base = _common(non_str) if non_str else (T.STRING if lits else T.NULL)
            if base is None:
                base = T.STRING
        if T.is_numeric(base):
            for i in lits:
                if i.type == T.STRING and isinstance(i.value, str):
                    v = _parse_literal(i.value, base)
                    if isinstance(v, PyDecimal) or "e" in i.value.lower() or "." in i.value:
                        d = PyDecimal(i.value.strip())
                        scale = max(-d.as_tuple().exponent, 0)  # type: ignore[operator]
                        base = T.widen_numeric(base, T.Decimal(max(len(d.as_tuple().digits), scale, 1), scale))
        out = []
        for i in items:
            c = self._coerce_literal(i, base, None) if i.literal else i
            if not isinstance(c.type, T.NullType) and not T.can_implicitly_cast(c.type, base):
                if isinstance(base, T.Struct) and isinstance(c.type, T.Struct):
                    out.append(Compiled(self._struct_widen(c, base), base))
                    continue
                raise KsqlTypeError(f"invalid input syntax for type {base}: {c.code}")
            out.append(self.coerce(c, base) if not isinstance(c.type, T.NullType) else Compiled("None", base, True))
        return base, out

    def _struct_widen(self, c: Compiled, target: T.Struct) -> str:
        names = [n for n, _ in target.fields]
        t = self.tmp()
        return f"(None if ({t} := {c.code}) is None else {{n: {t}.get(n) for n in {names!r}}})"

    def _c_Array(self, node: exp.Array) -> Compiled:
        items = [self.compile(e) for e in node.expressions]
        if not items:
            raise KsqlStatementError("Array constructor cannot be empty. Please supply at least one element (see "
                                     "https://github.com/confluentinc/ksql/issues/4239).")
        et, cast = self.unify(items)
        if isinstance(et, T.NullType):
            raise KsqlStatementError("Cannot construct an array with all NULL elements (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL value to the desired type.")
        return Compiled("[" + ", ".join(c.code for c in cast) + "]", T.Array(et))

    def _c_MapConstructor(self, node: MapConstructor) -> Compiled:
        keys = [self.compile(k) for k in node.args.get("keys") or []]
        vals = [self.compile(v) for v in node.args.get("values") or []]
        if not keys:
            raise KsqlStatementError("Map constructor cannot be empty. Please supply at least one key value pair "
                                     "(see https://github.com/confluentinc/ksql/issues/4239).")
        kt, kc = self.unify(keys)
        vt, vc = self.unify(vals)
        if isinstance(kt, T.NullType):
            raise KsqlStatementError("Cannot construct a map with all NULL keys (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL key to the desired type.")
        if isinstance(vt, T.NullType):
            raise KsqlStatementError("Cannot construct a map with all NULL values (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL value to the desired type.")
        pairs = ", ".join(f"{k.code}: {v.code}" for k, v in zip(kc, vc, strict=True))
        return Compiled("{" + pairs + "}", T.Map(kt, vt))

    def _c_StructConstructor(self, node: StructConstructor) -> Compiled:
        names = node.args.get("names") or []
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise KsqlStatementError(f"Duplicate field names found in STRUCT: '{dup}'")
        vals = [self.compile(v) for v in node.args.get("values") or []]
        fields = []
        parts = []
        for n, v in zip(names, vals, strict=True):
            vt = v.type if not isinstance(v.type, T.NullType) else T.STRING
            fields.append((n, vt))
            parts.append(f"{n!r}: {v.code}")
        return Compiled("{" + ", ".join(parts) + "}", T.Struct(tuple(fields)))

    def _c_IntervalUnit(self, node: exp.Expression) -> Compiled:
        """A bare time unit keyword (``DATEADD(DAYS, ...)``): its name, typed as an interval unit."""
        from ksqlpy.functions.datetime import INTERVAL_UNIT

        unit = str(node.args.get("unit") or node.this).upper()
        return Compiled(repr(unit), INTERVAL_UNIT, True, unit)

    def _c_AtTimeZone(self, node: exp.AtTimeZone) -> Compiled:
        raise KsqlStatementError("Unsupported: AT TIME ZONE")

    # ------------------------------------------------------------------ functions
    def _c_FunctionCall(self, node: FunctionCall) -> Compiled:
        return self._call(node.fname, node.call_args, node)

    def resolve_table_function(self, node: FunctionCall) -> Resolved:
        """Resolve a UDTF call; its arguments compile in the current scope."""
        fn = self.registry.tables[node.fname]
        args = [self.compile(a) for a in node.call_args]
        return fn.resolve([a.type for a in args])

    def _c_Lambda(self, node: exp.Lambda) -> Compiled:
        raise KsqlStatementError("A lambda is only allowed as a function argument")

    def _call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> Compiled:
        kind = self.registry.kind_of(name)
        if kind == "aggregate":
            raise KsqlStatementError(f"Aggregate function {name} is not allowed here: {_sql(node)}")
        if kind == "table":
            if self.table_function_vars is None:
                raise KsqlStatementError(f"Table functions are only supported in the SELECT list: {_sql(node)}")
            b = self.table_function_vars.get(id(node))
            if b is None:
                resolved = self.resolve_table_function(node)  # type: ignore[arg-type]
                b = Binding("None", resolved.return_type)
            return Compiled(b.code, b.type)
        if kind is None:
            raise KsqlStatementError(f"Can't find any functions with the name '{name}'")
        fn = self.registry.scalars[name]
        if len(args) == 1 and isinstance(args[0], exp.Star):
            args = []  # f(*) is f() for scalar functions, as in ksqlDB
        compiled: list[Compiled | None] = []
        types: list[T.SqlType] = []
        for a in args:
            if isinstance(a, exp.Lambda):
                compiled.append(None)
                types.append(T.LambdaType(tuple(T.NULL for _ in a.expressions)))
            else:
                c = self.compile(a)
                compiled.append(c)
                types.append(c.type)
        # lambdas: type their bodies once the argument types before them are known
        for i, a in enumerate(args):
            if isinstance(a, exp.Lambda):
                params = fn.lambda_params(i, types)
                names = [p.name for p in a.expressions]
                if len(params) != len(names):
                    raise KsqlTypeError(f"Lambda for {name} takes {len(params)} arguments, got {len(names)}")
                pvars = [f"_l{self._n}_{j}" for j in range(len(names))]
                self._n += 1
                inner = Scope({n: Binding(v, t) for n, v, t in zip(names, pvars, params, strict=True)}, parent=self.scope)
                saved = self.scope
                self.scope = inner
                try:
                    body = self.compile(a.this)
                finally:
                    self.scope = saved
                compiled[i] = Compiled(f"(lambda {', '.join(pvars)}: {body.code})", T.LambdaType(tuple(params), body.type))
                types[i] = compiled[i].type  # type: ignore[union-attr]
        resolved: Resolved = fn.resolve(types)
        if not resolved.deterministic:
            self.uses_nondeterministic = True
        impl = self.const(resolved.impl, "f")
        parts: list[Compiled] = []
        for i, c in enumerate(compiled):
            assert c is not None
            pt = resolved.param_types[i] if resolved.param_types and i < len(resolved.param_types) else None
            if pt is not None and not isinstance(c.type, T.LambdaType) and pt != c.type and not _is_generic(pt):
                if c.type == T.STRING and pt in (T.DATE, T.TIME, T.TIMESTAMP):
                    c = casts.cast_compiled(self, c, pt)  # functions accept ISO strings for temporal arguments
                else:
                    try:
                        c = self.coerce(c, pt)
                    except _COERCE_ERRORS:
                        pass
            parts.append(c)
        if resolved.null_on_null and parts:
            body = impl + "(" + ", ".join("{" + str(i) + "}" for i in range(len(parts))) + ")"
            code = self._guard(parts, body)
        else:
            code = impl + "(" + ", ".join(p.code for p in parts) + ")"
        if self.safe_calls is not None:
            # slow path: a failing call is NULL on its own (ksqlDB catches errors per function invocation)
            code = self.safe_calls(name, code)
        return Compiled(code, resolved.return_type)


_COERCE_ERRORS = (KsqlStatementError, KsqlTypeError, TypeError)


_NO = object()
_SQL_OPS = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _common(types: list[T.SqlType]) -> T.SqlType | None:
    """common_type, with structs merged field-wise (ksqlDB widens STRUCTs to the union of their fields)."""
    structs = [t for t in types if isinstance(t, T.Struct)]
    if structs and len(structs) == len([t for t in types if not isinstance(t, T.NullType)]):
        fields: dict[str, T.SqlType] = {}
        for st in structs:
            for n, ft in st.fields:
                if n in fields:
                    merged = _common([fields[n], ft])
                    if merged is None:
                        return None
                    fields[n] = merged
                else:
                    fields[n] = ft
        return T.Struct(tuple(fields.items()))
    return T.common_type(types)


def _parse_literal(text: str, target: T.SqlType) -> Any:
    """A string literal's value as ``target`` (ksqlDB's literal coercion); ``_NO`` when not applicable."""
    s = text.strip()
    if target == T.BOOLEAN:
        low = s.lower()
        if low and ("true".startswith(low) or "yes".startswith(low)):
            return True
        if low and ("false".startswith(low) or "no".startswith(low)):
            return False
        raise KsqlTypeError(f'invalid input syntax for type BOOLEAN: "{text}".')
    if T.is_numeric(target):
        try:
            d = PyDecimal(s)
        except Exception:  # noqa: BLE001
            d = None
        if d is None or not d.is_finite():
            name = "DECIMAL" if isinstance(target, T.Decimal) else str(target)
            raise KsqlTypeError(f'invalid input syntax for type {name}: "{text}".')
        if target == T.DOUBLE:
            return float(d)
        if isinstance(target, T.Decimal):
            return d
        if d == d.to_integral_value():
            return int(d)
        return d
    return _NO


def _is_generic(t: T.SqlType) -> bool:
    return type(t).__name__ in ("TypeVar", "AnyType")


def _arith_type(op: str, a: T.SqlType, b: T.SqlType) -> T.SqlType:
    if a == T.DOUBLE or b == T.DOUBLE:
        return T.DOUBLE
    if isinstance(a, T.Decimal) or isinstance(b, T.Decimal):
        da, db = T.as_decimal(a), T.as_decimal(b)
        p1, s1, p2, s2 = da.precision, da.scale, db.precision, db.scale
        if op in "+-":
            s = max(s1, s2)
            p = max(p1 - s1, p2 - s2) + s + 1
        elif op == "*":
            p, s = p1 + p2 + 1, s1 + s2
        elif op == "/":
            s = max(6, s1 + p2 + 1)
            p = p1 - s1 + s2 + s
        else:
            s = max(s1, s2)
            p = min(p1 - s1, p2 - s2) + s
        return T.Decimal(min(p, 38), min(s, 38))
    if a == T.BIGINT or b == T.BIGINT:
        return T.BIGINT
    return T.INTEGER


def _runtime():  # type: ignore[no-untyped-def]
    from ksqlpy.expr import runtime

    return runtime


def _sql(node: Any) -> str:
    from ksqlpy.expr.format import format_expression

    try:
        return format_expression(node)
    except Exception:  # noqa: BLE001 - best-effort text for messages
        return str(node)


def _op_name(node: exp.Expression) -> str:
    return {"EQ": "EQUAL", "NEQ": "NOT_EQUAL", "GT": "GREATER_THAN", "GTE": "GREATER_THAN_OR_EQUAL",
            "LT": "LESS_THAN", "LTE": "LESS_THAN_OR_EQUAL"}.get(type(node).__name__, type(node).__name__)
