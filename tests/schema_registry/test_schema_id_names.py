"""A source created from a schema given by id is written down with that schema's name (ksqlDB's
DefaultSchemaInjector rewrites the statement: the inferred columns and *_SCHEMA_FULL_NAME), so its
statement - shown by DESCRIBE - names the record or message it reads."""

from __future__ import annotations

import json

from ksqlpy.engine.engine import Engine

RECORD = json.dumps({"type": "record", "name": "Reading", "namespace": "src.ns", "fields": [{"name": "c1", "type": "int"}]})


def test_statement_names_the_schema_the_id_gives(tmp_path) -> None:
    with Engine(str(tmp_path), {}) as e:
        e.log.create_topic("in", 1)
        sid = e.schema_registry.register("in-value", RECORD)
        kid = e.schema_registry.register(
            "in-key", 'syntax = "proto3"; package k; message Key { int32 ID = 1; }', "PROTOBUF")
        e.execute(f"CREATE STREAM BY_ID WITH (kafka_topic='in', key_format='PROTOBUF', value_format='AVRO', "
                  f"key_schema_id={kid}, value_schema_id={sid});")
        e.execute("CREATE STREAM LATEST WITH (kafka_topic='in', value_format='AVRO');")
        e.execute(f"CREATE STREAM NAMED WITH (kafka_topic='in', value_format='AVRO', value_schema_id={sid}, "
                  "value_schema_full_name='my.Own');")
        by_id = e.catalog.source("BY_ID").sql
        assert "KEY_SCHEMA_FULL_NAME='k.Key'" in by_id and "VALUE_SCHEMA_FULL_NAME='src.ns.Reading'" in by_id
        assert "SCHEMA_FULL_NAME" not in e.catalog.source("LATEST").sql
        named = e.catalog.source("NAMED").sql
        assert "VALUE_SCHEMA_FULL_NAME='my.Own'" in named and "src.ns.Reading" not in named



def test_the_name_comes_back_on_replay(tmp_path) -> None:
    """The command topic holds the statement as DefaultSchemaInjector left it - the columns and the name beside
    the id - and replay runs it as it stands (no 'Table elements and VALUE_SCHEMA_ID cannot both exist')."""
    from ksqlpy.engine.command_log import DurableStatements

    with Engine(str(tmp_path), {}) as e:
        e.log.create_topic("in", 1)
        sid = e.schema_registry.register("in-value", RECORD)
        durable = DurableStatements(e)
        durable.execute(f"CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO', value_schema_id={sid});")
        before = e.catalog.source("S").sql
        (command,) = durable.commands.read_all()
    assert "VALUE_SCHEMA_FULL_NAME='src.ns.Reading'" in before
    assert command.statement == before == ("CREATE STREAM S (`c1` INTEGER) WITH (KAFKA_TOPIC='in', "
                                           "KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO', "
                                           f"VALUE_SCHEMA_FULL_NAME='src.ns.Reading', VALUE_SCHEMA_ID={sid});")
    with Engine(str(tmp_path), {}) as e:
        durable = DurableStatements(e)
        assert durable.replay_errors == [] and e.catalog.source("S").sql == before
