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
