"""One answer to "how many partitions has this topic": the log's, None when the topic does not exist;
each user says what a missing topic means to it."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.catalog import Catalog
from ksqlpy.engine import Engine


def test_log_and_catalog_agree(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "data"))
    try:
        engine.execute("CREATE STREAM S (K INT KEY, V INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=3);")
        assert engine.log.partition_count("s") == 3
        assert engine.catalog.partition_count("s") == 3
        assert engine.log.partition_count("nope") is None
        assert engine.catalog.partition_count("nope") is None
    finally:
        engine.close()


def test_a_catalog_without_a_log_knows_no_counts() -> None:
    assert Catalog().partition_count("s") is None
    assert Catalog(partitions=lambda topic: 7).partition_count("s") == 7
