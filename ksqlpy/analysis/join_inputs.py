"""What one step of a join sees on each side (a source, or the steps before it): its kind, key format,
partition count, key columns and the expressions equal to them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.join_keys import KeyBinder, KeyExpr
from ksqlpy.catalog import Catalog, Source, WindowInfo
from ksqlpy.plan.logical import Join, ResultKind, Scan


@dataclass
class StepInput:
    """What a join step sees on one side: a source, or the result of the steps before it."""

    kind: ResultKind
    name: str  # left-most source name, for messages
    key_format: tuple[str, str | None, Any]  # (format, delimiter, window identity)
    partitions: int
    classes: list[list[KeyExpr]]  # per key column: the expressions equal to it (column refs first)
    columns: list[list[KeyExpr]]  # per key column: the column references among them, left to right
    node: Join | Scan
    windowed: WindowInfo | None = None
    key_types: list[T.SqlType] = field(default_factory=list)
    key_name: str | None = None  # the full schema name of its key format (``_key_name``)


def _window_id(w: WindowInfo | None) -> Any:
    if w is None:
        return None
    return ("SESSION", None) if w.type.upper() == "SESSION" else ("TIME", w.size_ms)


def _partitions(catalog: Catalog, source: Source) -> int:
    """For co-partitioning: a topic without a known count counts as one partition."""
    return catalog.partition_count(source.topic) or 1


def _key_name(source: Source) -> str | None:
    """The full schema name a source's key format carries (``KEY_SCHEMA_FULL_NAME``; an AVRO key's default
    ``<Source>Key``), which the internal topics of a join taking that key format register their key with
    (ksqlDB's join key format is the source's ``FormatInfo``, properties included)."""
    from ksqlpy.schema_registry.sources import serde_options

    return serde_options(source, True)["full_name"] if source.key_columns else None


def leaf_input(leaf: Scan, catalog: Catalog, keys_of: KeyBinder) -> StepInput:
    src = leaf.source
    keys = [keys_of(exp.column(c.name, table=leaf.alias), "JOIN ON") for c in src.key_columns]
    return StepInput(kind=ResultKind(src.kind), name=src.name,
                  key_format=((src.key_format or "KAFKA").upper(), src.key_delimiter, _window_id(src.windowed)),
                  partitions=_partitions(catalog, src), classes=[[k] for k in keys], columns=[[k] for k in keys],
                  node=leaf, windowed=src.windowed, key_types=[c.type for c in src.key_columns],
                  key_name=_key_name(src))
