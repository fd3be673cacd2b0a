"""The topics and schemas the runners set up before a case's statements, as ksqlDB's harnesses do."""

from __future__ import annotations

from typing import Any

from ksqlpy.testing.expansion import parse_topic
from ksqlpy.testing.harness_topics import (
    harness_partitions,
    plain_creates,
    register_topic_schemas,
    substituted,
)

CREATE = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='JSON'{extra});"


def test_a_topics_entry_takes_its_count_else_its_create_s_else_four() -> None:
    with_count = [CREATE.format(extra=", PARTITIONS=2")]
    assert harness_partitions(parse_topic({"name": "t", "partitions": 3}), with_count) == 3
    assert harness_partitions(parse_topic({"name": "t"}), with_count) == 2
    assert harness_partitions(parse_topic({"name": "t"}), [CREATE.format(extra="")]) == 4
    assert plain_creates([CREATE.format(extra=""), "CREATE STREAM X AS SELECT * FROM S;"]) == [("t", None)]


def _registrations(raw: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    seen: list[tuple[str, str, int | None]] = []

    def register(subject: str, text: str, schema_type: str, schema_id: int | None) -> int:
        seen.append((subject, schema_type, schema_id))
        return schema_id or 1

    register_topic_schemas(register, parse_topic(raw), [], lambda: None)
    return seen


PROTO = 'syntax = "proto3"; import "common.proto"; message V { Common c = 1; }'
REFS = [{"name": "common.proto", "schema": 'syntax = "proto3"; message Common { int32 a = 1; }'}]


def test_schemas_register_key_then_value_with_their_ids() -> None:
    raw = {"name": "t", "keyFormat": "AVRO", "keySchema": "int", "valueFormat": "AVRO", "valueSchemaId": 7,
           "valueSchema": {"type": "record", "name": "R", "fields": []}}
    assert _registrations(raw) == [("t-key", "AVRO", None), ("t-value", "AVRO", 7)]


def test_references_are_registered_only_with_an_explicit_schema_id() -> None:
    raw = {"name": "t", "valueFormat": "PROTOBUF", "valueSchema": PROTO, "valueSchemaReferences": REFS}
    assert _registrations(raw) == [("t-value", "PROTOBUF", None)]
    raw["valueSchemaId"] = 9
    assert _registrations(raw) == [("common.proto", "PROTOBUF", None), ("t-value", "PROTOBUF", 9)]


def test_variables_are_read_by_the_grammar_as_the_engine_reads_them() -> None:
    """DEFINE/UNDEFINE are the grammar's statements: a comment before one, a keyword in lower case, a doubled
    quote in the value, a value that refers to an earlier variable, several statements in one entry."""
    create = "CREATE STREAM s (x INT) WITH (KAFKA_TOPIC='${t}', PARTITIONS=${n});"
    out = substituted([
        "DEFINE t = 'o''k';", create,
        "-- the count\n define N = '3';", create,
        "DEFINE m = '${n}0'; UNDEFINE t;", "CREATE STREAM s (x INT) WITH (KAFKA_TOPIC='${t}', PARTITIONS=${m});",
        "DEFINE bad = ;", "SELECT ${bad} FROM s;",
    ])
    assert out[1] == "CREATE STREAM s (x INT) WITH (KAFKA_TOPIC='o''k', PARTITIONS=${n});"
    assert out[3] == "CREATE STREAM s (x INT) WITH (KAFKA_TOPIC='o''k', PARTITIONS=3);"
    assert out[5] == "CREATE STREAM s (x INT) WITH (KAFKA_TOPIC='${t}', PARTITIONS=30);"
    assert out[7] == "SELECT ${bad} FROM s;"  # a DEFINE the parser refuses defines nothing
    assert plain_creates(["DEFINE t = 'tp';", "DEFINE n = '2';", create]) == [("tp", 2)]
