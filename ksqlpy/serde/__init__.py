"""Serialization formats for record keys and values, matching ksqlDB byte for byte.

Formats: KAFKA, JSON, DELIMITED, NONE, PROTOBUF_NOSR (AVRO, PROTOBUF, JSON_SR are recognised and rejected with a
clear "not supported yet" error). Build a serde once per (format, schema) and reuse it: the JSON
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
    "resolve_delimiter",
    "value_serde",
]


def value_serde(fmt: str, columns: Columns, *, wrap_single_value: bool | None = None,
                delimiter: str | None = None) -> ValueSerde:
    """The value serde of ``fmt`` for ``columns``.

    ``wrap_single_value`` None means the format's default (JSON wraps); it only matters for JSON
    with exactly one column.
    """
    name = normalize_format(fmt)
    check_format(name, is_key=False, columns=columns)
    if name == "JSON":
        wrap = True if wrap_single_value is None or len(columns) != 1 else wrap_single_value
        return JsonValueSerde(columns, wrap=wrap)
    if name == "DELIMITED":
        return DelimitedValueSerde(columns, delimiter=delimiter)
    if name == "KAFKA":
        return KafkaValueSerde(columns)
    if name == "PROTOBUF_NOSR":
        return ProtobufNoSrSerde(columns)
    return NoneSerde(columns)


def key_serde(fmt: str, columns: Columns, *, delimiter: str | None = None, window: str | None = None,
              window_size_ms: int | None = None) -> KeySerde:
    """The key serde of ``fmt`` for the key ``columns``; windowed if ``window`` is given.

    ``window``: TUMBLING, HOPPING or SESSION; time windows need ``window_size_ms`` to compute ends.
    """
    name = normalize_format(fmt)
    check_format(name, is_key=True, columns=columns)
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
        inner = ProtobufNoSrSerde(columns)
    else:
        inner = NoneSerde(columns)
    ks: KeySerde = ValueKeySerde(columns, inner)
    if window is not None:
        ks = WindowedKeySerde(ks, window, window_size_ms)
    return ks
