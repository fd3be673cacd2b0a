"""Custom type names are resolved while a statement is prepared, before anything about its sources.

ksqlDB builds a statement's AST with the metastore as its type registry: every type written in it - a
column of CREATE STREAM/TABLE or ALTER ... ADD COLUMN, a CAST target anywhere in a query or in INSERT VALUES,
the definition of CREATE TYPE - goes through SqlTypeParser, which resolves a name that is no primitive type
against the registered types and throws ``Cannot resolve unknown type: <NAME>`` (from memory) for one that is
not registered; DefaultKsqlParser.prepare words any such failure ``Failed to prepare statement: <message>``,
without a position. So an unknown type is reported before an unknown source, an unknown column, a reserved
name, a join's faults or a duplicate column - all found later, by the sanitizer, the analyzer or the planner.
The first unknown name in the order the statement is written is the one reported.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import ast as A


def check_types_resolve(stmt: A.Statement, custom_types: Mapping[str, T.SqlType]) -> None:
    """Refuse ``stmt`` if a type name it writes is neither primitive nor a registered custom type."""
    if not isinstance(stmt, _WITH_TYPES):
        return
    for name in _type_names(stmt):
        if name.type_name not in custom_types:
            raise KsqlParseError(f"Cannot resolve unknown type: {name.type_name}", prepared=True)


_WITH_TYPES = (A.CreateSource, A.AlterSource, A.CreateType, A.CreateAsSelect, A.InsertInto, A.SelectStatement,
               A.InsertValues)


def _type_names(node: Any) -> Iterator[A.TypeName]:
    """Every TypeName under ``node``, in the order the statement writes them (dataclass fields are declared
    in the order of the clauses; expressions are walked depth first, left to right)."""
    if isinstance(node, A.TypeName):
        yield node
    elif isinstance(node, T.Array):
        yield from _type_names(node.element)
    elif isinstance(node, T.Map):
        yield from _type_names(node.key)
        yield from _type_names(node.value)
    elif isinstance(node, T.Struct):
        for _, field_type in node.fields:
            yield from _type_names(field_type)
    elif isinstance(node, exp.Expression):
        for e in node.walk(bfs=False):
            if isinstance(e, A.Cast):
                yield from _type_names(e.args.get("to"))
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _type_names(item)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type) and not isinstance(node, T.SqlType):
        for f in dataclasses.fields(node):
            if f.name not in ("text", "properties", "printed"):
                yield from _type_names(getattr(node, f.name))
