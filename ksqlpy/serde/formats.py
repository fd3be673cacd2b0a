"""Which formats exist, which column types each accepts, and ksqlDB's messages when they do not fit.

``check_format`` runs at statement time (CREATE / C*AS) so an impossible (format, schema) pair is a
statement error with ksqlDB's wording, never a runtime surprise. The messages are the ones ksqlDB
prints (the conformance cases compare them), including the multi-line "Key format does not support
schema" wrapper around key problems.
"""

from __future__ import annotations

from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde.base import Columns
from ksqlpy.serde.capabilities import key_unwraps, parse_delimiter, value_wrapping
from ksqlpy.types import Array, Map, Primitive, SqlType, Struct, contains_map, type_sql

SUPPORTED = ("KAFKA", "JSON", "DELIMITED", "NONE", "PROTOBUF_NOSR", "AVRO", "JSON_SR", "PROTOBUF")
KNOWN_UNSUPPORTED: tuple[str, ...] = ()
SCHEMA_REGISTRY_FORMATS = frozenset({"AVRO", "JSON_SR", "PROTOBUF"})

KAFKA_TYPES = frozenset({"INTEGER", "BIGINT", "DOUBLE", "STRING", "BYTES"})
DELIMITED_TYPES = frozenset(
    {"BOOLEAN", "INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "STRING", "BYTES", "DATE", "TIME", "TIMESTAMP"}
)


def normalize_format(fmt: str) -> str:
    """The canonical (upper-case) name of a supported format; KsqlStatementError otherwise."""
    name = fmt.strip().upper()
    if name in SUPPORTED:
        return name
    if name in KNOWN_UNSUPPORTED:
        raise KsqlStatementError(
            f"The '{name}' format is not supported by ksqlpy yet. Supported formats: {', '.join(SUPPORTED)}."
        )
    raise KsqlStatementError(f"Unknown format: {fmt}")


def quote(name: str) -> str:
    """ksqlDB's display of an identifier in messages: always back-quoted."""
    return "`" + name.replace("`", "``") + "`"


def type_text(t: SqlType) -> str:
    """ksqlDB's display of a type in messages (``STRUCT<`F` MAP<STRING, INTEGER>>``)."""
    return type_sql(t, quote)


def base_type(t: SqlType) -> str:
    """The base type name ksqlDB's format errors use (``INTEGER``, ``DECIMAL``, ``ARRAY`` ...)."""
    return "INTEGER" if t.name == "INT" else t.name


def _columns_text(columns: Columns, is_key: bool) -> str:
    suffix = " KEY" if is_key else ""
    return "[" + ", ".join(f"{quote(n)} {type_text(t)}{suffix}" for n, t in columns) + "]"



def _has_non_string_map_key(t: SqlType) -> bool:
    if isinstance(t, Map):
        return t.key.name != "STRING" or _has_non_string_map_key(t.value)
    if isinstance(t, Array):
        return _has_non_string_map_key(t.element)
    if isinstance(t, Struct):
        return any(_has_non_string_map_key(ft) for _, ft in t.fields)
    return False


def _format_reason(name: str, columns: Columns, is_key: bool, full_name: str | None = None,
                   unwrapped: bool = False) -> str | None:
    """Why ``name`` cannot carry ``columns`` (ksqlDB's wording), or None if it can; ``full_name``: the
    schema full name the format writes with (a PROTOBUF message's name); ``unwrapped``: a single value
    written without its record (WRAP_SINGLE_VALUE=false)."""
    if name == "KAFKA":
        if len(columns) > 1:  # none: ksqlDB's void serde (no key, or a value that reads as NULL)
            return f"The 'KAFKA' format only supports a single field. Got: {_columns_text(columns, is_key)}"
        for _, t in columns:
            if not isinstance(t, Primitive) or base_type(t) not in KAFKA_TYPES:
                return f"The 'KAFKA' format does not support type '{base_type(t)}'"
    elif name == "DELIMITED":
        for n, t in columns:
            if base_type(t) not in DELIMITED_TYPES:
                return f"The 'DELIMITED' format does not support type '{base_type(t)}', column: {quote(n)}"
    elif name in ("JSON", "JSON_SR"):
        if any(_has_non_string_map_key(t) for _, t in columns):
            return "JSON only supports MAP types with STRING keys"
    elif name == "AVRO":
        from ksqlpy.serde.avro_format import check_columns

        try:
            check_columns(columns, is_key, full_name, unwrapped)
        except KsqlStatementError as e:
            return str(e)
    elif name in ("PROTOBUF", "PROTOBUF_NOSR"):
        from ksqlpy.serde.protobuf_types import nesting_reason, schema_reason

        if any(_has_non_string_map_key(t) for _, t in columns):  # both share ksqlDB's protobuf serde factory
            return ("PROTOBUF format only supports MAP types with STRING keys. "
                    "See https://github.com/confluentinc/ksql/issues/6177.")
        return nesting_reason(list(columns), name) or schema_reason(list(columns), name, full_name)
    elif name == "NONE":
        if columns:
            return f"The 'NONE' format can only be used when no columns are defined. Got: {_columns_text(columns, is_key)}"
    return None


def check_format(fmt: str, *, is_key: bool, columns: Columns, wrap_single_value: bool | None = None,
                 delimiter: str | None = None, full_name: str | None = None, unwrapped: bool = False,
                 wrapped: bool = False) -> None:
    """Raise KsqlStatementError (ksqlDB's message) if ``fmt`` cannot carry ``columns``.

    A format that cannot carry the schema is reported as ksqlDB's ``GenericSerdeFactory.createFormatSerde``
    wraps any failure of ``Format.getSerde`` - for the key and for the value alike ("Key"/"Value" being
    what ``GenericKeySerDe``/``GenericRowSerDe`` pass): ``<Key|Value> format does not support schema.``,
    the format, the ``PersistenceSchema`` (columns and serde features), then the format's reason.

    ``wrap_single_value`` is the *explicit* WRAP_SINGLE_VALUE of the statement (None when not given;
    a default from ``ksql.persistence.wrap.single.values`` is not checked). ``delimiter`` is the
    statement's KEY_/VALUE_DELIMITER, if any; ``full_name`` its KEY_/VALUE_SCHEMA_FULL_NAME; ``unwrapped``:
    a single value column is written without a wrapping record (WRAP_SINGLE_VALUE false, explicit or default);
    ``wrapped``: WRAP_SINGLE_VALUE true (explicit or default) - both only name the feature in the message.
    """
    if is_key:
        for n, t in columns:
            if contains_map(t):
                raise KsqlStatementError(
                    "Map keys, including types that contain maps, are not supported as they may lead to "
                    "unexpected behavior due to inconsistent serialization. "
                    f"Key column name: {quote(n)}. Column type: {type_text(t)}. "
                    "See https://github.com/confluentinc/ksql/issues/6621 for more."
                )
    name = normalize_format(fmt)
    if not is_key and wrap_single_value is not None:
        value_wrapping(name, len(columns), wrap_single_value, None)
    if delimiter is not None:
        resolve_delimiter(delimiter)
    reason = _format_reason(name, columns, is_key, full_name, unwrapped=not is_key and unwrapped and len(columns) == 1)
    if reason is None:
        return
    raise KsqlStatementError(
        f"{'Key' if is_key else 'Value'} format does not support schema.\n"
        f"format: {name}\n"
        f"schema: Persistence{{columns={_columns_text(columns, is_key)}, "
        f"features={_features_text(name, len(columns), is_key, unwrapped, wrapped)}}}\n"
        f"reason: {reason}"
    )


def _features_text(name: str, n_columns: int, is_key: bool, unwrapped: bool, wrapped: bool) -> str:
    """The serde features of ksqlDB's ``PersistenceSchema`` text (``SerdeFeaturesFactory``): a single key
    unwraps where the format can do both; a single value carries the WRAP_SINGLE_VALUE it was given."""
    if is_key:
        return "[UNWRAP_SINGLES]" if key_unwraps(name, n_columns) else "[]"
    if n_columns == 1 and unwrapped:
        return "[UNWRAP_SINGLES]"
    if n_columns == 1 and wrapped:
        return "[WRAP_SINGLES]"
    return "[]"


def resolve_delimiter(delimiter: str | None) -> str:
    """A DELIMITED delimiter as the character it is (a resolved one is kept); default comma."""
    if delimiter is None:
        return ","
    if delimiter in ("\t", " "):
        return delimiter
    return parse_delimiter(delimiter)  # FormatRuleError, a statement error, with ksqlDB's text
