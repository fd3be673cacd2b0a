"""The names an expression may use: the columns of the row it is evaluated over.

A ``Scope`` maps a column name (and ``QUALIFIER.NAME``) to its position in that row and its type; the
binder turns a reference into ``ColumnRef(index)``. Lambda parameters are not columns: the binder keeps
them itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ksqlpy import types as T


@dataclass(frozen=True)
class ColumnSlot:
    index: int
    name: str
    type: T.SqlType
    display: str | None = None  # how the column reads in messages, when not by its name


@dataclass
class Scope:
    columns: dict[str, ColumnSlot] = field(default_factory=dict)
    qualified: dict[str, ColumnSlot] = field(default_factory=dict)

    @classmethod
    def of(cls, columns: Iterable[tuple[str, T.SqlType]], alias: str | None = None,
           display: dict[str, str] | None = None) -> Scope:
        """Columns in row order; with ``alias``, ``ALIAS.NAME`` resolves too. A name given twice keeps
        its first position. ``display``: message names of columns, by name."""
        scope = cls()
        for i, (name, t) in enumerate(columns):
            slot = ColumnSlot(i, name, t, (display or {}).get(name))
            scope.columns.setdefault(name, slot)
            if alias:
                scope.qualified.setdefault(f"{alias}.{name}", slot)
        return scope

    def lookup(self, name: str, qualifier: str | None) -> ColumnSlot | None:
        if qualifier:
            return self.qualified.get(f"{qualifier}.{name}")
        return self.columns.get(name)
