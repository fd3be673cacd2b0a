"""Where sources meet the registry: schema inference on CREATE, registration of sink and source schemas.

ksqlDB's ``DefaultSchemaInjector`` fills in the columns of ``CREATE STREAM/TABLE`` statements that give
none for a schema-registry format, from the latest schema of ``<topic>-key|value`` (or the one
``KEY_SCHEMA_ID``/``VALUE_SCHEMA_ID`` names); its ``SchemaRegisterInjector`` registers the schema
generated from the columns when a source is created over a topic whose subject is empty, and always for
the sink of a C*AS, so producers and readers find it. Both are done here, at statement time.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError
from ksqlpy.schema_registry import (
    RegisteredSchema,
    SchemaRegistry,
    SchemaRegistryError,
    require_registry,
    subject,
)
from ksqlpy.serde import register_writer_schema
from ksqlpy.serde.capabilities import (
    SCHEMA_ID,
    SUPPORTED_PROPERTIES,
    Side,
    check_format_properties,
    format_properties,
)

SR_FORMATS = ("AVRO", "JSON_SR", "PROTOBUF")


def _formats(props: dict[str, Any], config: dict[str, Any]) -> tuple[str, str]:
    both = props.get("FORMAT")
    key = both or props.get("KEY_FORMAT") or config.get("ksql.persistence.default.format.key") or "KAFKA"
    value = both or props.get("VALUE_FORMAT") or config.get("ksql.persistence.default.format.value") or ""
    return str(key).upper(), str(value).upper()


def sql_type_of(rs: RegisteredSchema, *, upper: bool = True, full_name: str | None = None,
                registry: SchemaRegistry | None = None, strict: bool = False,
                nullable: str | None = None) -> T.SqlType:
    """The SQL type of a registered schema, whatever its kind (for PROTOBUF: of message ``full_name``,
    else of the first message, its ``google.protobuf.*Value`` fields read as primitives only under the
    WRAPPER ``nullable`` representation; ``strict``: a missing message is raised as is, for ``registry_type``)."""
    if rs.schema_type == "AVRO":
        from ksqlpy.serde.avro_format import sql_type_of as avro_type
        from ksqlpy.serde.avro_references import inline_references, registry_lookup

        return avro_type(inline_references(json.loads(rs.schema), registry_lookup(registry)), upper=upper)
    if rs.schema_type == "JSON":
        from ksqlpy.serde.json_sr import sql_type_of as json_type
        from ksqlpy.serde.json_sr_references import registry_lookup as json_lookup
        from ksqlpy.serde.json_sr_references import resolve_references

        return json_type(resolve_references(json.loads(rs.schema), json_lookup(registry)), upper=upper)
    if rs.schema_type == "PROTOBUF":
        from ksqlpy.serde.protobuf_format import registry_loader
        from ksqlpy.serde.protobuf_schema import MissingMessageError, ProtoSchemaError, parse_proto
        from ksqlpy.serde.protobuf_types import sql_type_of as proto_type

        try:
            file = parse_proto(rs.schema, registry_loader(registry) if registry is not None else None)
            file.unwrap_wrappers = str(nullable or "").strip().upper() == "WRAPPER"
            return proto_type(file, file.message(full_name), upper=upper)
        except MissingMessageError:
            if strict:
                raise
            raise KsqlStatementError(f"Unsupported: protobuf schema {rs.id}: no message {full_name}") from None
        except ProtoSchemaError as e:
            raise KsqlStatementError(f"Unsupported: protobuf schema {rs.id}: {e}") from None
    raise KsqlStatementError(f"Unsupported: inferring columns from {rs.schema_type} schemas")


# the schema type ksqlDB's SchemaTranslator of each format reads (ParsedSchema.schemaType())
SCHEMA_TYPES = {"AVRO": "AVRO", "PROTOBUF": "PROTOBUF", "JSON_SR": "JSON"}


def registry_type(rs: RegisteredSchema, fmt: str, topic: str, *, is_key: bool, upper: bool = True,
                  full_name: str | None = None, registry: SchemaRegistry | None = None,
                  nullable: str | None = None, rerun: bool = False) -> T.SqlType:
    """The SQL type of a registry schema a source or sink of format ``fmt`` takes its columns from, checked as
    ksqlDB's ``SchemaRegistryTopicSchemaSupplier.fromParsedSchema`` checks it: a schema of another kind is
    refused naming the format it is in, one its format's translator cannot read (a PROTOBUF full name the
    schema has no message of, a type that contains itself) is 'Unable to verify ... is compatible with ksqlDB'.
    A PROTOBUF schema of several messages needs a full name (``_check_single_definition``) - except when a
    command already run is replayed (``rerun``): it was judged when first run, when the first message was
    taken, and a restart must bring its source back as it was."""
    from ksqlpy.serde.base import UnreadableSchemaError
    from ksqlpy.serde.protobuf_schema import MissingMessageError

    expected = SCHEMA_TYPES.get(fmt, fmt)
    if rs.schema_type != expected:
        which, prop = ("Key", "KEY_FORMAT") if is_key else ("Value", "VALUE_FORMAT")
        raise KsqlStatementError(
            f"{which} schema is not in the expected format. You may want to set {prop} to '{rs.schema_type}'.\n"
            f"topic: {topic}\nexpected format: {expected}\nactual format from Schema Registry: {rs.schema_type}")
    if rs.schema_type == "PROTOBUF" and not full_name and not rerun:
        _check_single_definition(rs, registry, is_key)
    try:
        t = sql_type_of(rs, upper=upper, full_name=full_name, registry=registry, strict=True, nullable=nullable)
        if upper:
            _check_upper_cased_names(t)
        return t
    except (MissingMessageError, UnreadableSchemaError) as e:
        raise unverifiable(rs, topic, is_key, str(e)) from None


def multiple_definitions(is_key: bool) -> KsqlStatementError:
    """A PROTOBUF registry schema that defines several top-level messages, read without a
    ``*_SCHEMA_FULL_NAME`` to say which one is the key or value (ksqlDB's SchemaRegistryTopicSchemaSupplier,
    as ../reference/ksqldb-rules 1.5 words it)."""
    which = "KEY" if is_key else "VALUE"
    return KsqlStatementError(f"{which.capitalize()} schema has multiple schema definitions. Please specify a schema "
                              f"full name in the WITH clause using {which}_SCHEMA_FULL_NAME.")


def _check_single_definition(rs: RegisteredSchema, registry: SchemaRegistry | None, is_key: bool) -> None:
    """Refuse a PROTOBUF schema of more than one top-level message when no full name picks one: every way a
    source or sink takes its columns from a registry schema (CREATE by subject or by schema id, a C*AS sink
    with a schema id), keys and values alike. Nested messages and the messages of imported files (schema
    references) are no definitions of this schema; a schema this parser cannot read is left to the
    translator's own error."""
    from ksqlpy.serde.protobuf_format import registry_loader
    from ksqlpy.serde.protobuf_schema import ProtoSchemaError, parse_proto

    try:
        file = parse_proto(rs.schema, registry_loader(registry) if registry is not None else None)
    except ProtoSchemaError:
        return
    if len(file.messages) > 1:
        raise multiple_definitions(is_key)


