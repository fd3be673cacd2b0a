"""The binder's plumbing: its state while binding one expression, dispatch by node type (``_b_<Node>``
methods of the rule classes mixed into ``ksqlpy.expr.binder._Binder``), code-generation errors held for
later, and source positions."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlError, location
from ksqlpy.expr import bound as B
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, BindError, Clause, Phase


class BinderCore:
    def __init__(self, scope: Scope, ctx: BindContext, clause: Clause | None, table_functions: bool) -> None:
        self.scope = scope
        self.ctx = ctx
        self.clause = clause
        self.table_functions = table_functions
        self.lambdas: list[dict[str, T.SqlType]] = []  # parameters of the enclosing lambdas, innermost last
        self._positions: dict[int, B.Position | None] = {}
        self.in_case = 0

    # ------------------------------------------------------------------ plumbing
    def bind(self, node: exp.Expression) -> B.Expr:
        method = getattr(self, f"_b_{type(node).__name__}", None)
        if method is None:
            raise BindError(f"Unsupported expression: {format_expression(node)}", Phase.TYPING)
        try:
            return method(node)
        except KsqlError as e:  # the innermost placed expression an error comes from says where it is
            if e.location is None:
                e.location = self.pos(node)
            raise

    def codegen_error(self, message: str, node: exp.Expression, result: B.Expr, **kw: Any) -> B.Expr:
        """A rule ksqlDB's code generator enforces: reported after typing (with a clause), ``result``
        stands in meanwhile."""
        err = BindError(message, Phase.CODEGEN, **kw)
        err.location = self.pos(node)
        if self.clause is None:
            raise err
        self.ctx.defer(err, self.clause)
        return result

    def codegen_only(self, node: exp.Expression, bind: Any) -> B.Expr:
        """Bind what ksqlDB types only when it generates code (IN, BETWEEN and LIKE operands): a typing
        error there is a code-generation error."""
        try:
            return bind()
        except BindError as e:
            if e.phase is Phase.ANALYSIS:
                raise
            if e.location is None:
                e.location = self.pos(node)
            e.phase = Phase.CODEGEN
            if self.clause is None:
                raise
            self.ctx.defer(e, self.clause)
            return B.Literal(None, type=T.BOOLEAN, pos=self.pos(node))

    def pos(self, node: exp.Expression) -> B.Position | None:
        """``location_within(node)``, remembered per node: a chain of n operators asks at every level, and
        walking each subtree again would be quadratic."""
        key = id(node)
        if key in self._positions:
            return self._positions[key]
        where = location(node)
        if where is None:  # location_within's pre-order walk: the first placed child, left to right
            for child in node.iter_expressions():
                where = self.pos(child)
                if where is not None:
                    break
        self._positions[key] = where
        return where
