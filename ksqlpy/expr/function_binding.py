"""Function resolution: scalar and table functions through the registry (exact types first, then implicit
casts), where table functions are allowed, and lambdas typed from the arguments before them."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.expr import bound as B
from ksqlpy.expr.bind_core import BinderCore
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.stages import BindError, Clause, Phase
from ksqlpy.expr.type_rules import _TEMPORAL, _implicit, _is_generic, _null
from ksqlpy.grammar.ast import FunctionCall

_PREPARING = "Exception while preparing statement: "  # ksqlDB's wording of its sanitizer's errors


class FunctionBinding(BinderCore):
    # ------------------------------------------------------------------ functions
    def _b_FunctionCall(self, node: FunctionCall) -> B.Expr:
        return self._call(node.fname, node.call_args, node)

    def _b_DPipe(self, node: exp.DPipe) -> B.Expr:
        return self._call("CONCAT", [node.this, node.expression], node)

    def _call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        registry = self.ctx.registry
        kind = registry.kind_of(name)
        if kind == "aggregate" and self.clause is Clause.INSERT_VALUE:
            return self._aggregate_value(name, args, node)
        if kind == "aggregate":
            raise BindError(f"Aggregate function {name} is not allowed here: {format_expression(node)}",
                            Phase.ANALYSIS)
        if kind is None:
            raise BindError(f"Can't find any functions with the name '{name}'", Phase.TYPING)
        if kind == "table":
            return self._table_call(name, args, node)
        fn = registry.scalars[name]
        if len(args) == 1 and isinstance(args[0], exp.Star):
            args = []  # f(*) is f() for scalar functions, as in ksqlDB
        bound, resolved, arg_types = self._arguments(fn, name, args)
        return B.Call(B.FunctionRef(B.FunctionKind.SCALAR, name, tuple(arg_types)), tuple(bound),
                      resolved.null_on_null, resolved.deterministic, errors_null=self.ctx.nested_errors_null,
                      type=resolved.return_type, pos=self.pos(node))

    def _aggregate_value(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        """An aggregate call in INSERT VALUES: no analysis looks for aggregates there, ExpressionTypeManager
        types the call by its arguments, and code generation asks the scalar registry for it
        (``getUdfFactory``: "Can't find any functions with the name ..."). From memory of ksqlDB's
        GenericExpressionResolver and CodeGenRunner."""
        for a in args:
            if not isinstance(a, exp.Star | exp.Lambda):
                self.bind(a)
        return self.codegen_error(f"Can't find any functions with the name '{name}'", node,
                                  B.Literal(None, type=T.NULL, pos=self.pos(node)))

    def _table_call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        if not self.table_functions:
            return self._misplaced_table_call(name, args, node)
        if self.in_case:
            raise BindError(f"Table functions cannot be used in CASE: {format_expression(node)}", Phase.ANALYSIS)
        for a in args:
            for inner in a.find_all(FunctionCall):
                if self.ctx.registry.kind_of(inner.fname) == "table":
                    raise BindError(f"Table functions cannot be nested: {name}({inner.fname}())", Phase.ANALYSIS)
        fn = self.ctx.registry.tables[name]
        saved = self.clause
        if saved is Clause.SELECT:  # ksqlDB compiles table function arguments on their own
            self.clause = Clause.TABLE_FUNCTION
        try:
            bound, resolved, arg_types = self._arguments(fn, name, args)
        finally:
            self.clause = saved
        return B.Call(B.FunctionRef(B.FunctionKind.TABLE, name, tuple(arg_types)), tuple(bound),
                      resolved.null_on_null, resolved.deterministic, type=resolved.return_type, pos=self.pos(node))

    def _misplaced_table_call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        """A table function outside the SELECT list (WHERE, GROUP BY, PARTITION BY, HAVING, an aggregate's
        arguments): ksqlDB's analysis looks for table functions in SELECT items only, ExpressionTypeManager
        types the call as the function's result, and only code generation fails - its CodeGenRunner asks the
        scalar registry for the function (``getUdfFactory``: "Can't find any functions with the name ..."),
        worded by the clause's context (``Invalid Predicate: ...``). From memory of ksqlDB's source."""
        bound, resolved, arg_types = self._arguments(self.ctx.registry.tables[name], name, args)
        call = B.Call(B.FunctionRef(B.FunctionKind.TABLE, name, tuple(arg_types)), tuple(bound),
                      resolved.null_on_null, resolved.deterministic, type=resolved.return_type, pos=self.pos(node))
        return self.codegen_error(f"Can't find any functions with the name '{name}'", node, call)

    def _arguments(self, fn: Any, name: str, args: list[exp.Expression]) -> tuple[list[B.Expr], Any, list[T.SqlType]]:
        bound: list[B.Expr | None] = []
        types: list[T.SqlType] = []
        for a in args:
            if isinstance(a, exp.Lambda):
                bound.append(None)
                types.append(T.LambdaType(tuple(T.NULL for _ in a.expressions)))
            else:
                b = self.bind(a)
                bound.append(b)
                types.append(b.type)
        # lambdas: typed once the argument types before them are known
        for i, a in enumerate(args):
            if isinstance(a, exp.Lambda):
                try:
                    params = fn.lambda_params(i, types)
                except KsqlTypeError as e:
                    raise BindError(e.message, Phase.TYPING) from None
                if len(params) != len(a.expressions):
                    try:  # ksqlDB matches a lambda's parameter count with the signatures: no overload fits
                        fn.resolve(types)
                    except KsqlTypeError as e:
                        raise BindError(e.message, Phase.TYPING) from None
                lam = self._lambda(a, name, params)
                bound[i] = lam
                types[i] = lam.type
        try:
            resolved = fn.resolve(types)
        except KsqlTypeError as e:
            raise BindError(e.message, Phase.TYPING) from None
        out: list[B.Expr] = []
        for i, b in enumerate(bound):
            assert b is not None
            pt = resolved.param_types[i] if resolved.param_types and i < len(resolved.param_types) else None
            if pt is not None and not isinstance(b.type, T.LambdaType) and pt != b.type and not _is_generic(pt):
                if b.type == T.STRING and (pt in _TEMPORAL or pt == T.BYTES) or _converts_within(b.type, pt):
                    # ISO strings for temporal arguments, base64 for BYTES ones (also as array elements or
                    # map keys and values): CAST's conversions
                    b = B.Cast(b, type=pt, implicit=True, pos=b.pos)
                elif _null(b.type) or T.can_implicitly_cast(b.type, pt):
                    b = _implicit(b, pt)
            out.append(b)
        return out, resolved, types

    def _lambda(self, node: exp.Lambda, fname: str, params: tuple[T.SqlType, ...]) -> B.Lambda:
        names = [p.name for p in node.expressions]
        if len(params) != len(names):
            raise BindError(f"Lambda for {fname} takes {len(params)} arguments, got {len(names)}", Phase.TYPING)
        for n in names:  # ksqlDB's sanitizer rules for lambda parameters
            if any(n in outer for outer in self.lambdas):
                raise BindError(f"{_PREPARING}Reusing lambda arguments in nested lambda is not allowed",
                                Phase.ANALYSIS)
            if self.scope.lookup(n, None) is not None:
                raise BindError(f"{_PREPARING}Lambda function argument can't be a column name: {n}", Phase.ANALYSIS)
        self.lambdas.append(dict(zip(names, params, strict=True)))
        try:
            body = self.bind(node.this)
        finally:
            self.lambdas.pop()
        return B.Lambda(tuple(names), body, type=T.LambdaType(tuple(params), body.type), pos=self.pos(node))


def _from_string(src: T.SqlType, dst: T.SqlType) -> bool:
    return src == T.STRING and (dst in _TEMPORAL or dst == T.BYTES)


def _converts_within(src: T.SqlType, dst: T.SqlType) -> bool:
    """An ARRAY or MAP argument whose elements reach the parameter's only through the second pass's casts,
    one of them a STRING to a time type or BYTES (ksqlDB's ParamTypes.areCompatible walks elements with
    canImplicitlyCast): the container is converted element-wise, as CAST converts it. Structs never (their
    fields fit without casts)."""
    def fits(a: T.SqlType, b: T.SqlType) -> tuple[bool, bool]:  # (fits, needs a string conversion)
        if a == b or _null(a):
            return True, False
        if isinstance(a, T.Array) and isinstance(b, T.Array):
            return fits(a.element, b.element)
        if isinstance(a, T.Map) and isinstance(b, T.Map):
            (fk, ck), (fv, cv) = fits(a.key, b.key), fits(a.value, b.value)
            return fk and fv, ck or cv
        if _from_string(a, b):
            return True, True
        return T.can_implicitly_cast(a, b) and not isinstance(a, T.Struct), False

    if not isinstance(src, T.Array | T.Map):
        return False
    ok, conversion = fits(src, dst)
    return ok and conversion
