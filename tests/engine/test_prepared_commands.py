"""What the command topic stores is the prepared statement, and a restart runs it as it stands.

ksqlDB writes a distributed statement's command after its injectors ran (DefaultFormatInjector,
DefaultSchemaInjector, TopicCreateInjector) and after its variables were substituted: the registry's columns
(with the schema full name an id gave), the key/value formats the defaults filled in, a CREATE ... AS SELECT's
sink topic, counts and policy. So a restart gives back exactly what was accepted, whatever the registry subject,
the ``ksql.persistence.default.format.*`` or ``ksql.output.topic.name.prefix`` say by then. A command written by
an older version (the text as sent, no ``prepared`` mark) still replays, prepared again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.command_log import DurableStatements, command_id
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import parse

V1 = {"type": "record", "name": "Reading", "namespace": "src.ns", "fields": [{"name": "A", "type": "int"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "B", "type": ["null", "string"], "default": None}]}


@contextmanager
def opened(data_dir: Path, **config: Any) -> Iterator[tuple[Engine, DurableStatements]]:
    engine = Engine(str(data_dir), {"auto.offset.reset": "earliest", **config})
    try:
        shell = DurableStatements(engine)
        assert shell.replay_errors == []
        yield engine, shell
    finally:
        engine.close()


def columns(engine: Engine, name: str) -> list[tuple[str, str, bool]]:
    src = engine.catalog.source(name)
    assert src is not None, name
    return [(c.name, str(c.type), c.key) for c in src.columns]


def commands(shell: DurableStatements) -> dict[str, Any]:
    return {c.command_id: c for c in shell.commands.read_all()}


def test_inferred_columns_survive_an_evolved_subject(tmp_path: Path) -> None:
    with opened(tmp_path) as (engine, shell):
        engine.log.create_topic("in", 1)
        engine.schema_registry.register("in-value", json.dumps(V1))
        shell.execute("CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO');"
                      "CREATE STREAM S2 AS SELECT * FROM S;"
                      "CREATE TABLE T AS SELECT A, COUNT(*) C FROM S GROUP BY A;")
        stored = commands(shell)["stream/S/create"]
        assert stored.prepared
        assert stored.statement == ("CREATE STREAM S (A INTEGER) WITH (KAFKA_TOPIC='in', KEY_FORMAT='KAFKA', "
                                    "VALUE_FORMAT='AVRO');")
        texts = {q.query_id: q.statement_text for q in engine.queries.values()}
        engine.schema_registry.register("in-value", json.dumps(V2))  # the subject moves on
    with opened(tmp_path) as (engine, shell):
        assert columns(engine, "S") == columns(engine, "S2") == [("A", "INTEGER", False)]
        assert {q.query_id: q.statement_text for q in engine.queries.values()} == texts
        # a new statement reads the subject as it is now
        shell.execute("CREATE STREAM S3 WITH (kafka_topic='in', value_format='AVRO');")
        assert columns(engine, "S3") == [("A", "INTEGER", False), ("B", "STRING", False)]


def test_columns_given_by_schema_ids_are_stored_beside_the_ids(tmp_path: Path) -> None:
    """The injected statement keeps the ids with the columns they gave (and the schemas' names); replaying
    it meets no 'Table elements and ..._SCHEMA_ID cannot both exist' - a statement sent so is still refused."""
    with opened(tmp_path) as (engine, shell):
        engine.log.create_topic("in", 1)
        vid = engine.schema_registry.register("in-value", json.dumps(V1))
        kid = engine.schema_registry.register(
            "in-key", 'syntax = "proto3"; package k; message Key { int32 ID = 1; }', "PROTOBUF")
        shell.execute(f"CREATE TABLE T WITH (kafka_topic='in', key_format='PROTOBUF', value_format='AVRO', "
                      f"key_schema_id={kid}, value_schema_id={vid});")
        stored = commands(shell)["table/T/create"].statement
        assert stored == ("CREATE TABLE T (ID INTEGER PRIMARY KEY, A INTEGER) WITH (KAFKA_TOPIC='in', "
                          f"KEY_FORMAT='PROTOBUF', KEY_SCHEMA_FULL_NAME='k.Key', KEY_SCHEMA_ID={kid}, "
                          f"VALUE_FORMAT='AVRO', VALUE_SCHEMA_FULL_NAME='src.ns.Reading', VALUE_SCHEMA_ID={vid});")
        before = columns(engine, "T")
        with pytest.raises(KsqlError, match="Table elements and KEY_SCHEMA_ID cannot both exist"):
            shell.execute(stored.replace("TABLE T ", "TABLE T2 "))
    with opened(tmp_path) as (engine, _):
        assert columns(engine, "T") == before == [("ID", "INTEGER", True), ("A", "INTEGER", False)]
        assert engine.catalog.source("T").sql == stored


def test_defaults_changed_between_runs_do_not_change_what_was_accepted(tmp_path: Path) -> None:
    with opened(tmp_path, **{"ksql.persistence.default.format.value": "JSON"}) as (engine, shell):
        shell.execute("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=2);"
                      "CREATE STREAM S2 AS SELECT * FROM S;")
        assert engine.catalog.source("S2").topic == "S2"
    changed = {"ksql.persistence.default.format.key": "JSON", "ksql.persistence.default.format.value": "AVRO",
               "ksql.output.topic.name.prefix": "pre_", "ksql.sink.partitions": 4}
    with opened(tmp_path, **changed) as (engine, shell):
        for name in ("S", "S2"):
            src = engine.catalog.source(name)
            assert (src.key_format, src.value_format) == ("KAFKA", "JSON"), name
        assert engine.catalog.source("S2").topic == "S2"
        assert engine.log.partition_count("S2") == 2
        # the new defaults hold for new statements
        shell.execute("CREATE STREAM N (ID INT KEY, V STRING) WITH (kafka_topic='s');")
        assert (engine.catalog.source("N").key_format, engine.catalog.source("N").value_format) == ("JSON", "AVRO")


def test_the_configuration_a_result_depends_on_is_kept_with_the_command(tmp_path: Path) -> None:
    """What the prepared text does not say - a single value's wrapping from ksql.persistence.wrap.single.values,
    a sink's key format from ksql.persistence.default.format.key where it inherits NONE - is what ksqlDB's plan
    holds: the command keeps the configuration of then, and a restart under another builds the same."""
    first = {"ksql.persistence.wrap.single.values": "false", "ksql.persistence.default.format.key": "JSON"}
    with opened(tmp_path, **first) as (engine, shell):
        shell.execute("CREATE STREAM S (V STRING, N INT) WITH (kafka_topic='s', value_format='JSON', "
                      "key_format='NONE', partitions=1);"
                      "CREATE STREAM K AS SELECT * FROM S PARTITION BY V;"
                      "CREATE STREAM W (V STRING) WITH (kafka_topic='s', value_format='JSON');")
        assert engine.catalog.source("W").wrap_single_value is False
        assert engine.catalog.source("K").key_format == "JSON"
        (stored,) = [c for c in shell.commands.read_all() if c.command_id == "stream/W/create"]
        assert stored.plan_config["ksql.persistence.wrap.single.values"] == "false"
        assert stored.plan_config["ksql.persistence.default.format.key"] == "JSON"
        assert stored.plan_config["ksql.sink.partitions"] is None
    with opened(tmp_path) as (engine, shell):
        assert engine.catalog.source("W").wrap_single_value is False
        assert engine.catalog.source("K").key_format == "JSON"
        assert engine.prop("ksql.persistence.wrap.single.values") is None  # the configuration of now is back
        shell.execute("CREATE STREAM S2 (V STRING) WITH (kafka_topic='s', value_format='JSON');")
        assert engine.catalog.source("S2").wrap_single_value is None


def test_a_session_variable_is_substituted_in_the_command(tmp_path: Path) -> None:
    with opened(tmp_path) as (engine, shell):
        shell.execute("DEFINE topic = 'vt'; DEFINE fmt = 'JSON';"
                      "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='${topic}', value_format='${fmt}', "
                      "partitions=1);"
                      "CREATE STREAM S2 AS SELECT * FROM S WHERE V = '${topic}';")
        stored = [c.statement for c in shell.commands.read_all()]
        assert not any("${" in s for s in stored)
    with opened(tmp_path) as (engine, _):
        assert engine.catalog.source("S").topic == "vt" and engine.variables == {}
        assert "WHERE (S.V = 'vt')" in next(iter(engine.queries.values())).statement_text


def test_a_create_as_select_replays_with_its_injected_topic_properties(tmp_path: Path) -> None:
    """CLEANUP_POLICY and a non-windowed table's RETENTION_MS are refused when a user writes them; in a
    command they are TopicCreateInjector's own, and a restart (then a CREATE OR REPLACE) takes them."""
    with opened(tmp_path) as (engine, shell):
        shell.execute("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);"
                      "CREATE STREAM S2 AS SELECT * FROM S;"
                      "CREATE TABLE T AS SELECT ID, COUNT(*) N FROM S GROUP BY ID;")
        stored = commands(shell)
        assert "CLEANUP_POLICY='compact'" in stored["table/T/create"].statement
        assert "RETENTION_MS=" in stored["table/T/create"].statement
        with pytest.raises(KsqlError, match="Users can't set the CLEANUP_POLICY config manually"):
            shell.execute("CREATE STREAM X WITH (cleanup_policy='delete') AS SELECT * FROM S;")
        with pytest.raises(KsqlError, match="Non-windowed tables do not support retention"):
            shell.execute("CREATE TABLE X WITH (retention_ms=5) AS SELECT ID, COUNT(*) N FROM S GROUP BY ID;")
        ids = sorted(engine.queries)
    with opened(tmp_path) as (engine, shell):
        assert sorted(engine.queries) == ids
        (replaced,) = shell.execute("CREATE OR REPLACE STREAM S2 AS SELECT * FROM S WHERE V > 0;")
        assert replaced.query_id in ids


def test_an_older_command_log_is_prepared_again(tmp_path: Path) -> None:
    """A command without the ``prepared`` mark holds the statement as it was sent: it replays as before."""
    with opened(tmp_path) as (engine, shell):
        engine.log.create_topic("in", 1)
        engine.schema_registry.register("in-value", json.dumps(V1))
        for sql in ("CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO');",
                    "CREATE STREAM S2 AS SELECT * FROM S;"):
            (stmt,) = parse(sql)
            shell.commands.append(command_id(stmt), sql, {}, {}, prepared=False)
    with opened(tmp_path) as (engine, shell):
        assert [c.prepared for c in shell.commands.read_all()] == [False, False]
        assert columns(engine, "S2") == [("A", "INTEGER", False)]
        assert engine.catalog.source("S").sql.startswith("CREATE STREAM S (A INTEGER) WITH")


AWKWARD_AVRO = {"type": "record", "name": "R", "fields": [
    {"name": "select", "type": "int"}, {"name": "lower", "type": ["null", "string"]},
    {"name": "MixedCase", "type": "long"},
    {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 6, "scale": 2}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "m", "type": {"type": "map", "values": "double"}},
    {"name": "arr", "type": {"type": "array", "items": "string"}},
    {"name": "st", "type": {"type": "record", "name": "In", "fields": [
        {"name": "from", "type": "boolean"}, {"name": "ROWTIME2", "type": "bytes"}]}}]}