def unverifiable(rs: RegisteredSchema, topic: str, is_key: bool, reason: str) -> KsqlStatementError:
    """ksqlDB's SchemaRegistryTopicSchemaSupplier.notCompatible: the format's translator could not read ``rs``."""
    return KsqlStatementError(
        f"Unable to verify if the {'key' if is_key else 'value'} schema for topic: {topic} is compatible with "
        f"ksqlDB.\nReason: {reason}\n\nPlease see https://github.com/confluentinc/ksql/issues/ to see if this "
        "particular reason is already known.\nIf not, please log a new issue, including this full error "
        f"message.\nSchema:{rs.schema}")


# ConnectKsqlSchemaTranslator.toKsqlSchema (from memory): a row schema without a field has no column to read
NO_COLUMNS = "Schema does not include any columns with types that ksqlDB supports.\nschema: STRUCT<>"


def _check_upper_cased_names(t: T.SqlType) -> None:
    """Inference without a schema id upper-cases field names (ksqlDB's ConnectKsqlSchemaTranslator under
    UPPERCASE_FIELD_NAME, from memory): it builds each STRUCT with Connect's SchemaBuilder, a field's type
    first, and two fields of a record, message or object whose names differ only in case become one name
    twice, which the builder refuses. UnreadableSchemaError with Connect's text."""
    from ksqlpy.serde.base import UnreadableSchemaError

    if isinstance(t, T.Struct):
        seen: set[str] = set()
        for name, ft in t.fields:
            _check_upper_cased_names(ft)
            if name in seen:
                raise UnreadableSchemaError(f"Cannot create field because of field name duplication {name}")
            seen.add(name)
    elif isinstance(t, T.Array):
        _check_upper_cased_names(t.element)
    elif isinstance(t, T.Map):
        _check_upper_cased_names(t.key)
        _check_upper_cased_names(t.value)


