"""A CREATE STREAM/TABLE over a topic that does not exist, with no PARTITIONS: ksqlDB's TopicCreateInjector
refuses it and shows the user's own statement as it would run - PARTITIONS=2 added to the WITH clause the
DefaultFormatInjector left (FORMAT split into both formats, the default key format filled in), printed by
SqlFormatter (identifiers quoted only where needed, VARCHAR as STRING, the properties by name)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from statement_errors import statement_error

from ksqlpy.engine.engine import Engine

PREFIX = ("Topic 'nope' does not exist. If you want to create a new topic for the stream/table please re-run the "
          "statement providing the required 'PARTITIONS' configuration in the WITH clause (and optionally "
          "'REPLICAS'). For example: ")


@pytest.fixture
def engine(tmp_path) -> Iterator[Engine]:  # type: ignore[no-untyped-def]
    with Engine(str(tmp_path), {}) as e:
        yield e


def example(engine: Engine, sql: str) -> str:
    message = statement_error(engine, sql)
    assert message.startswith(PREFIX), message
    assert not engine.log.describe_topic("nope")
    return message[len(PREFIX):]


@pytest.mark.parametrize(("sql", "printed"), [
    ("CREATE STREAM pageviews (viewtime BIGINT, userid VARCHAR, pageid VARCHAR) "
     "WITH (KAFKA_TOPIC='nope', VALUE_FORMAT='DELIMITED');",
     "CREATE STREAM PAGEVIEWS (VIEWTIME BIGINT, USERID STRING, PAGEID STRING) "
     "WITH (KAFKA_TOPIC='nope', KEY_FORMAT='KAFKA', PARTITIONS=2, VALUE_FORMAT='DELIMITED');"),
    ("create table users (id int primary key, name varchar) with (value_format='json', kafka_topic='nope');",
     "CREATE TABLE USERS (ID INTEGER PRIMARY KEY, NAME STRING) "
     "WITH (KAFKA_TOPIC='nope', KEY_FORMAT='KAFKA', PARTITIONS=2, VALUE_FORMAT='json');"),
    ("CREATE STREAM s (k STRING KEY, v BIGINT) WITH (kafka_topic='nope', format='JSON', timestamp='v');",
     "CREATE STREAM S (K STRING KEY, V BIGINT) "
     "WITH (KAFKA_TOPIC='nope', KEY_FORMAT='JSON', PARTITIONS=2, TIMESTAMP='v', VALUE_FORMAT='JSON');"),
    ("CREATE STREAM `Mixed` (`lower` INT KEY, `SELECT` STRUCT<a INT, `b` ARRAY<MAP<STRING, DECIMAL(4, 2)>>>) "
     "WITH (kafka_topic='nope', key_format='JSON', value_format='JSON', replicas=1);",
     "CREATE STREAM `Mixed` (`lower` INTEGER KEY, `SELECT` STRUCT<A INTEGER, `b` ARRAY<MAP<STRING, DECIMAL(4, 2)>>>) "
     "WITH (KAFKA_TOPIC='nope', KEY_FORMAT='JSON', PARTITIONS=2, REPLICAS=1, VALUE_FORMAT='JSON');"),
    ("CREATE SOURCE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, h BYTES HEADER('x'), hs ARRAY<STRUCT<KEY STRING, "
     "VALUE BYTES>> HEADERS) WITH (kafka_topic='nope', value_format='JSON');",
     "CREATE SOURCE TABLE IF NOT EXISTS T (ID INTEGER PRIMARY KEY, H BYTES HEADER('x'), "
     "HS ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS) "
     "WITH (KAFKA_TOPIC='nope', KEY_FORMAT='KAFKA', PARTITIONS=2, VALUE_FORMAT='JSON');"),
    ("CREATE OR REPLACE STREAM r (v BIGINT) WITH (kafka_topic='nope', value_format='AVRO', "
     "value_avro_schema_full_name='a.B');",
     "CREATE OR REPLACE STREAM R (V BIGINT) WITH (KAFKA_TOPIC='nope', KEY_FORMAT='KAFKA', PARTITIONS=2, "
     "VALUE_AVRO_SCHEMA_FULL_NAME='a.B', VALUE_FORMAT='AVRO');"),
])
def test_the_example_is_the_statement_with_partitions(engine: Engine, sql: str, printed: str) -> None:
    assert example(engine, sql) == printed


def test_the_default_formats_are_the_configured_ones(engine: Engine) -> None:
    engine.execute("SET 'ksql.persistence.default.format.key' = 'JSON';")
    engine.execute("SET 'ksql.persistence.default.format.value' = 'AVRO';")
    assert example(engine, "CREATE STREAM d (k INT KEY, v INT) WITH (kafka_topic='nope');") == (
        "CREATE STREAM D (K INTEGER KEY, V INTEGER) WITH (KAFKA_TOPIC='nope', KEY_FORMAT='JSON', PARTITIONS=2, "
        "VALUE_FORMAT='AVRO');")
