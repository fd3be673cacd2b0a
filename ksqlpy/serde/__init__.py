"""Serialization formats for record keys and values, matching ksqlDB byte for byte.

Formats: KAFKA, JSON, DELIMITED, NONE, PROTOBUF_NOSR, and the schema-registry formats AVRO, JSON_SR and
PROTOBUF. The schema-registry formats
need ``registry`` (a ``ksqlpy.schema_registry.SchemaRegistry``) and ``topic`` for their subjects; without
them a process-local in-memory registry is used (enough for key bytes that are only compared). Build a serde once per (format, schema) and reuse it: the JSON
reader is generated code specialised to the schema.

    value_serde(fmt, columns, wrap_single_value=None, delimiter=None) -> ValueSerde
    key_serde(fmt, columns, delimiter=None, window=None, window_size_ms=None) -> KeySerde
    check_format(fmt, is_key=..., columns=..., wrap_single_value=None, delimiter=None)

Wrapping (ksqlDB's WRAP_SINGLE_VALUE): JSON values are objects unless the single column is
unwrapped (``wrap_single_value=False``); KAFKA is always the bare single value; DELIMITED has no
wrapping (one column is one field). Keys are never wrapped when single-column; multi-column JSON keys
are objects, multi-column DELIMITED keys are records.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.serde.base import Columns, KeySerde, SerdeError, ValueKeySerde, ValueSerde
from ksqlpy.serde.delimited import DelimitedValueSerde
from ksqlpy.serde.formats import check_format, normalize_format, resolve_delimiter
from ksqlpy.serde.json_format import JsonValueSerde
from ksqlpy.serde.kafka_format import KafkaValueSerde
from ksqlpy.serde.none_format import NoneSerde
from ksqlpy.serde.protobuf_nosr import ProtobufNoSrSerde
from ksqlpy.serde.windowed import WindowedKeySerde

__all__ = [
    "KeySerde",
    "SerdeError",
    "ValueSerde",
    "WindowedKeySerde",
    "check_format",
    "key_serde",
    "normalize_format",
    "placed",
    "resolve_delimiter",
    "value_serde",
]


def _sr_serde(name: str, columns: Columns, *, wrap: bool, is_key: bool, registry: Any, topic: str | None,
              schema_id: int | None, full_name: str | None, nullable: str | None = None,
              json_sr_converter: bool = True) -> ValueSerde:
    """An AVRO, JSON_SR or PROTOBUF serde over ``registry`` for ``topic``'s key or value subject."""
    from ksqlpy.schema_registry import subject

    if registry is None:
        registry = _local_registry()
    subj = subject(topic or "_ksqlpy_internal", is_key)
    if name == "AVRO":
        from ksqlpy.serde.avro_format import AvroSerde

        return AvroSerde(columns, wrap=wrap, registry=registry, subject=subj, full_name=full_name,
                         schema_id=schema_id)
    if name == "PROTOBUF":  # protobuf has no bare values: keys and values are always messages
        from ksqlpy.serde.protobuf_format import ProtobufSerde

        return ProtobufSerde(columns, registry=registry, subject=subj, schema_id=schema_id, full_name=full_name,
                             nullable=nullable)
    from ksqlpy.serde.json_sr import JsonSrSerde

    return JsonSrSerde(columns, wrap=wrap, registry=registry, subject=subj, schema_id=schema_id,
                       converter=json_sr_converter)


_LOCAL: list[Any] = []


def _local_registry() -> Any:
    if not _LOCAL:
        from ksqlpy.schema_registry import EmbeddedSchemaRegistry

        _LOCAL.append(EmbeddedSchemaRegistry())
    return _LOCAL[0]


LOCAL_ID = b"\x00\x00\x00\x01"


def placed(fmt: str, serialize: Any) -> Any:
    """``serialize`` (a key serde's, on the process-local registry) with the schema id in its framing fixed
    at 1. Bytes that only place and order records (the keys of repartition topics) must be the same in
    every process and after every restart, but the local registry numbers schemas in the order they are
    first used - another query's key, a pull query's sort key, first: the same key got another id and went
    to another partition (its stored rows in the task of the first). 1 is what the first schema gets, so
    bytes written before stay placed alike when the key's schema was the process's first. Formats without
    a registry are unchanged."""
    if normalize_format(fmt) not in ("AVRO", "JSON_SR", "PROTOBUF"):
        return serialize

    def framed(row: Any) -> Any:
        b = serialize(row)
        return b if not b or b[0] != 0 or len(b) < 5 else b[:1] + LOCAL_ID + b[5:]

    return framed