def _missing(topic: str, is_key: bool, schema_id: int | None = None) -> KsqlStatementError:
    """ksqlDB's SchemaRegistryTopicSchemaSupplier.notFound: no schema under the topic's subject, or none of
    the id given, with the causes it lists."""
    what = "keys" if is_key else "values"
    id_line = f"Schema Id: {schema_id}\n" if schema_id is not None else ""
    return KsqlStatementError(
        f"Schema for message {what} on topic '{topic}' does not exist in the Schema Registry.\n"
        f"Subject: {subject(topic, is_key)}\n{id_line}\n"
        "Possible causes include:\n"
        "- Messages on the topic have not been serialized using a Confluent Schema Registry supported serializer\n"
        "\t-> See https://docs.confluent.io/current/schema-registry/docs/serializer-formatter.html\n"
        "- The schema is registered on a different instance of the Schema Registry\n"
        "\t-> Use the REST API to list available subjects"
        "\thttps://docs.confluent.io/current/schema-registry/docs/api.html#get--subjects\n"
        "- You do not have permissions to access the Schema Registry.\n"
        "\t-> See https://docs.confluent.io/current/schema-registry/docs/security.html")


def infer_columns(stmt: Any, registry: SchemaRegistry, config: dict[str, Any], *, rerun: bool = False,
                  prepared: bool = False) -> Any:
    """``stmt`` (a CreateSource) with key/value columns filled in from the registry where ksqlDB would;
    ``rerun``: a replayed command (``registry_type``). ``prepared``: a command's prepared text, whose columns
    this injector added beside the ``*_SCHEMA_ID`` they came from (ksqlDB keeps both in the injected
    statement and replays its plan, never injecting again): its columns stand, nothing is refused."""
    from ksqlpy.grammar import ast as A

    props = {k.upper(): v for k, v in stmt.properties.items()}
    if "KAFKA_TOPIC" not in props:
        return stmt
    topic = str(props["KAFKA_TOPIC"])
    key_fmt, value_fmt = _formats(props, config)
    # the WITH clause's own rules come first (ksqlDB checks them while building the statement, before any
    # format is built): a nullable representation on a format that is not protobuf
    from ksqlpy.analysis.ddl import check_nullable_representation, parse_format

    check_nullable_representation(key_fmt, value_fmt, props)
    keys = [c for c in stmt.columns if c.key]
    values = [c for c in stmt.columns if not c.key and not c.headers and c.header_key is None]

    def check_side(side: Side, which: str, fmt: str, cols: list[Any]) -> None:
        # ksqlDB's DefaultSchemaInjector.shouldInferSchema builds the side's format first (FormatFactory.of: an
        # unknown name, then the properties): a format refusing only the schema id is told it cannot infer;
        # refusing more, the format's own error
        if fmt:
            parse_format(fmt, which)
        wrong_format = (f"{which}_FORMAT should support schema inference when {which}_SCHEMA_ID is provided. "
                        f"Current format is {fmt}.")
        format_props = format_properties(side, props)
        if [p for p in format_props if p not in SUPPORTED_PROPERTIES.get(fmt, frozenset())] == [SCHEMA_ID]:
            raise KsqlStatementError(wrong_format)
        check_format_properties(fmt, format_props)
        if f"{which}_SCHEMA_ID" in props:
            if fmt not in SR_FORMATS:
                raise KsqlStatementError(wrong_format)
            if cols and not prepared:
                raise KsqlStatementError(f"Table elements and {which}_SCHEMA_ID cannot both exist for create "
                                         "statement.")

    # DefaultSchemaInjector (from memory of forCreateStatement): getKeySchema - the key's format, then its
    # schema fetched when it infers - before getValueSchema does the same for the value
    check_side(Side.KEY, "KEY", key_fmt, keys)
    added_keys: list[Any] = []
    added_values: list[Any] = []
    wrap_prop = props.get("WRAP_SINGLE_VALUE")
    unwrapped = wrap_prop is not None and str(wrap_prop).lower() == "false"
    new_props = dict(stmt.properties)
    if not keys and key_fmt in SR_FORMATS:
        # ksqlDB's DefaultSchemaInjector (from memory): the key schema is fetched first, whenever the key format
        # infers and no key column is declared - an empty <topic>-key subject is refused like the value's
        sid = props.get("KEY_SCHEMA_ID")
        rs = _lookup(registry, topic, True, sid)
        kt = registry_type(rs, key_fmt, topic, is_key=True, upper=sid is None, full_name=_full_name(props, "KEY"),
                           registry=registry, nullable=props.get("KEY_PROTOBUF_NULLABLE_REPRESENTATION"), rerun=rerun)
        key_cols = key_columns_of(key_fmt, kt)
        if not key_cols:
            raise unverifiable(rs, topic, True, NO_COLUMNS)
        added_keys = [A.ColumnDef(n, t, key=True, primary_key=stmt.kind == "TABLE") for n, t in key_cols]
        _name_from_schema(new_props, props, "KEY", rs, registry)
    check_side(Side.VALUE, "VALUE", value_fmt, values)
    if not values and value_fmt in SR_FORMATS:
        rs = _lookup(registry, topic, False, props.get("VALUE_SCHEMA_ID"))
        t = registry_type(rs, value_fmt, topic, is_key=False, upper="VALUE_SCHEMA_ID" not in props,
                          full_name=_full_name(props, "VALUE"), registry=registry,
                          nullable=props.get("VALUE_PROTOBUF_NULLABLE_REPRESENTATION"), rerun=rerun)
        if isinstance(t, T.Struct) and (not unwrapped or value_fmt == "PROTOBUF"):
            if not t.fields:
                raise unverifiable(rs, topic, False, NO_COLUMNS)
            added_values = [A.ColumnDef(n, ft) for n, ft in t.fields]
        elif unwrapped:
            added_values = [A.ColumnDef("ROWVAL", t)]
        else:
            # ksqlDB's ConnectFormat.toColumns: only an unwrapped value may be a bare type
            raise KsqlStatementError("Schema returned from schema registry is anonymous type. To use this schema "
                                     "with ksqlDB, set 'WRAP_SINGLE_VALUE=false' in the WITH clause properties.")
        _name_from_schema(new_props, props, "VALUE", rs, registry)
    if not added_keys and not added_values:
        return stmt
    return dataclasses.replace(stmt, columns=added_keys + list(stmt.columns) + added_values, properties=new_props)


