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


class _Refusing:
    """The engine's registry, refusing to delete the subjects in ``refused`` (as a registry answering 422 or
    500, or not at all, does)."""

    def __init__(self, real, refused: set[str]) -> None:  # type: ignore[no-untyped-def]
        self.real, self.refused, self.attempted = real, refused, []  # type: list[str]

    def delete_subject(self, subject: str) -> list[int]:
        from ksqlpy.schema_registry import SchemaRegistryError

        self.attempted.append(subject)
        if subject in self.refused:
            raise SchemaRegistryError(f"Schema registry DELETE /subjects/{subject}: HTTP 422")
        return self.real.delete_subject(subject)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.real, name)


@pytest.mark.parametrize("refused", ["p-key", "p-value"])
def test_a_subject_the_registry_will_not_delete_fails_the_drop(engine: Engine, refused: str) -> None:
    """ksqlDB's TopicDeleteInjector (from memory): the topic is deleted first, then both subjects are tried;
    a failure other than 'not found' is 'Could not clean up the schema registry for topic: <topic>' and the
    statement fails before the DROP runs - the source stays, its topic does not."""
    engine.execute("CREATE TABLE p (k STRING PRIMARY KEY, v INT) WITH (kafka_topic='p', format='AVRO', partitions=1);")
    registry = _Refusing(engine.schema_registry, {refused})
    engine.schema_registry = registry  # type: ignore[assignment]
    with pytest.raises(KsqlStatementError) as info:
        engine.execute("DROP TABLE p DELETE TOPIC;")
    assert info.value.message == "Could not clean up the schema registry for topic: p"
    assert registry.attempted == ["p-key", "p-value"]  # the other subject is still deleted
    assert engine.catalog.source("P") is not None
    assert not engine.log.topic_exists("p")
    assert refused in set(registry.real.subjects())
    assert {"p-key", "p-value"} - {refused} & set(registry.real.subjects()) == set()


def test_a_subject_already_gone_is_no_failure(engine: Engine) -> None:
    engine.execute("CREATE STREAM q (k INT KEY, v INT) WITH (kafka_topic='q', format='AVRO', partitions=1);")
    engine.schema_registry.delete_subject("q-value")
    engine.schema_registry.delete_subject("q-key")
    engine.execute("DROP STREAM q DELETE TOPIC;")
    assert engine.catalog.source("Q") is None and not engine.log.topic_exists("q")


def test_an_http_registry_that_does_not_answer_fails_the_drop(tmp_path: Path) -> None:
    from ksqlpy.schema_registry.http_server import RegistryServer

    with RegistryServer() as server:
        e = Engine(str(tmp_path), {"ksql.schema.registry.url": server.url})
        try:
            e.execute("CREATE STREAM q (k INT KEY, v INT) WITH (kafka_topic='q', value_format='AVRO', partitions=1);")
            server.registry.delete_subject("q-value")  # not found (404): nothing to clean up
            e.execute("CREATE STREAM r (k INT KEY, v INT) WITH (kafka_topic='r', value_format='AVRO', partitions=1);")
            e.execute("DROP STREAM q DELETE TOPIC;")
            assert e.catalog.source("Q") is None
            server.close()
            with pytest.raises(KsqlStatementError) as info:
                e.execute("DROP STREAM r DELETE TOPIC;")
            assert info.value.message == "Could not clean up the schema registry for topic: r"
            assert e.catalog.source("R") is not None
        finally:
            e.close()
