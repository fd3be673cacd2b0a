"""The expressions a join key equals, compared as bound expressions rather than as printed text.

ksqlDB decides whether a join side is already keyed by its join expression, which columns of the result
are viable keys and which SELECT item carries the key by comparing expression trees
(``Expression.equals``). Here each such expression is bound over the joined row (every source's block,
left to right; ``ksqlpy.analysis.join_scope``), so all spellings of one expression - parenthesized,
qualified or not, any identifier case or quoting, a literal written ``01`` or ``1`` - are one bound node
(``ksqlpy.expr.bound``: nodes compare structurally, positions aside). The written text is kept for
messages only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from ksqlpy.analysis.join_scope import JoinScope, text
from ksqlpy.expr import bound as B
from ksqlpy.expr.binder import try_bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext


@dataclass(frozen=True)
class Synthetic:
    """The synthetic key column a join adds when no side of a condition is a plain column (ROWKEY)."""

    name: str


@dataclass(frozen=True)
class Unbound:
    """An expression that does not bind over the joined row. The clause that binds it reports why; until
    then it equals only what prints the same (a condition written twice is still written twice)."""

    text: str


@dataclass(frozen=True)
class KeyExpr:
    """An expression a join key may equal: ``identity`` decides equality, ``shown`` is how it reads in
    messages (qualified, as ksqlDB prints it)."""

    identity: B.Expr | Synthetic | Unbound
    shown: str = field(compare=False)

    @property
    def column(self) -> B.ColumnRef | None:
        """The joined-row column the expression is, when it is a plain column reference."""
        return self.identity if isinstance(self.identity, B.ColumnRef) else None


class KeyBinder:
    """Binds a join query's expressions over its joined row, for comparing them as keys."""

    def __init__(self, scope: JoinScope, row: Scope, ctx: BindContext) -> None:
        self.scope = scope
        self.row = row
        self.ctx = ctx

    def __call__(self, e: exp.Expression, clause: str) -> KeyExpr:
        shown = text(self.scope.qualify(e, clause))
        inner = e
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Column) and isinstance(inner.this, exp.Identifier):
            alias, name = self.scope.resolve(inner, clause)
            if alias is None:  # a joined-row column of the join's own (the synthetic key)
                return KeyExpr(Synthetic(name), shown)
        bound = try_bind(self.scope.rewrite(e, clause), self.row, self.ctx)
        return KeyExpr(bound if bound is not None else Unbound(shown), shown)

    @staticmethod
    def synthetic(name: str) -> KeyExpr:
        return KeyExpr(Synthetic(name), name)
