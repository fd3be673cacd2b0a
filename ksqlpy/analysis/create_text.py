"""A CREATE STREAM/TABLE statement printed the way ksqlDB's ``SqlFormatter`` prints one, after the injectors
that ran before the printing one have changed it.

ksqlDB's TopicCreateInjector refuses a CREATE whose topic does not exist and whose WITH clause has no
``PARTITIONS``, and shows the fix: the user's own statement with ``PARTITIONS=2`` added (from memory of its
``injectForCreateSource``: ``createSource.copyWith(elements, properties.withPartitions(2))`` printed by
``SqlFormatter.formatSql``). Its DefaultFormatInjector ran first, so the clause carries the formats the
statement ends up with (``FORMAT`` split into ``KEY_FORMAT``/``VALUE_FORMAT``, a missing key format from
``ksql.persistence.default.format.key``). The formatter prints identifiers quoted only where they need it,
types as SqlType prints them, and the WITH properties by name (their map is sorted), values as literals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ksqlpy.grammar import ast as A
from ksqlpy.grammar.with_clause import literal_text
from ksqlpy.types import Array, Decimal, Map, SqlType, Struct, quote_ident


def type_sql(t: SqlType) -> str:
    """A column type as SqlFormatter prints it (``STRUCT<F STRING>``: field names quoted only if needed)."""
    if isinstance(t, Struct):
        return "STRUCT<" + ", ".join(f"{quote_ident(n)} {type_sql(ft)}" for n, ft in t.fields) + ">"
    if isinstance(t, Array):
        return f"ARRAY<{type_sql(t.element)}>"
    if isinstance(t, Map):
        return f"MAP<{type_sql(t.key)}, {type_sql(t.value)}>"
    if isinstance(t, Decimal):
        return f"DECIMAL({t.precision}, {t.scale})"
    return str(t)


def _element(c: A.ColumnDef, kind: str) -> str:
    text = f"{quote_ident(c.name)} {type_sql(c.type)}"
    if c.headers:
        text += " HEADERS"
    elif c.header_key is not None:
        text += " HEADER(" + literal_text(c.header_key) + ")"
    elif c.key:
        text += " PRIMARY KEY" if kind == "TABLE" else " KEY"
    return text


def with_formats(properties: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """The WITH clause as ksqlDB's DefaultFormatInjector leaves it: ``FORMAT`` becomes both formats, and a
    format not given takes its ``ksql.persistence.default.format.*`` (when there is one)."""
    props = {str(k).upper(): v for k, v in properties.items()}
    both = props.pop("FORMAT", None)
    if both is not None:
        props.setdefault("KEY_FORMAT", both)
        props.setdefault("VALUE_FORMAT", both)
    for name, default in (("KEY_FORMAT", config.get("ksql.persistence.default.format.key", "KAFKA")),
                          ("VALUE_FORMAT", config.get("ksql.persistence.default.format.value"))):
        if props.get(name) is None and default:
            props[name] = str(default)
    return props


def create_source_sql(stmt: A.CreateSource, properties: Mapping[str, Any]) -> str:
    """``stmt`` with the WITH clause ``properties``, as SqlFormatter prints a CREATE STREAM/TABLE."""
    head = "CREATE "
    if stmt.or_replace:
        head += "OR REPLACE "
    if stmt.is_source:
        head += "SOURCE "
    head += f"{stmt.kind} "
    if stmt.if_not_exists:
        head += "IF NOT EXISTS "
    head += quote_ident(stmt.name)
    if stmt.columns:
        head += " (" + ", ".join(_element(c, stmt.kind) for c in stmt.columns) + ")"
    if properties:
        head += " WITH (" + ", ".join(f"{k}={literal_text(properties[k])}" for k in sorted(properties)) + ")"
    return head + ";"
