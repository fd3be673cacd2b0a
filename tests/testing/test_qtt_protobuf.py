"""The runner on PROTOBUF cases (our own, in ksqlDB's format) on the real engine: schema ids, specs, keys."""

from __future__ import annotations

from typing import Any

from ksqlpy.engine.engine import Engine
from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case

KEY = 'syntax = "proto3"; message Other { int32 x = 1; } message Id { string code = 1; }'
VALUE = 'syntax = "proto3"; message Old { float f = 1; } message Item { uint64 qty = 1; string tag = 2; }'


def engine(data_dir: str, props: dict[str, Any]) -> Engine:
    return Engine(data_dir, props)


def test_schema_ids_of_inferring_creates_and_full_names() -> None:
    """Pre-registered schemas are numbered in topic order when no CREATE declares columns (so KEY_SCHEMA_ID=1
    is the first topic's key schema); the full names pick the second message of each schema."""
    raw = {
        "name": "protobuf ids",
        "statements": [
            "CREATE STREAM A WITH (kafka_topic='a', format='PROTOBUF', KEY_SCHEMA_ID=1, KEY_SCHEMA_FULL_NAME='Id', "
            "VALUE_SCHEMA_ID=2, VALUE_SCHEMA_FULL_NAME='Item');",
            "CREATE STREAM B WITH (kafka_topic='b', format='PROTOBUF', KEY_SCHEMA_FULL_NAME='Id', "
            "VALUE_SCHEMA_FULL_NAME='Item');",
            "CREATE STREAM OUT AS SELECT `code`, `qty` * 2 AS double_qty FROM A;",
        ],
        "topics": [{"name": n, "keyFormat": "PROTOBUF", "keySchema": KEY, "valueFormat": "PROTOBUF",
                    "valueSchema": VALUE} for n in ("a", "b")],
        "inputs": [{"topic": "a", "key": {"code": "z"}, "value": {"qty": 4, "tag": "t"}}],
        "outputs": [{"topic": "OUT", "key": {"code": "z"}, "value": {"DOUBLE_QTY": 8}}],
        "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "`code` STRING KEY, DOUBLE_QTY BIGINT"}]},
    }
    [case] = expand_case(raw, "mine.json")
    result = run_case(case, engine, timeout_s=60)
    assert result.status == "passed", result.reason


def test_a_wrong_expected_value_fails() -> None:
    raw = {
        "name": "protobuf mismatch",
        "statements": ["CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', value_format='PROTOBUF', "
                       "partitions=1);", "CREATE STREAM T AS SELECT * FROM S;"],
        "inputs": [{"topic": "s", "key": "k", "value": {"V": 1}}, {"topic": "s", "key": "k", "value": {"V": None}}],
        "outputs": [{"topic": "T", "key": "k", "value": {"V": 1}}, {"topic": "T", "key": "k", "value": {"V": None}}],
    }
    [case] = expand_case(raw, "mine.json")
    result = run_case(case, engine, timeout_s=60)
    # proto3 has no NULL int: ksqlDB reads it back as 0, so expecting null fails
    assert result.status == "failed" and "expected null, got 0" in result.reason


def test_a_topic_without_a_count_gets_the_partitions_its_create_declares() -> None:
    raw = {
        "name": "protobuf partitions",
        "statements": ["CREATE TABLE L WITH (kafka_topic='l', partitions=3, format='PROTOBUF', "
                       "key_schema_full_name='Other', value_schema_full_name='Old');",
                       "CREATE TABLE O AS SELECT * FROM L;"],
        "topics": [{"name": "l", "keyFormat": "PROTOBUF", "keySchema": KEY, "valueFormat": "PROTOBUF",
                    "valueSchema": VALUE}],
        "inputs": [{"topic": "l", "key": {"x": 1}, "value": {"f": 0.5}}],
        "outputs": [{"topic": "O", "key": {"X": 1}, "value": {"F": 0.5}}],
        "post": {"topics": {"topics": [{"name": "l", "partitions": 3}]}},
    }
    [case] = expand_case(raw, "mine.json")
    result = run_case(case, engine, timeout_s=60)
    assert result.status == "passed", result.reason


def test_schema_references_are_registered_for_protobuf_imports() -> None:
    raw = {
        "name": "protobuf references",
        "statements": ["CREATE STREAM S WITH (kafka_topic='s', value_format='PROTOBUF', value_schema_id=9);",
                       "CREATE STREAM T AS SELECT * FROM S;"],
        "topics": [{"name": "s", "valueFormat": "PROTOBUF", "valueSchemaId": 9,
                    "valueSchema": 'syntax = "proto3"; import "point.proto"; message Shape { Point CENTRE = 1; }',
                    "valueSchemaReferences": [{"name": "point.proto", "format": "PROTOBUF",
                                               "schema": 'syntax = "proto3"; message Point { int32 X = 1; }'}]}],
        "inputs": [{"topic": "s", "value": {"CENTRE": {"X": 3}}}],
        "outputs": [{"topic": "T", "value": {"CENTRE": {"X": 3}}}],
    }
    [case] = expand_case(raw, "mine.json")
    assert case.skip_reason is None
    result = run_case(case, engine, timeout_s=60)
    assert result.status == "passed", result.reason
