"""CREATE STREAM / CREATE TABLE validation: columns, key rules, WITH properties, formats.

Produces a catalog ``Source``; messages follow ksqlDB's wording so users (and the conformance
suite) see the errors they know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy import types as T
from ksqlpy.analysis.pseudo_columns import reserved_names
from ksqlpy.catalog import SYSTEM_COLUMNS, WINDOW_COLUMNS, Column, Source, WindowInfo
from ksqlpy.errors import KsqlStatementError, location
from ksqlpy.expr.type_rules import resolve_type
from ksqlpy.grammar.ast import ColumnDef, CreateSource
from ksqlpy.grammar.durations import DurationError, parse_duration_nanos, parse_duration_text
from ksqlpy.serde import capabilities
from ksqlpy.serde.capabilities import (
    FULL_SCHEMA_NAME,
    Side,
    check_format_properties,
    format_properties,
    key_unwraps,
    value_wrapping,
)

KNOWN_FORMATS = {"KAFKA", "JSON", "DELIMITED", "NONE", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR"}
SCHEMA_REGISTRY_FORMATS = {"AVRO", "PROTOBUF", "JSON_SR"}
UNSUPPORTED_FORMATS: set[str] = set()  # formats known by name but without a serde
SUPPORTED_FORMATS = {"KAFKA", "JSON", "DELIMITED", "NONE"}


def normalize_properties(props: dict[str, Any]) -> dict[str, Any]:
    return {k.upper(): v for k, v in props.items()}


def parse_format(value: Any, what: str) -> str:
    fmt = str(value).upper()
    if fmt not in KNOWN_FORMATS:
        raise KsqlStatementError(f"Unknown format: {fmt}")
    if fmt in UNSUPPORTED_FORMATS:
        raise KsqlStatementError(f"Unsupported: the {fmt} format is not supported yet")
    return fmt


def parse_delimiter(value: Any) -> str:
    """A KEY_/VALUE_DELIMITER already checked by the WITH clause, as the character it names."""
    return capabilities.parse_delimiter(value)  # FormatRuleError, a statement error


def parse_duration_ms(text: str) -> int:
    try:
        return parse_duration_text(str(text))
    except DurationError as e:
        raise KsqlStatementError(f"Configuration WINDOW_SIZE is invalid: {e}") from None


def check_window_size(text: Any) -> None:
    """ksqlDB's ``WindowInfo`` (from memory): a TUMBLING/HOPPING size is a positive duration. The WITH clause
    only parsed it, so a zero or negative size reaches ``CreateSourceFactory`` and fails there, unprefixed.
    Judged on the exact duration: ``'10 NANOSECONDS'`` is positive though under a millisecond."""
    if parse_duration_nanos(str(text)) <= 0:
        raise KsqlStatementError("Size must be positive")


def check_columns(kind: str, cols: list[ColumnDef], custom: dict[str, T.SqlType],
                  reserved: frozenset[str] | None = None) -> list[Column]:
    """The declared columns, checked; an error about one of them carries where it was declared."""
    out: list[Column] = []
    seen: set[str] = set()
    for c in cols:
        try:
            out.append(_check_column(kind, c, seen, custom, reserved))
        except KsqlStatementError as e:
            if e.location is None:
                e.location = location(c)
            raise
    if sum(1 for c in out if c.headers) > 1:
        raise KsqlStatementError("Schema already contains a HEADERS column.")
    return out


def _check_column(kind: str, c: ColumnDef, seen: set[str], custom: dict[str, T.SqlType],
                  reserved: frozenset[str] | None = None) -> Column:
    if c.name in (reserved if reserved is not None else frozenset(SYSTEM_COLUMNS) | frozenset(WINDOW_COLUMNS)):
        raise KsqlStatementError(f"'{c.name}' is a reserved column name. You cannot use it as a name for a column.")
    if c.name in seen:
        raise KsqlStatementError(f"Duplicate column names: `{c.name}`")  # as the parser's (grammar.statements)
    seen.add(c.name)
    t = resolve_type(c.type, custom)
    if c.key and kind == "STREAM" and c.primary_key:
        raise KsqlStatementError(
            f"Column `{c.name}` is a 'PRIMARY KEY' column: please use 'KEY' for streams.\n"
            "Tables have PRIMARY KEYs, which are unique and NON NULL.\n"
            "Streams have KEYs, which have no uniqueness or NON NULL constraints.")
    if c.key and kind == "TABLE" and not c.primary_key:
        raise KsqlStatementError(
            f"Column `{c.name}` is a 'KEY' column: please use 'PRIMARY KEY' for tables.\n"
            "Tables have PRIMARY KEYs, which are unique and NON NULL.\n"
            "Streams have KEYs, which have no uniqueness or NON NULL constraints.")
    if c.key and T.contains_map(t):
        raise KsqlStatementError(
            "Map keys, including types that contain maps, are not supported as they may lead to unexpected "
            f"behavior due to inconsistent serialization. Key column name: `{c.name}`. Column type: {t}. "
            "See https://github.com/confluentinc/ksql/issues/6621 for more.")
    if c.headers and t != T.Array(T.Struct((("KEY", T.STRING), ("VALUE", T.BYTES)))):
        raise KsqlStatementError("Invalid type for HEADERS column: expected "
                                 f"ARRAY<STRUCT<`KEY` STRING, `VALUE` BYTES>>, got {t}")
    if c.header_key is not None and t != T.BYTES:
        raise KsqlStatementError(f"Invalid type for HEADER('{c.header_key}') column: expected BYTES, got {t}")
    return Column(c.name, t, key=c.key, headers=c.headers, header_key=c.header_key)



def check_format_choice(props: dict[str, Any]) -> None:
    """FORMAT sets both formats, so it cannot be combined with KEY_FORMAT or VALUE_FORMAT; a value schema
    has one full name (ksqlDB checks these when it resolves the formats, after preparing)."""
    for which in ("KEY_FORMAT", "VALUE_FORMAT"):
        if "FORMAT" in props and which in props:
            raise KsqlStatementError(f"Cannot supply both '{which}' and 'FORMAT' properties, as 'FORMAT' sets both "
                                     "key and value formats. Either use just 'FORMAT', or use 'KEY_FORMAT' and "
                                     "'VALUE_FORMAT'.")
    if "VALUE_AVRO_SCHEMA_FULL_NAME" in props and "VALUE_SCHEMA_FULL_NAME" in props:
        raise KsqlStatementError("Cannot supply both 'VALUE_AVRO_SCHEMA_FULL_NAME' and 'VALUE_SCHEMA_FULL_NAME' "
                                 "properties. Please only set 'VALUE_SCHEMA_FULL_NAME'.")


def check_nullable_representation(key_format: str, value_format: str, props: dict[str, Any]) -> None:
    """``<KEY|VALUE>_PROTOBUF_NULLABLE_REPRESENTATION`` belongs to the protobuf formats only."""
    for which, fmt in (("KEY", key_format), ("VALUE", value_format)):
        name = f"{which}_PROTOBUF_NULLABLE_REPRESENTATION"
        if props.get(name) is not None and fmt not in ("PROTOBUF", "PROTOBUF_NOSR"):
            raise KsqlStatementError(f"Property {name} can only be enabled with protobuf format")


def formats_from_properties(props: dict[str, Any], config: dict[str, Any], *, has_key: bool,
                            default_value: str | None = None, default_key: str | None = None) -> tuple[str, str]:
    check_format_choice(props)
    if "FORMAT" in props:
        fmt = parse_format(props["FORMAT"], "FORMAT")
        return fmt, fmt
    value = props.get("VALUE_FORMAT") or default_value or config.get("ksql.persistence.default.format.value")
    if value is None:
        raise KsqlStatementError("Statement is missing the 'VALUE_FORMAT' property from the WITH clause. Either "
                                 "provide one or set a default via the 'ksql.persistence.default.format.value' config.")
    key = props.get("KEY_FORMAT") or default_key or config.get("ksql.persistence.default.format.key", "KAFKA")
    kf, vf = parse_format(key, "KEY_FORMAT"), parse_format(value, "VALUE_FORMAT")
    return kf, vf


HEADERS_PROPERTY = "ksql.headers.columns.enabled"


def check_headers_enabled(columns: list[Column], config: dict[str, Any]) -> None:
    """Header columns (``HEADERS``, ``HEADER('k')``) may be declared only while ``ksql.headers.columns.enabled``
    is true (the default)."""
    if str(config.get(HEADERS_PROPERTY, "true")).strip().lower() != "false":
        return
    named = [c.name for c in columns if c.headers or c.header_key is not None]
    if named:
        raise KsqlStatementError(f"Cannot declare header columns ({', '.join(named)}): header columns are disabled "
                                 f"('{HEADERS_PROPERTY}' is false).")


def source_from_create(stmt: CreateSource, config: dict[str, Any], custom: dict[str, T.SqlType],
                       name_check: Callable[[], None] | None = None,
                       topic_check: Callable[[dict[str, Any]], None] | None = None) -> Source:
    """``stmt``'s WITH clause has been prepared (``ksqlpy.grammar.with_clause``); ``name_check`` refuses a name
    another source has, ``topic_check`` judges the topic (ksqlDB's TopicCreateInjector: a missing topic without
    PARTITIONS, an existing one with other counts), each at its place among the checks."""
    props = normalize_properties(stmt.properties)
    if stmt.or_replace and stmt.is_source:
        raise KsqlStatementError(f"Cannot add {stmt.kind.lower()} '{stmt.name}': CREATE OR REPLACE is not "
                                 f"supported on source {stmt.kind.lower()}s.")
    check_topic_properties(stmt.kind, props, windowed=False)
    # the formats are resolved before the columns are checked: ksqlDB's DefaultFormatInjector (a missing
    # VALUE_FORMAT) and SchemaRegisterInjector (an unknown format) run before CreateSourceFactory (reserved
    # names, a table's key; from memory)
    key_fmt, value_fmt = formats_from_properties(props, config, has_key=any(c.key for c in stmt.columns))
    if topic_check is not None:  # the injectors' checks come before CreateSourceFactory's below
        topic_check(props)
    columns = check_columns(stmt.kind, stmt.columns, custom, reserved_names(config))
    check_headers_enabled(columns, config)
    keys = [c for c in columns if c.key]
    if not columns:
        raise KsqlStatementError("No columns supplied.")
    # CreateSourceFactory's order (from memory): the schema (reserved names above), the TIMESTAMP column, the
    # name (taken by another source), a table's PRIMARY KEY, then the formats' serde features and windows
    ts_col = props.get("TIMESTAMP")
    ts_fmt = props.get("TIMESTAMP_FORMAT")
    if ts_col is not None:
        ts_col = timestamp_column_name(ts_col)
        col = next((c for c in columns if c.name == ts_col), None)
        if col is None:
            raise KsqlStatementError(f"The TIMESTAMP column set in the WITH clause does not exist in the schema: "
                                     f"'{ts_col}'")
        check_timestamp_column(ts_col, col.type, ts_fmt)
    if name_check is not None:
        name_check()
    if stmt.kind == "TABLE" and not keys:
        # ksqlDB's CreateSourceFactory: with VALUE_SCHEMA_ID the value columns came from the registry, so it
        # says how to declare the key alone
        hint = ("\nUse a partial schema to define the primary key and still load the value columns from the Schema "
                f"Registry, for example:\n\tCREATE TABLE {stmt.name} (ID INT PRIMARY KEY) WITH (...);"
                if props.get("VALUE_SCHEMA_ID") is not None else "")
        raise KsqlStatementError(f"Tables require a PRIMARY KEY. Please define the PRIMARY KEY.{hint}")
    values = [c for c in columns if not c.key and not c.headers and c.header_key is None]
    check_nullable_representation(key_fmt, value_fmt, props)
    wrap = single_value_wrapping(props, len(values), config, value_fmt)
    windowed = None
    if props.get("WINDOW_TYPE") is not None:
        wt = str(props["WINDOW_TYPE"]).upper()
        size = parse_duration_ms(props["WINDOW_SIZE"]) if props.get("WINDOW_SIZE") is not None else None
        if size is not None:
            check_window_size(props["WINDOW_SIZE"])
        if not keys:
            raise KsqlStatementError("Windowed sources require a key column.")
        windowed = WindowInfo(wt, size)
    src = Source(
        name=stmt.name, kind=stmt.kind, topic=str(props["KAFKA_TOPIC"]), columns=columns,
        key_format=key_fmt, value_format=value_fmt,
        key_delimiter=parse_delimiter(props["KEY_DELIMITER"]) if "KEY_DELIMITER" in props else None,
        value_delimiter=parse_delimiter(props["VALUE_DELIMITER"]) if "VALUE_DELIMITER" in props else None,
        wrap_single_value=wrap, timestamp_column=ts_col, timestamp_format=ts_fmt, windowed=windowed,
        is_source=stmt.is_source, sql=stmt.text, properties=props,
    )
    finish_formats(src)
    return src


def check_topic_properties(kind: str, props: dict[str, Any], *, windowed: bool) -> None:
    """The topic's cleanup policy follows from the source kind; a table's topic is compacted, so only a
    windowed table (compact and delete) has a retention."""
    if "CLEANUP_POLICY" in props:
        raise KsqlStatementError("Invalid config variable in the WITH clause: CLEANUP_POLICY.\nThe CLEANUP_POLICY "
                                 "config is automatically inferred based on the type of source (STREAM or TABLE)."
                                 "\nUsers can't set the CLEANUP_POLICY config manually.")
    if kind == "TABLE" and not windowed and "RETENTION_MS" in props:
        raise KsqlStatementError("Invalid config variable in the WITH clause: RETENTION_MS. Non-windowed tables do "
                                 "not support retention.")


def topic_config(kind: str, props: dict[str, Any], *, windowed_sink: bool = False,
                 window_retention_ms: int | None = None, inherited_retention_ms: int | None = None) -> dict[str, str]:
    """The config of a topic ksqlDB creates (``TopicCreateInjector``): a stream's topic deletes old records,
    a table's is compacted (a CREATE TABLE's whatever its windows), a windowed CREATE TABLE AS SELECT sink's
    both. A stream's retention is RETENTION_MS, else (a sink) its source topic's; a windowed sink keeps at
    least the WINDOW's RETENTION."""
    if kind == "TABLE" and not windowed_sink:
        return {"cleanup.policy": "compact"}
    config = {"cleanup.policy": "compact,delete" if kind == "TABLE" else "delete"}
    given = props.get("RETENTION_MS")
    retention = int(given) if given is not None else inherited_retention_ms
    known = [r for r in (retention, window_retention_ms) if r is not None]
    if known:
        config["retention.ms"] = str(max(known))
    return config