def _name_from_schema(new_props: dict[str, Any], props: dict[str, Any], which: str, rs: RegisteredSchema,
                      registry: SchemaRegistry) -> None:
    """A side whose columns come from the schema ``<which>_SCHEMA_ID`` names gets that schema's name as its
    ``<which>_SCHEMA_FULL_NAME`` when the statement gives none, so the source is the registered record/message
    by name too: its statement shows it, and a C*AS sink of the same format inherits it (an AVRO or PROTOBUF
    value) - from memory of ksqlDB's DefaultSchemaInjector.addSchemaFields ('Only populate key and value
    schema names when schema ids are explicitly provided': CreateSourceProperties.withKeyValueSchemaName of
    the fetched ParsedSchema.name()). Without an id the name is not added."""
    if f"{which}_SCHEMA_ID" not in props or _full_name(props, which) is not None:
        return
    name = schema_name(rs, registry)
    if name:
        new_props[f"{which}_SCHEMA_FULL_NAME"] = name


def key_columns_of(key_format: str, t: T.SqlType) -> list[tuple[str, T.SqlType]]:
    """The key columns a registry key schema gives: keys are read unwrapped (one column ``ROWKEY`` of the
    schema's type, a record too) except PROTOBUF, which cannot unwrap: its message's fields are the columns."""
    if key_format == "PROTOBUF" and isinstance(t, T.Struct):
        return list(t.fields)
    return [("ROWKEY", t)]


def _full_name(props: dict[str, Any], which: str) -> str | None:
    name = props.get(f"{which}_SCHEMA_FULL_NAME")
    return str(name).strip() if name is not None else None


def _lookup(registry: SchemaRegistry, topic: str, is_key: bool, schema_id: Any) -> RegisteredSchema:
    if schema_id is not None:
        rs = registry.by_id(int(schema_id))
        if rs is None:
            raise _missing(topic, is_key, int(schema_id))
        return rs
    rs = registry.latest(subject(topic, is_key))
    if rs is None:
        raise _missing(topic, is_key)
    return rs


