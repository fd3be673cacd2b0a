"""The REST runner gives a case that names schema ids a new registry, as ksqlDB's harness gives every case a
new mock registry: ``VALUE_SCHEMA_ID=1`` means the first schema the case registered, whatever earlier cases of
the run registered (ours keeps one registry and one server over a run, emptying subjects between cases)."""

from __future__ import annotations

import json

import pytest

from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.testing.expansion import expand_file
from ksqlpy.testing.report import PASSED
from ksqlpy.testing.rest import names_schema_ids, run_rest

PROTO = 'syntax = "proto3";\n\nmessage ConnectDefault1 {\n  string V = 1;\n  int32 N = 2;\n}\n'


def _cases(tests: list[dict]) -> list:
    return expand_file({"tests": tests}, "ids.json", rest=True)


def _with_id(name: str) -> dict:
    return {
        "name": name,
        "statements": ["CREATE STREAM S (K INT KEY) WITH (kafka_topic='t', value_format='PROTOBUF', "
                       "value_schema_id=1, partitions=1);",
                       "INSERT INTO S (K, V, N) VALUES (1, 'a', 2);"],
        "topics": [{"name": "t", "valueSchema": PROTO, "valueFormat": "PROTOBUF", "partitions": 1}],
        "outputs": [{"topic": "t", "key": 1, "value": {"V": "a", "N": 2}}],
    }


def test_cases_naming_ids_are_found() -> None:
    with_id, plain = _cases([_with_id("a"), {"name": "b", "statements": ["SHOW STREAMS;"]}])
    assert names_schema_ids(with_id) and not names_schema_ids(plain)
    (topic_id,) = _cases([{"name": "c", "statements": ["SHOW STREAMS;"],
                           "topics": [{"name": "t", "valueSchema": {"type": "string"}, "valueSchemaId": 3}]}])
    assert names_schema_ids(topic_id)


def test_a_cleared_registry_counts_ids_from_one() -> None:
    r = EmbeddedSchemaRegistry()
    assert r.is_empty()
    assert r.register("a-value", json.dumps({"type": "string"})) == 1
    r.delete_subject("a-value")
    assert r.register("b-value", json.dumps({"type": "int"})) == 2  # a deleted subject keeps its id
    r.clear()
    assert r.is_empty() and r.subjects() == []
    assert r.register("b-value", json.dumps({"type": "int"})) == 1


@pytest.mark.slow
def test_a_case_naming_id_1_after_another_registered_schemas() -> None:
    first = {
        "name": "registers an AVRO schema first",
        "statements": ["CREATE STREAM A (K INT KEY, V STRING) WITH (kafka_topic='a', format='AVRO', partitions=1);",
                       "INSERT INTO A (K, V) VALUES (1, 'x');"],
        "outputs": [{"topic": "a", "key": 1, "value": {"V": "x"}}],
    }
    results = run_rest(_cases([first, _with_id("then names id 1"), _with_id("and again")]), timeout_s=60)
    assert [(r.status, r.reason) for r in results] == [(PASSED, "")] * 3
