"""Every record of a source's topic decoded with the source's own serdes: imported by module name by the
test harnesses of any folder (joins, stateful), as ``kafka_broker`` is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ksqlpy.engine import Engine


def source_records(engine: Engine, source: str) -> list[tuple[Any, Any, int]]:
    """(key, value, timestamp) of every record of ``source``'s topic, partition after partition in offset
    order; the key as its serde gives it (a tuple of the key columns, None when null), a tombstone's value
    None."""
    src = engine.catalog.source(source)
    assert src is not None, source
    ks, vs = engine.key_serde(src), engine.value_serde(src)
    info = engine.log.describe_topic(src.topic)
    assert info is not None, src.topic
    out = []
    for p in range(info.partitions):
        batch = engine.log.fetch(src.topic, p, 0, 1_000_000)
        for k, v, ts in zip(batch.keys, batch.values, batch.timestamps, strict=True):
            out.append((ks.deserialize(k), None if v is None else vs.deserialize(v), ts))
    return out