def value_serde(fmt: str, columns: Columns, *, wrap_single_value: bool | None = None,
                delimiter: str | None = None, registry: Any = None, topic: str | None = None,
                schema_id: int | None = None, full_name: str | None = None,
                nullable: str | None = None, json_sr_converter: bool = True) -> ValueSerde:
    """The value serde of ``fmt`` for ``columns``.

    ``wrap_single_value`` None means the format's default (JSON wraps); it only matters for JSON
    with exactly one column. ``json_sr_converter``: ``ksql.json_sr.converter.deserializer.enabled``
    (``JsonSrSerde``).
    """
    name = normalize_format(fmt)
    nullable = nullable.strip().upper() if nullable else None
    check_format(name, is_key=False, columns=columns, full_name=full_name, unwrapped=wrap_single_value is False,
                 wrapped=wrap_single_value is True)
    if name == "JSON":
        wrap = True if wrap_single_value is None or len(columns) != 1 else wrap_single_value
        return JsonValueSerde(columns, wrap=wrap)
    if name == "DELIMITED":
        return DelimitedValueSerde(columns, delimiter=delimiter)
    if name == "KAFKA":
        return KafkaValueSerde(columns)
    if name == "PROTOBUF_NOSR":
        return ProtobufNoSrSerde(columns, nullable, unwrapped=wrap_single_value is False and len(columns) == 1)
    if name in ("AVRO", "JSON_SR", "PROTOBUF"):
        wrap = True if wrap_single_value is None or len(columns) != 1 else wrap_single_value
        return _sr_serde(name, columns, wrap=wrap, is_key=False, registry=registry, topic=topic,
                         schema_id=schema_id, full_name=full_name, nullable=nullable,
                         json_sr_converter=json_sr_converter)
    return NoneSerde(columns)


def key_serde(fmt: str, columns: Columns, *, delimiter: str | None = None, window: str | None = None,
              window_size_ms: int | None = None, registry: Any = None, topic: str | None = None,
              schema_id: int | None = None, full_name: str | None = None,
              nullable: str | None = None, json_sr_converter: bool = True) -> KeySerde:
    """The key serde of ``fmt`` for the key ``columns``; windowed if ``window`` is given.

    ``window``: TUMBLING, HOPPING or SESSION; time windows need ``window_size_ms`` to compute ends.
    """
    name = normalize_format(fmt)
    nullable = nullable.strip().upper() if nullable else None
    check_format(name, is_key=True, columns=columns, full_name=full_name)
    inner: ValueSerde
    if not columns:  # a keyless source: no key bytes to read or write, whatever the format
        inner = NoneSerde(columns)
        inner.format = name
    elif name == "JSON":
        inner = JsonValueSerde(columns, wrap=len(columns) != 1)
    elif name == "DELIMITED":
        inner = DelimitedValueSerde(columns, delimiter=delimiter)
    elif name == "KAFKA":
        inner = KafkaValueSerde(columns)
    elif name == "PROTOBUF_NOSR":
        inner = ProtobufNoSrSerde(columns, nullable, unwrapped=len(columns) == 1)
    elif name in ("AVRO", "JSON_SR", "PROTOBUF"):
        inner = _sr_serde(name, columns, wrap=len(columns) != 1, is_key=True, registry=registry, topic=topic,
                          schema_id=schema_id, full_name=full_name, nullable=nullable,
                          json_sr_converter=json_sr_converter)
    else:
        inner = NoneSerde(columns)
    ks: KeySerde = ValueKeySerde(columns, inner)
    if window is not None:
        ks = WindowedKeySerde(ks, window, window_size_ms)
    return ks


def register_writer_schema(serde: Any) -> None:
    """Register the schema a schema-registry serde writes with, now rather than at its first record (ksqlDB's
    SchemaRegisterInjector at statement time; an internal topic when a query creates it). Other serdes, and
    a windowed or key serde around one, are unwrapped to the serde that registers; a serde that registers
    nothing is left alone."""
    inner = serde
    while not hasattr(inner, "writer") and not hasattr(inner, "header"):
        # a windowed key wraps the plain key serde; a JSON_SR serde's own ``inner`` is its payload's JSON serde
        nested = getattr(inner, "inner", None) or getattr(inner, "_inner", None)
        if nested is None:
            return
        inner = nested
    if hasattr(inner, "writer"):
        inner.writer()
    else:
        inner.header()