AWKWARD_PROTO = ('syntax = "proto3"; package p; message V { int32 select = 1; string lower = 2; '
                 'repeated int64 longs = 3; map<string, double> m = 4; In nested = 5; '
                 'message In { bool from = 1; bytes raw = 2; } }')
AWKWARD_JSON = {"type": "object", "properties": {
    "when": {"type": "integer"}, "Nested": {"type": "object", "properties": {"group": {"type": "string"}}},
    "tags": {"type": "array", "items": {"type": "number"}}}}


@pytest.mark.parametrize(("fmt", "schema", "kind"), [
    ("AVRO", json.dumps(AWKWARD_AVRO), "AVRO"),
    ("PROTOBUF", AWKWARD_PROTO, "PROTOBUF"),
    ("JSON_SR", json.dumps(AWKWARD_JSON), "JSON"),
])
def test_registry_columns_of_every_shape_read_back(tmp_path: Path, fmt: str, schema: str, kind: str) -> None:
    """Reserved words, lower- and mixed-case names, nested and logical types: the stored columns parse back
    to the columns inferred (a text that did not would leave the source out of a restart)."""
    with opened(tmp_path) as (engine, shell):
        engine.log.create_topic("in", 1)
        engine.schema_registry.register("in-value", schema, kind)
        shell.execute(f"CREATE STREAM S WITH (kafka_topic='in', value_format='{fmt}');")
        (stored,) = shell.commands.read_all()
        assert stored.prepared and stored.statement.startswith("CREATE STREAM S (")
        before = columns(engine, "S")
    with opened(tmp_path) as (engine, _):
        assert columns(engine, "S") == before


def test_an_altered_inferred_source_replays_with_its_own_columns(tmp_path: Path) -> None:
    """ALTER adds to the columns the CREATE was accepted with; had the CREATE read the evolved subject again on
    replay, the ALTER's column would clash with the subject's new one."""
    with opened(tmp_path) as (engine, shell):
        engine.log.create_topic("in", 1)
        engine.schema_registry.register("in-value", json.dumps(V1))
        shell.execute("CREATE STREAM S WITH (kafka_topic='in', value_format='AVRO');"
                      "ALTER STREAM S ADD COLUMN B STRING;")
        before = columns(engine, "S")
        engine.schema_registry.register("in-value", json.dumps(V2))
    with opened(tmp_path) as (engine, _):
        assert columns(engine, "S") == before == [("A", "INTEGER", False), ("B", "STRING", False)]
        assert engine.catalog.source("S").sql.endswith("\nALTER STREAM S ADD COLUMN B STRING;")
