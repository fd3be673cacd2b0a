"""Scopes for type checking: which names an expression may use at a stage of the plan."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy.expr.compiler import Binding, Compiled, ExprCompiler, Scope
from ksqlpy.plan.logical import RowSchema
from ksqlpy.session_state import SessionState


def scope_for(schema: RowSchema, alias: str | None = None, var: str = "c") -> Scope:
    """A scope binding every column of ``schema`` to a local variable ``{var}{i}`` (its position)."""
    scope = Scope()
    for i, c in enumerate(schema.columns):
        b = Binding(f"{var}{i}", c.type)
        scope.columns[c.name] = b
        if alias:
            scope.qualified[f"{alias}.{c.name}"] = b
    return scope


def type_check(e: exp.Expression, scope: Scope, session: SessionState, *,
               predicate: bool = False, allow_table_functions: bool = False, clause: str | None = None) -> Compiled:
    """Compile ``e`` for its type (and its errors) against the session's functions and custom types; the
    code is thrown away."""
    comp = ExprCompiler(scope, registry=session.functions, custom_types=session.types)
    comp.clause = clause
    if allow_table_functions:
        from ksqlpy.expr.table_functions import compile_with_table_functions

        return compile_with_table_functions(comp, e)
    return comp.compile_predicate(e) if predicate else comp.compile(e)
