"""A PROTOBUF registry schema of several top-level messages needs a full name to be read - for a new
statement. A command the command topic already holds was judged when first run (then the first message was
taken): replaying it after a restart brings its source back as it was, rather than dropping it."""

from __future__ import annotations

import pytest

from ksqlpy.engine.command_log import CommandLog, DurableStatements, command_id
from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import parse

TWO = 'syntax = "proto3"; message First { int32 A = 1; } message Second { string C = 1; }'
REFUSAL = ("Value schema has multiple schema definitions. Please specify a schema full name in the WITH clause "
           "using VALUE_SCHEMA_FULL_NAME.")


def _engine(path: str) -> Engine:
    return Engine(path, {})


def _record(e: Engine, sql: str) -> None:
    """Write ``sql`` to the command topic as a command an earlier run accepted, without running it."""
    log = CommandLog(e.log, str(e.prop("ksql.service.id", "default_")))
    log.ensure_topic()
    log.append(command_id(parse(sql, None)[0]), sql, {}, {})


@pytest.mark.parametrize("sql", [
    "CREATE STREAM S WITH (kafka_topic='in', key_format='KAFKA', value_format='PROTOBUF');",
    "CREATE STREAM S WITH (kafka_topic='in', key_format='KAFKA', value_format='PROTOBUF', value_schema_id={sid});",
])
def test_a_new_statement_is_refused(tmp_path, sql: str) -> None:
    with _engine(str(tmp_path)) as e:
        e.log.create_topic("in", 1)
        sid = e.schema_registry.register("in-value", TWO, "PROTOBUF")
        with pytest.raises(KsqlStatementError) as err:
            e.execute(sql.format(sid=sid))
        assert str(err.value.message) == REFUSAL
        assert e.catalog.source("S") is None


def test_a_recorded_create_is_replayed_with_the_first_message(tmp_path) -> None:
    with _engine(str(tmp_path)) as e:
        e.log.create_topic("in", 1)
        e.schema_registry.register("in-value", TWO, "PROTOBUF")
        _record(e, "CREATE STREAM S WITH (kafka_topic='in', key_format='KAFKA', value_format='PROTOBUF');")
    with _engine(str(tmp_path)) as e:
        durable = DurableStatements(e)
        assert durable.replay_errors == []
        assert [(c.name, str(c.type)) for c in e.catalog.source("S").value_columns] == [("A", "INTEGER")]


def test_a_recorded_sink_with_a_schema_id_is_replayed(tmp_path) -> None:
    with _engine(str(tmp_path)) as e:
        e.log.create_topic("in", 1)
        e.log.create_topic("out", 1)
        sid = e.schema_registry.register("out-value", TWO, "PROTOBUF")
        e.execute("CREATE STREAM I (K INT KEY, A INT) WITH (kafka_topic='in', format='JSON');")
        _record(e, "CREATE STREAM I (K INT KEY, A INT) WITH (kafka_topic='in', format='JSON');")
        _record(e, f"CREATE STREAM O WITH (kafka_topic='out', key_format='KAFKA', value_format='PROTOBUF', "
                   f"value_schema_id={sid}) AS SELECT * FROM I;")
    with _engine(str(tmp_path)) as e:
        durable = DurableStatements(e)
        assert durable.replay_errors == []
        assert e.catalog.source("O") is not None
