"""A CREATE STREAM/TABLE over a topic that does not exist, without PARTITIONS, is refused for the topic before
CreateSourceFactory's checks (ksqlDB's TopicCreateInjector runs before the statement executes, from memory), and
the statement creates no topic when a later check refuses it. The counts of an existing topic:
tests/cases/analysis/create-topic-order.json (the case harness creates every topic a statement names)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from statement_errors import statement_error as error

from ksqlpy.engine import Engine

MISSING = "Topic 'nosuch' does not exist. If you want to create a new topic for the stream/table please re-run"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM E (K INT KEY, V INT) WITH (kafka_topic='e', value_format='JSON', partitions=1);")
    yield e
    e.close()


@pytest.mark.parametrize("statement", [
    "CREATE STREAM N (K INT KEY, ROWTIME BIGINT) WITH (kafka_topic='nosuch', value_format='JSON');",
    "CREATE STREAM N (K INT KEY, V INT) WITH (kafka_topic='nosuch', value_format='JSON', timestamp='NOPE');",
    "CREATE STREAM E (K INT KEY, V INT) WITH (kafka_topic='nosuch', value_format='JSON');",
    "CREATE TABLE E (K INT PRIMARY KEY, V INT) WITH (kafka_topic='nosuch', value_format='JSON');",
    "CREATE TABLE N (V INT) WITH (kafka_topic='nosuch', value_format='JSON');",
])
def test_a_missing_topic_comes_before_create_source_factory(engine: Engine, statement: str) -> None:
    assert error(engine, statement).startswith(MISSING)


@pytest.mark.parametrize("statement", [
    "CREATE STREAM E (K INT KEY, V INT) WITH (kafka_topic='fresh', value_format='JSON', partitions=2);",
    "CREATE TABLE N (V INT) WITH (kafka_topic='fresh', value_format='JSON', partitions=2);",
    "CREATE STREAM N (K INT KEY, ROWTIME BIGINT) WITH (kafka_topic='fresh', value_format='JSON', partitions=2);",
])
def test_a_refused_create_makes_no_topic(engine: Engine, statement: str) -> None:
    error(engine, statement)
    assert not engine.log.topic_exists("fresh")