def serde_options(source: Any, is_key: bool) -> dict[str, Any]:
    """The schema id, full schema name and protobuf nullable representation a source's key or value serde
    writes with. An AVRO key without ``KEY_SCHEMA_FULL_NAME`` is named after its source (every statement
    kind: CREATE, CSAS/CTAS sinks; ksqlDB's ``getKeyFormatProperties``)."""
    props = source.properties or {}
    which = "KEY" if is_key else "VALUE"
    sid = props.get(f"{which}_SCHEMA_ID")
    name = props.get(f"{which}_SCHEMA_FULL_NAME") or props.get(f"{which}_AVRO_SCHEMA_FULL_NAME")
    if name is None and is_key and source.key_format == "AVRO":
        from ksqlpy.serde.avro_format import key_schema_full_name

        name = key_schema_full_name(source.name)
    nullable = props.get(f"{which}_PROTOBUF_NULLABLE_REPRESENTATION")
    return {"schema_id": int(sid) if sid is not None else None,
            "full_name": str(name).strip() if name is not None else None,
            "nullable": str(nullable).strip().upper() if nullable is not None else None}


def require_source_registry(engine: Any, source: Any) -> None:
    """A source written with a schema-registry format (a key format only with key columns) is refused
    when no registry is configured - before its topic is created, as ksqlDB validates the statement first."""
    registry = getattr(engine, "schema_registry", None)
    for is_key, fmt in ((True, source.key_format), (False, source.value_format)):
        if fmt in SR_FORMATS and not (is_key and not source.key_columns):
            require_registry(registry, source.topic, fmt)


def check_sink_schema_ids(engine: Any, sink: Any) -> None:
    """A C*AS sink's KEY_SCHEMA_ID / VALUE_SCHEMA_ID against its columns (``check_sink_matches``), keys first.
    ksqlDB's DefaultSchemaInjector does it, and it runs before the TopicCreateInjector (from memory of
    ksqlDB's Injectors chain: DefaultFormatInjector, SourcePropertyInjector, DefaultSchemaInjector,
    TopicCreateInjector, SchemaRegisterInjector): a refused schema wins over the sink topic's counts."""
    registry = getattr(engine, "schema_registry", None)
    if registry is None:
        return
    for is_key, fmt in ((True, sink.key_format), (False, sink.value_format)):
        if fmt not in ("AVRO", "JSON_SR", "PROTOBUF") or (is_key and not sink.key_columns):
            continue
        options = serde_options(sink, is_key)
        if options["schema_id"] is not None:
            check_sink_matches(registry, options["schema_id"], sink, options["full_name"], is_key=is_key,
                               rerun=bool(getattr(engine, "rerunning_command", False)))


def register_source_schemas(engine: Any, source: Any, *, sink: bool) -> None:
    """Register the schemas a new source writes (ksqlDB's SchemaRegisterInjector, after its topic exists):
    always for a C*AS sink (CREATE OR REPLACE too), else only into empty subjects; a schema given by id is not
    registered (a sink's was checked before its topic: ``check_sink_schema_ids``). A version the registry
    refuses (incompatible under the subject's level) refuses the statement: 'Could not register schema for
    topic: <the registry's message>'."""
    registry = getattr(engine, "schema_registry", None)
    if registry is None:
        return
    for is_key, fmt in ((True, source.key_format), (False, source.value_format)):
        if fmt not in ("AVRO", "JSON_SR", "PROTOBUF") or (is_key and not source.key_columns):
            continue
        if serde_options(source, is_key)["schema_id"] is not None:
            continue
        if not sink and registry.latest(subject(source.topic, is_key)) is not None:
            continue
        try:
            register_writer_schema(engine.key_serde(source) if is_key else engine.value_serde(source))
        except SchemaRegistryError as e:
            # ksqlDB's SchemaRegisterInjector.registerSchema: the registry's refusal (an incompatible version
            # under the subject's compatibility level, ...) refuses the statement
            raise KsqlStatementError(f"Could not register schema for topic: {e}") from None


