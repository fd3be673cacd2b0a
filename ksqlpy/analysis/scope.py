"""Scopes for binding: which names an expression may use at a stage of the plan."""

from __future__ import annotations

from ksqlpy.expr.scope import Scope
from ksqlpy.plan.logical import RowSchema


def scope_for(schema: RowSchema, alias: str | None = None) -> Scope:
    """A scope over the row ``schema`` describes: every column by name (and ``alias.NAME``), at its position."""
    display = {c.name: c.display for c in schema.columns if c.display}
    return Scope.of([(c.name, c.type) for c in schema.columns], alias, display)