NAMED_SCHEMA_FORMATS = ("AVRO", "PROTOBUF")  # formats whose value schema full name a sink of the same format inherits


def inherited_schema_names(source: Source, value_format: str, props: dict[str, Any]) -> dict[str, Any]:
    """The ``VALUE_SCHEMA_FULL_NAME`` a CREATE ... AS SELECT sink takes from its source (ksqlDB's
    ``Format.getInheritableProperties``, applied by its Analyzer to the value format only): when the value
    format is unchanged and names its schemas, and the statement names none itself. The schema id is not
    inherited: a sink writes what its query produces. A sink's key takes its format properties from the
    statement alone (``CreateSourceAsProperties.getKeyFormatProperties``: an AVRO key is ``<Sink>Key``)."""
    if value_format != source.value_format or value_format not in NAMED_SCHEMA_FORMATS:
        return {}
    if any(n in props for n in ("VALUE_SCHEMA_FULL_NAME", "VALUE_AVRO_SCHEMA_FULL_NAME")):
        return {}
    source_props = source.properties or {}
    found = next((source_props[n] for n in ("VALUE_SCHEMA_FULL_NAME", "VALUE_AVRO_SCHEMA_FULL_NAME")
                  if source_props.get(n) is not None), None)
    return {} if found is None else {"VALUE_SCHEMA_FULL_NAME": found}


