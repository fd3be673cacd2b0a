"""Windowed sink records are placed by their base key, as Kafka Streams' WindowedStreamPartitioner does.

A consumer of a windowed table's topic (another engine, a ksqlDB reading our output) expects every window
of a key in the partition of the key itself; hashing the windowed key bytes would scatter them.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.log.partitioner import partition_for_key

SOURCE = ("CREATE STREAM s (k STRING KEY, v INT) "
          "WITH (kafka_topic='s', value_format='JSON', partitions=4);")


def _sink_partitions(h: Any, name: str) -> dict[str, set[int]]:
    """Base key -> the partitions its windowed records landed in."""
    src = h.engine.catalog.source(name)
    ks = h.engine.key_serde(src)
    found: dict[str, set[int]] = {}
    for p in range(h.engine.log.describe_topic(src.topic).partitions):
        batch = h.engine.log.fetch(src.topic, p, 0, 1_000_000)
        for kb in batch.keys:
            key, _start, _end = ks.deserialize(kb)
            found.setdefault(key[0], set()).add(p)
    return found


def _check(h: Any, window: str) -> None:
    h.sql(SOURCE)
    h.sql(f"CREATE TABLE t WITH (partitions=4) AS SELECT k, COUNT(*) AS n FROM s WINDOW {window} GROUP BY k;")
    keys = [f"key-{i}" for i in range(12)]
    for i, k in enumerate(keys):
        for j in range(5):  # windows far apart: several windows per key
            h.send("s", k, {"v": j}, ts=j * 60_000 + i)
    h.run()
    found = _sink_partitions(h, "T")
    assert set(found) == set(keys)
    for k, parts in found.items():
        assert parts == {partition_for_key(k.encode(), 4)}, k


def test_hopping_windows_of_a_key_share_its_partition(h: Any) -> None:
    _check(h, "HOPPING (SIZE 20 SECONDS, ADVANCE BY 10 SECONDS)")


def test_session_windows_of_a_key_share_its_partition(h: Any) -> None:
    _check(h, "SESSION (10 SECONDS)")


def test_the_record_cache_path_places_by_base_key_too(h: Any) -> None:
    h.sql("SET 'cache.max.bytes.buffering'='10000000';")
    _check(h, "TUMBLING (SIZE 30 SECONDS)")


def test_a_sink_partitioned_unlike_its_source_keeps_each_partitions_order(h: Any) -> None:
    """Three sink partitions under a four-partition source: one batch's records go to several partitions,
    each key to its own, in the order they were produced."""
    h.sql(SOURCE)
    h.sql("CREATE TABLE t WITH (partitions=3) AS SELECT k, COUNT(*) AS n FROM s "
          "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY k;")
    keys = [f"key-{i}" for i in range(20)]
    for j in range(4):
        for i, k in enumerate(keys):
            h.send("s", k, {"v": j}, ts=j * 10_000 + i)
    h.run()
    src = h.engine.catalog.source("T")
    ks = h.engine.key_serde(src)
    seen: dict[str, list[tuple[int, int]]] = {}
    for p in range(3):
        batch = h.engine.log.fetch(src.topic, p, 0, 1_000_000)
        for kb, vb in zip(batch.keys, batch.values, strict=True):
            key, start, _ = ks.deserialize(kb)
            assert p == partition_for_key(key[0].encode(), 3), key
            seen.setdefault(key[0], []).append((start, h.engine.value_serde(src).deserialize(vb)[0]))
    assert set(seen) == set(keys)
    for k, updates in seen.items():  # one window per 10 s, one update each, produced in time order
        assert updates == [(j * 10_000, 1) for j in range(4)], k
