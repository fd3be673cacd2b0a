"""Name resolution and literals: column references through the scope (lambda parameters first), the
literal forms, and the expressions allowed only elsewhere (``*``, a bare lambda, AT TIME ZONE)."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.expr.bind_core import BinderCore
from ksqlpy.expr.printer import format_literal
from ksqlpy.expr.stages import BindError, Phase, window_bounds_message
from ksqlpy.expr.type_rules import literal_type
from ksqlpy.functions.datetime import INTERVAL_UNIT
from ksqlpy.grammar.literals import big_decimal_of


class NameBinding(BinderCore):
    # ------------------------------------------------------------------ names and literals
    def _b_Paren(self, node: exp.Paren) -> B.Expr:
        return self.bind(node.this)

    def _b_Star(self, node: exp.Star) -> B.Expr:
        raise BindError("'*' is only allowed in a SELECT list", Phase.ANALYSIS)

    def _b_Column(self, node: exp.Column) -> B.Expr:
        if isinstance(node.this, exp.Star):
            raise BindError("'*' is only allowed in a SELECT list", Phase.ANALYSIS)
        name = node.this.name if isinstance(node.this, exp.Identifier) else node.name
        qual = node.table or None
        pos = self.pos(node)
        if not qual:
            for params in reversed(self.lambdas):
                if name in params:
                    return B.LambdaVar(name, type=params[name], pos=pos)
        slot = self.scope.lookup(name, qual)
        if slot is None:
            if name in ("WINDOWSTART", "WINDOWEND") and not qual:
                raise BindError(window_bounds_message(name), Phase.ANALYSIS)
            full = f"{qual}.{name}" if qual else name
            where = f"{self.clause.label} column" if self.clause is not None and self.clause.label else "Column"
            raise BindError(f"{where} '{full}' cannot be resolved.", Phase.ANALYSIS)
        return B.ColumnRef(slot.index, slot.name, slot.display, type=slot.type, pos=pos)

    def _b_Identifier(self, node: exp.Identifier) -> B.Expr:
        return self._b_Column(exp.Column(this=node))

    def _b_Literal(self, node: exp.Literal) -> B.Expr:
        if node.is_string:
            return B.Literal(node.this, type=T.STRING, pos=self.pos(node))
        value, t = literal_type(node.this)
        exact = big_decimal_of(node)  # DECIMAL '1e3': the value 1000, printed as its BigDecimal 1E+3
        shown = None if exact is None else format_literal(exact, t)
        return B.Literal(value, shown, type=t, pos=self.pos(node))

    def _b_Boolean(self, node: exp.Boolean) -> B.Expr:
        return B.Literal(bool(node.this), type=T.BOOLEAN, pos=self.pos(node))

    def _b_Null(self, node: exp.Null) -> B.Expr:
        return B.Literal(None, type=T.NULL, pos=self.pos(node))

    def _b_IntervalUnit(self, node: exp.Expression) -> B.Expr:
        """A bare time unit keyword (``DATEADD(DAYS, ...)``): its name, typed as an interval unit."""
        unit = str(node.args.get("unit") or node.this).upper()
        return B.Literal(unit, type=INTERVAL_UNIT, pos=self.pos(node))

    def _b_AtTimeZone(self, node: exp.AtTimeZone) -> B.Expr:
        raise BindError("Unsupported: AT TIME ZONE", Phase.ANALYSIS)

    def _b_Lambda(self, node: exp.Lambda) -> B.Expr:
        raise BindError("A lambda is only allowed as a function argument", Phase.ANALYSIS)