def timestamp_column_name(text: Any) -> str:
    """The column a ``TIMESTAMP`` property names, read as ksqlDB's ``ColumnReferenceParser`` reads it for a
    CREATE and a CREATE ... AS SELECT alike (from memory): the text is a column reference in SQL's words - an
    unquoted name is upper-cased, a back-quoted or double-quoted one kept as written, a source qualifier
    (``S.ts``) dropped. Text that is no column reference is taken upper-cased (it names no column)."""
    from ksqlpy.errors import KsqlParseError
    from ksqlpy.grammar import parse_expression

    raw = str(text)
    try:
        ref = parse_expression(raw)
    except KsqlParseError:
        return raw.upper()
    if type(ref).__name__ != "Column":
        return raw.upper()
    return str(ref.name)


def check_timestamp_column(name: str, t: T.SqlType, timestamp_format: Any) -> None:
    """ksqlDB's ``TimestampExtractionPolicyFactory``: BIGINT or TIMESTAMP, or STRING with a format."""
    if timestamp_format is not None:
        if t != T.STRING:
            raise KsqlStatementError("'TIMESTAMP_FORMAT' set in the WITH clause can only be used when the timestamp "
                                     "column is of type STRING.")
        return
    if t in (T.BIGINT, T.TIMESTAMP):
        return
    if t == T.STRING:
        raise KsqlStatementError("A String timestamp field has been specified without also specifying the "
                                 "timestamp_format")
    raise KsqlStatementError(f"Timestamp column, `{name}`, should be LONG(INT64), TIMESTAMP, or a String with a "
                             "timestamp_format specified.")


