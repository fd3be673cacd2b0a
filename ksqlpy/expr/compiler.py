"""Typed expression compilation: a sqlglot expression tree -> (Python source text, SQL type).

Each expression is type-checked and turned into Python source once per query. The operator code
generator (``ksqlpy.plan.codegen``) pastes these snippets into one fused function per pipeline, so a
record costs a few bytecodes per operator instead of a tree walk. SQL NULL is ``None`` and
propagates; temporaries use walrus assignments so an operand is evaluated once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal as PyDecimal
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import (
    KsqlError,
    KsqlExpressionError,
    KsqlStatementError,
    KsqlTypeError,
    at,
    location_within,
)
from ksqlpy.expr import casts
from ksqlpy.expr.coercion import CoercionMixin
from ksqlpy.expr.compiled import Binding, Compiled, Scope, is_constant, is_simple
from ksqlpy.expr.constructors import ConstructorMixin
from ksqlpy.expr.predicates import PredicateMixin
from ksqlpy.functions.registry import FunctionRegistry, Resolved
from ksqlpy.grammar.ast import Cast, FunctionCall


class ExprCompiler(PredicateMixin, CoercionMixin, ConstructorMixin):
    """Compiles expressions against a Scope. ``consts`` collects objects the generated code refers to
    by name (function implementations, decimal literals, compiled regexes); pass the same dict as the
    globals of the generated function."""

    def __init__(self, scope: Scope, consts: dict[str, Any] | None = None, *, registry: FunctionRegistry,
                 custom_types: Mapping[str, T.SqlType] | None = None) -> None:
        self.scope = scope
        self.consts: dict[str, Any] = consts if consts is not None else {}
        self.registry = registry  # the engine's (ksqlpy.session_state): calls resolve against it
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

    def _guard(self, parts: list[Compiled], body: str, null: str = "None") -> str:
        """``body`` with NULL propagation over ``parts``; ``body`` uses {0}, {1}... for operand values.
        ``null``: the code a NULL operand yields (default NULL)."""
        names = []
        checks = []
        for p in parts:
            if p.literal and p.value is not None:
                names.append(p.code)
                continue
            if p.literal and p.value is None:
                return null if null == "None" else f"({null})"
            if is_constant(p.code):  # a literal that lost its flag in a coercion: never NULL
                names.append(p.code)
                continue
            if is_simple(p.code):
                names.append(p.code)
                checks.append(f"{p.code} is None")
            else:
                t = self.tmp()
                names.append(t)
                checks.append(f"({t} := {p.code}) is None")
        expr = body.format(*names)
        if not checks:
            return f"({expr})"
        return f"({null} if {' or '.join(checks)} else {expr})"

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
        try:
            return method(node)
        except KsqlError as e:  # the innermost placed expression an error comes from says where it is
            if e.location is None:
                e.location = location_within(node)
            raise

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
        try:
            b = self.scope.lookup(name, qual)
        except KsqlStatementError as e:  # ambiguous: say where the reference is
            raise KsqlStatementError(at(node, e.message)) from None
        if b is None:
            if name in ("WINDOWSTART", "WINDOWEND") and not qual:
                raise KsqlStatementError(at(node, f"Window bounds column {name} can only be used in the SELECT "
                                                  "clause of windowed aggregations"))
            full = f"{qual}.{name}" if qual else name
            where = f"{self.clause} column" if self.clause else "Column"
            raise KsqlStatementError(at(node, f"{where} '{full}' cannot be resolved."))
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
        if isinstance(ta, T.NullType) or isinstance(tb, T.NullType):
            # ksqlDB rejects arithmetic on a bare NULL instead of typing it from the other side
            names = ["null" if isinstance(t, T.NullType) else str(t) for t in (ta, tb)]
            raise KsqlExpressionError(f"Error processing expression: {_sql(node)}. Arithmetic on types {names[0]} "
                                      f"and {names[1]} are not supported.")
        if op == "+" and ta == T.STRING and tb == T.STRING:
            return Compiled(self._guard([a, b], "{0} + {1}"), T.STRING)
        if not (T.is_numeric(ta) and T.is_numeric(tb)):
            raise KsqlTypeError(f"Error processing expression: {_sql(node)}. Unsupported arithmetic types. {ta} {tb}")
        rt = _arith_type(op, ta, tb)
        # Inside a lambda, ksqlDB's generated Java unboxes the operands: a NULL one fails the whole
        # expression (TRANSFORM(a, x => x + 5) is NULL when an element is NULL), so it raises here too.
        null = "None"
        if self.scope.parent is not None:
            self.consts["_rt"] = _runtime()
            null = "_rt.null_operand_in_lambda()"
        if isinstance(rt, T.Decimal):
            a2, b2 = self.coerce(a, T.as_decimal(ta)), self.coerce(b, T.as_decimal(tb))
            fn = {"+": "_rt.dec_add", "-": "_rt.dec_sub", "*": "_rt.dec_mul", "/": "_rt.dec_div", "%": "_rt.dec_mod"}[op]
            self.consts["_rt"] = _runtime()
            return Compiled(self._guard([a2, b2], fn + "({0}, {1}, " + str(rt.scale) + ")", null), rt)
        if rt == T.DOUBLE:
            a2, b2 = self.coerce(a, T.DOUBLE), self.coerce(b, T.DOUBLE)
            if op == "/":
                self.consts["_rt"] = _runtime()
                return Compiled(self._guard([a2, b2], "_rt.ddiv({0}, {1})", null), rt)
            if op == "%":
                self.consts["_rt"] = _runtime()
                return Compiled(self._guard([a2, b2], "_rt.dmod({0}, {1})", null), rt)
            return Compiled(self._guard([a2, b2], "{0} " + op + " {1}", null), rt)
        self.consts["_rt"] = _runtime()
        wrap = "_rt.wrap_int" if rt == T.INTEGER else "_rt.wrap_long"
        if op in "/%" and b.literal and type(b.value) is int and b.value > 0:
            # a positive literal divisor: Java's truncating division and remainder inlined (no call, no
            # zero or overflow case); same results as _rt.idiv / _rt.imod
            body = ("({0} // {1} if {0} >= 0 else -(-{0} // {1}))" if op == "/"
                    else "({0} % {1} if {0} >= 0 else -(-{0} % {1}))")
            return Compiled(self._guard([a, b], body, null), rt)  # (_guard names a computed operand once)
        if op == "/":
            return Compiled(self._guard([a, b], "_rt.idiv({0}, {1})", null), rt)
        if op == "%":
            return Compiled(self._guard([a, b], "_rt.imod({0}, {1})", null), rt)
        # Java's wrap-around inlined: a range check on the result, the call only on overflow
        lo, hi = (-(2**31), 2**31 - 1) if rt == T.INTEGER else (-(2**63), 2**63 - 1)
        w = self.tmp()
        body = f"({w} if {lo} <= ({w} := {{0}} {op} {{1}}) <= {hi} else {wrap}({w}))"
        return Compiled(self._guard([a, b], body, null), rt)

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
