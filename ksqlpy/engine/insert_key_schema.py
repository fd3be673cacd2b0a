"""INSERT VALUES into a source whose key format is schema-registry-enabled: the key schema registered for the
topic must be the one ksqlDB would generate from the source's key columns (ksqlDB's
``InsertValuesExecutor.ensureKeySchemasMatch``). Writing the key would otherwise register a new version of
``<topic>-key`` over the one other writers use - two streams over one topic with different keys, say."""

from __future__ import annotations

from typing import Any

from ksqlpy import types as T
from ksqlpy.catalog import Source
from ksqlpy.schema_registry import subject
from ksqlpy.schema_registry.sources import SR_FORMATS, serde_options, sql_type_of
from ksqlpy.serde.formats import quote, type_text


class KeySchemaMismatch(Exception):
    """The reason the insert is refused (reported inside ``Failed to insert values into ...``)."""


def check_key_schema(registry: Any, source: Source) -> None:
    """Raise ``KeySchemaMismatch`` when the latest ``<topic>-key`` schema is missing or holds other columns.

    A source created with ``KEY_SCHEMA_ID`` writes with that schema and registers nothing: not checked."""
    fmt = (source.key_format or "KAFKA").upper()
    if registry is None or fmt not in SR_FORMATS or not source.key_columns:
        return
    options = serde_options(source, True)
    if options["schema_id"] is not None:
        return
    name = subject(source.topic, True)
    latest = registry.latest(name)
    if latest is None:
        raise KeySchemaMismatch(f"Failed to fetch key schema ({name}). Please check if schema exists in Schema "
                                "Registry and/or check connection with Schema Registry.")
    try:
        # read as the key format reads it: its nullable representation too (WRAPPER: *Value fields are
        # the primitives they wrap), as ksqlDB's check goes through the format's schema translator
        registered = sql_type_of(latest, upper=False, registry=registry,
                                 full_name=options["full_name"] if fmt == "PROTOBUF" else None,
                                 nullable=options["nullable"])
    except Exception:  # noqa: BLE001 - a schema we cannot read proves nothing either way
        raise KeySchemaMismatch("Could not determine that insert values operations is safe; operation potentially "
                                "overrides existing key schema in schema registry.") from None
    ours = [(c.name, c.type) for c in source.key_columns]
    wrapped = fmt == "PROTOBUF" or len(ours) > 1
    theirs = list(registered.fields) if wrapped and isinstance(registered, T.Struct) else [(None, registered)]
    if not _same_columns(theirs, ours):
        raise KeySchemaMismatch(
            f"Cannot INSERT VALUES into data source {quote(source.name)}. ksqlDB generated schema would overwrite "
            f"existing key schema.\n\tExisting Schema: {_text(theirs)}\n\tksqlDB Generated: {_text(ours)}")


def _same_columns(theirs: list[tuple[str | None, T.SqlType]], ours: list[tuple[str, T.SqlType]]) -> bool:
    """Names (where the schema has them) and types, in order; field names compare without case, as the
    registry's names are matched to columns when reading."""
    return len(theirs) == len(ours) and all(
        (n is None or n.upper() == m.upper()) and _same_type(t, u) for (n, t), (m, u) in zip(theirs, ours, strict=True))


def _same_type(a: T.SqlType, b: T.SqlType) -> bool:
    if isinstance(a, T.Struct) and isinstance(b, T.Struct):
        return _same_columns(list(a.fields), list(b.fields))
    if isinstance(a, T.Array) and isinstance(b, T.Array):
        return _same_type(a.element, b.element)
    if isinstance(a, T.Map) and isinstance(b, T.Map):
        return _same_type(a.key, b.key) and _same_type(a.value, b.value)
    return a == b


def _text(columns: list[tuple[str | None, T.SqlType]]) -> str:
    return "[" + ", ".join(f"{quote(n or 'ROWKEY')} {type_text(t)} KEY" for n, t in columns) + "]"
