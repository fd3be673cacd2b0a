"""The key and value serdes of a source, as every host of the runtime builds them.

One implementation for the engine, worker processes and the Spark backfill: formats, columns, window,
single-value wrapping (the source's own, fixed when it was created) and, for
the schema-registry formats, the registry client of the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.properties import as_bool
from ksqlpy.runtime.aggregate import key_bytes
from ksqlpy.schema_registry.sources import serde_options
from ksqlpy.serde import key_serde, value_serde


class SerdeFactory:
    """Serdes of sources for one host: ``prop`` reads its properties, ``registry`` is its schema-registry
    client (None where no schema-registry format can occur)."""

    def __init__(self, prop: Callable[[str, Any], Any], registry: Any) -> None:
        self.prop = prop
        self.registry = registry

    def json_sr_converter(self) -> bool:
        """``ksql.json_sr.converter.deserializer.enabled`` (KsqlConfig, default true; from memory): JSON_SR read
        through Connect's JsonSchemaConverter rather than the plain JSON reader (``JsonSrSerde``)."""
        return as_bool(self.prop("ksql.json_sr.converter.deserializer.enabled", True))

    def key_serde(self, source: Source) -> Any:
        w = source.windowed
        return key_serde(source.key_format, [(c.name, c.type) for c in source.key_columns],
                         delimiter=source.key_delimiter, window=w.type if w else None,
                         window_size_ms=w.size_ms if w else None, registry=self.registry,
                         topic=source.topic, json_sr_converter=self.json_sr_converter(),
                         **serde_options(source, True))

    def value_serde(self, source: Source) -> Any:
        # fixed when the source was created (ksqlDB keeps its SerdeFeatures in the metastore): None is no
        # feature, the format's natural shape - not ``ksql.persistence.wrap.single.values`` as a later
        # statement sees it (a SET of it made a source created before unreadable to the queries after)
        wrap = source.wrap_single_value
        if wrap is None:
            wrap = True
        return value_serde(source.value_format, [(c.name, c.type) for c in source.value_columns],
                           wrap_single_value=wrap, delimiter=source.value_delimiter, registry=self.registry,
                           topic=source.topic, json_sr_converter=self.json_sr_converter(),
                           **serde_options(source, False))


def serde_identity(source: Source, is_key: bool) -> str:
    """What ``SerdeFactory`` builds a source's key (``is_key``) or value serde from: sources equal in it get
    equal serdes (format, columns and their types, delimiter, window, wrapping, topic - the registry's
    subject - and the schema options)."""
    if is_key:
        parts: tuple = (source.key_format, [(c.name, c.type) for c in source.key_columns], source.key_delimiter,
                        source.windowed, source.topic, serde_options(source, True))
    else:
        parts = (source.value_format, [(c.name, c.type) for c in source.value_columns], source.wrap_single_value,
                 source.value_delimiter, source.topic, serde_options(source, False))
    return repr((is_key, *parts))


class QuerySerdes:
    """The serdes of one query's set-up on one host: one instance per (key or value, format, schema), shared
    by every task and stage that reads or writes it. Building a JSON serde generates and binds its reader and
    writer and msgspec's struct types; q8's four partitions per input built each of its serdes four times.
    A serde keeps nothing of one task between calls (its caches are of layouts and schemas), so the tasks of
    one query may share it."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx  # the host (``RuntimeContext``): what builds the serdes
        self._made: dict[str, Any] = {}
        self._key_bytes: dict[str, Callable[[tuple], bytes]] = {}

    def key_serde(self, source: Source) -> Any:
        return self._serde(source, True)

    def value_serde(self, source: Source) -> Any:
        return self._serde(source, False)

    def _serde(self, source: Source, is_key: bool) -> Any:
        ident = serde_identity(source, is_key)
        serde = self._made.get(ident)
        if serde is None:
            serde = self._made[ident] = self.ctx.key_serde(source) if is_key else self.ctx.value_serde(source)
        return serde

    def key_bytes(self, columns: list[tuple[str, Any]], fmt: str, delimiter: str | None) -> Callable[[tuple], bytes]:
        """``aggregate.key_bytes`` (a group key's bytes in its internal format), one function per key schema."""
        ident = repr((fmt, columns, delimiter))
        fn = self._key_bytes.get(ident)
        if fn is None:
            fn = self._key_bytes[ident] = key_bytes(columns, fmt, delimiter)
        return fn
