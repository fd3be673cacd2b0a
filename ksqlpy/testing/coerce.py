"""Expected specs read the way ksqlDB reads JSON: field names resolved against the sink schema.

QTT files sometimes spell output fields differently from the sink's columns (``{"val": ...}`` for a
column ``VAL``) and ksqlDB still accepts them, because JSON field names of rows and STRUCTs are matched
case-insensitively. We give expected names the schema's spelling (exact match first, else the unique
case-insensitive one) and then compare exactly against the raw output, so the engine's own output is
still held to the exact names. MAP keys are data, never renamed. A number where the schema has a DOUBLE
becomes an ``ApproxDouble``, which ``compare`` matches within 1e-6.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ksqlpy import types as T
from ksqlpy.testing.compare import ApproxDouble


def resolve_row(spec: Any, columns: list[Any]) -> Any:
    """An expected key or value spec with names spelled as ``columns`` (catalog columns) spell them."""
    if isinstance(spec, dict) and columns and len(columns) > 1:
        # ksqlDB reads the expected record through the sink's serde: fields outside the schema are
        # ignored and absent columns are NULL
        names = [c.name for c in columns]
        resolved = {k: _resolve_name(k, names) for k in spec}
        targets = [t for t in resolved.values() if t is not None]
        if len(set(targets)) == len(targets):
            types = {c.name: c.type for c in columns}
            out = {resolved[k]: resolve_type(v, types[resolved[k]]) for k, v in spec.items()  # type: ignore[index]
                   if resolved[k] is not None}
            return {n: out.get(n) for n in names}
    if isinstance(spec, dict) and len(columns) == 1 and _resolve_name(next(iter(spec), ""), [columns[0].name]):
        name = columns[0].name
        return {name: resolve_type(next(iter(spec.values())), columns[0].type)} if len(spec) == 1 else spec
    if len(columns) == 1:  # an unwrapped single column
        return resolve_type(spec, columns[0].type)
    return spec


def resolve_type(spec: Any, sql_type: T.SqlType) -> Any:
    if sql_type == T.DOUBLE and isinstance(spec, int | Decimal) and not isinstance(spec, bool):
        return ApproxDouble(str(spec))  # compared within 1e-6 (see compare)
    if isinstance(sql_type, T.Struct) and isinstance(spec, dict):
        names = [n for n, _ in sql_type.fields]
        out: dict[str, Any] = {}
        for k, v in spec.items():
            name = _resolve_name(k, names)
            if name is None or name in out:
                return spec  # not this struct's shape: leave it for the comparison to report
            out[name] = resolve_type(v, sql_type.field(name))  # type: ignore[arg-type]
        return out
    if isinstance(sql_type, T.Array) and isinstance(spec, list):
        return [resolve_type(v, sql_type.element) for v in spec]
    if isinstance(sql_type, T.Map) and isinstance(spec, dict):
        return {k: resolve_type(v, sql_type.value) for k, v in spec.items()}
    return spec


def _resolve_name(name: str, names: list[str]) -> str | None:
    if name in names:
        return name
    folded = [n for n in names if n.upper() == name.upper()]
    return folded[0] if len(folded) == 1 else None