def check_sink_matches(registry: SchemaRegistry, schema_id: int, sink: Any, full_name: str | None = None, *,
                       is_key: bool = False, rerun: bool = False) -> None:
    """A C*AS writing with a given schema id: its key (``is_key``) or value columns must be the schema's
    columns - the first ones, in order, with the same names and types (a value's extra trailing fields are
    filled with defaults or NULL). ksqlDB's DefaultSchemaInjector compares keys and values alike; the
    statement's key columns are named as ksqlDB prints key columns (``... KEY``)."""
    from ksqlpy.serde.formats import quote, type_text

    rs = registry.by_id(schema_id)
    if rs is None:
        raise _missing(sink.topic, is_key, schema_id)
    fmt = sink.key_format if is_key else sink.value_format
    t = registry_type(rs, fmt, sink.topic, is_key=is_key, upper=False,
                      full_name=full_name if rs.schema_type == "PROTOBUF" else None, registry=registry,
                      nullable=serde_options(sink, is_key)["nullable"], rerun=rerun)
    if is_key:
        fields = key_columns_of(sink.key_format, t)
        declared = sink.key_columns
    else:
        fields = list(t.fields) if isinstance(t, T.Struct) else [("ROWVAL", t)]
        declared = sink.value_columns
    bad = [c for i, c in enumerate(declared)
           if i >= len(fields) or fields[i][0] != c.name or fields[i][1] != c.type]
    if bad:
        suffix = " KEY" if is_key else ""

        def text(cols: list[tuple[str, T.SqlType]], ns: str = "") -> str:
            return "[" + ", ".join(f"{quote(n)} {type_text(ty)}{ns}" for n, ty in cols) + "]"

        which = "key" if is_key else "value"
        raise KsqlStatementError(
            f"The following {which} columns are changed, missing or reordered: "
            f"{text([(c.name, c.type) for c in bad], suffix)}. Schema from schema registry is {text(fields)}")


_KIND = {"AVRO": "AVRO", "PROTOBUF": "PROTOBUF"}  # the formats whose written schema carries a name


def latest_schema_name(registry: SchemaRegistry, topic: str, is_key: bool, fmt: str) -> str | None:
    """The name of the latest schema of ``<topic>-key|value`` (``schema_name``); None when the subject is
    empty or holds another kind of schema."""
    try:
        rs = registry.latest(subject(topic, is_key))
    except Exception:  # noqa: BLE001 - no name found: the serializer's own default
        return None
    if rs is None or rs.schema_type != _KIND.get(fmt):
        return None
    return schema_name(rs, registry)


def schema_name(rs: RegisteredSchema, registry: SchemaRegistry | None) -> str | None:
    """A registered schema's name (Confluent's ``ParsedSchema.name()``): an AVRO record's full name, a
    PROTOBUF schema's first message with its package, a JSON schema's ``title``; None for a schema without a
    name a generated record could take (an AVRO primitive, union or array, a JSON schema without title)."""
    if rs.schema_type == "AVRO":
        try:
            schema = json.loads(rs.schema)
        except ValueError:
            return None
        if not isinstance(schema, dict) or schema.get("type") != "record" or not schema.get("name"):
            return None
        name = str(schema["name"])
        namespace = schema.get("namespace")
        return name if "." in name or not namespace else f"{namespace}.{name}"
    if rs.schema_type == "JSON":
        try:
            schema = json.loads(rs.schema)
        except ValueError:
            return None
        title = schema.get("title") if isinstance(schema, dict) else None
        return title if isinstance(title, str) and title else None
    from ksqlpy.serde.protobuf_format import registry_loader
    from ksqlpy.serde.protobuf_schema import ProtoSchemaError, parse_proto

    try:
        return parse_proto(rs.schema, registry_loader(registry)).message().full_name
    except ProtoSchemaError:
        return None


def with_serializer_names(registry: SchemaRegistry | None, source: Any) -> Any:
    """``source`` as INSERT VALUES serializes into it: a key or value whose format names its written schema
    (AVRO, PROTOBUF) and that has no ``*_SCHEMA_FULL_NAME`` takes the name of the latest schema registered for
    the topic, so the row is written as the message/record other writers use rather than ksqlDB's default
    (``KsqlDataSourceSchema``, ``ConnectDefault1``) - from memory of ksqlDB's
    ``InsertValuesExecutor.addSerializerMissingFormatFields`` (FULL_SCHEMA_NAME from
    ``SchemaRegistryUtil``'s latest ``ParsedSchema.name()``; used for INSERT VALUES only, a persistent query
    writes with the sink's own format properties). An AVRO key always has its name (``<Source>Key``,
    ``serde_options``); a schema given by id is written as is."""
    if registry is None:
        return source
    added: dict[str, str] = {}
    for is_key, fmt in ((True, source.key_format), (False, source.value_format)):
        if fmt not in _KIND or (is_key and not source.key_columns):
            continue
        options = serde_options(source, is_key)
        if options["schema_id"] is not None or options["full_name"] is not None:
            continue
        name = latest_schema_name(registry, source.topic, is_key, fmt)
        if name:
            added[f"{'KEY' if is_key else 'VALUE'}_SCHEMA_FULL_NAME"] = name
    if not added:
        return source
    return dataclasses.replace(source, properties={**(source.properties or {}), **added})
