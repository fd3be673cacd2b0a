"""DROP ... DELETE TOPIC of a source whose topic other sources read is refused and deletes nothing (ksqlDB's
TopicDeleteInjector checkTopicRefs, from memory); a topic only the dropped source reads goes with it, and so do
its schema-registry subjects."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    yield e
    e.close()


def test_a_shared_topic_is_not_deleted(engine: Engine) -> None:
    engine.execute("CREATE STREAM b (k INT KEY, v STRING) WITH (kafka_topic='t', value_format='JSON', partitions=1);")
    engine.execute("CREATE TABLE c (k INT PRIMARY KEY, v STRING) WITH (kafka_topic='t', value_format='JSON');")
    engine.execute("CREATE STREAM a (k INT KEY, v STRING) WITH (kafka_topic='t', value_format='JSON');")
    with pytest.raises(KsqlStatementError) as info:
        engine.execute("DROP STREAM b DELETE TOPIC;")
    assert info.value.message == "Refusing to delete topic. Found other data sources (A, C) using topic t"
    assert engine.catalog.source("B") is not None and engine.log.topic_exists("t")
    engine.execute("DROP STREAM a;")
    engine.execute("DROP TABLE c;")
    engine.execute("DROP STREAM b DELETE TOPIC;")
    assert engine.catalog.source("B") is None and not engine.log.topic_exists("t")


def test_the_subjects_of_a_deleted_topic_go_with_it(engine: Engine) -> None:
    engine.execute("CREATE TABLE p (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='p', format='AVRO', partitions=1);")
    engine.execute("CREATE STREAM q (k INT KEY, v INT) WITH (kafka_topic='q', value_format='AVRO', partitions=1);")
    assert {"p-key", "p-value", "q-value"} <= set(engine.schema_registry.subjects())
    engine.execute("DROP TABLE p DELETE TOPIC;")
    engine.execute("DROP STREAM q;")  # no DELETE TOPIC: the subject stays
    subjects = set(engine.schema_registry.subjects())
    assert "p-key" not in subjects and "p-value" not in subjects and "q-value" in subjects