def finish_formats(src: Source) -> None:
    """Validate the key/value formats against the columns and record format features."""
    from ksqlpy.serde import check_format

    keys, values = src.key_columns, src.value_columns
    props = src.properties or {}
    check_format_properties(src.key_format, format_properties(Side.KEY, props))
    check_format_properties(src.value_format, format_properties(Side.VALUE, props))
    check_format(src.key_format, is_key=True, columns=[(c.name, c.type) for c in keys],
                 full_name=format_properties(Side.KEY, props).get(FULL_SCHEMA_NAME))
    check_format(src.value_format, is_key=False, columns=[(c.name, c.type) for c in values],
                 full_name=format_properties(Side.VALUE, props).get(FULL_SCHEMA_NAME),
                 unwrapped=src.wrap_single_value is False, wrapped=src.wrap_single_value is True)
    if src.wrap_single_value is False:
        src.value_features.add("UNWRAP_SINGLES")
    elif src.wrap_single_value is True:
        src.value_features.add("WRAP_SINGLES")
    if key_unwraps(src.key_format, len(keys)):
        src.key_features.add("UNWRAP_SINGLES")


def single_value_wrapping(props: dict[str, Any], n_values: int, config: dict[str, Any],
                          value_format: str) -> bool | None:
    """WRAP_SINGLE_VALUE from the WITH clause, else from ``ksql.persistence.wrap.single.values`` when the
    value has one column and the format can (None: the format's natural shape)."""
    wrap = props.get("WRAP_SINGLE_VALUE")
    explicit = None if wrap is None else _as_bool(wrap, "WRAP_SINGLE_VALUE")
    default = config.get("ksql.persistence.wrap.single.values")
    default_bool = None if default is None or str(default).strip() == "" else str(default).strip().lower() == "true"
    return value_wrapping(value_format, n_values, explicit, default_bool)


def _as_bool(v: Any, name: str) -> bool:
    if isinstance(v, bool):
        return v
    s = str(v).strip().lower()
    if s in ("true", "false"):
        return s == "true"
    raise KsqlStatementError(f"Property '{name}' must be a boolean: {v}")
