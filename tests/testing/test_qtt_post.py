"""``post`` conditions as ksqlDB's matchers check them: formats, windows, features and schema names."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ksqlpy import types as T
from ksqlpy.catalog import Column, Source, WindowInfo
from ksqlpy.testing.expansion import parse_format, parse_post_source
from ksqlpy.testing.post import ActualFormat, format_diff, registered_full_name, source_diff


def fmt(raw: Any, **actual: Any) -> str | None:
    spec = parse_format(raw)
    assert spec is not None
    return format_diff(spec, ActualFormat(**{"format": "KAFKA", "features": frozenset(), **actual}))


def test_a_key_format_without_a_window_means_not_windowed() -> None:
    tumbling = WindowInfo("TUMBLING", 30000)
    assert fmt({"format": "KAFKA", "windowType": "TUMBLING", "windowSize": 30000}, windowed=tumbling) is None
    assert "window type" in (fmt({"format": "KAFKA"}, windowed=tumbling) or "")
    assert "window size" in (fmt({"format": "KAFKA", "windowType": "TUMBLING"}, windowed=tumbling) or "")
    assert "window size" in (fmt({"format": "KAFKA", "windowType": "TUMBLING", "windowSize": 1000},
                                 windowed=tumbling) or "")
    # a session window has no size
    assert fmt({"format": "KAFKA", "windowType": "SESSION"}, windowed=WindowInfo("SESSION", None)) is None
    assert "window type" in (fmt({"format": "KAFKA", "windowType": "SESSION"}) or "")


def test_a_topic_key_format_gives_its_window_as_window_info() -> None:
    hopping = WindowInfo("HOPPING", 5000)
    assert fmt({"format": "KAFKA", "windowInfo": {"type": "HOPPING", "size": 5}}, windowed=hopping) is None
    assert fmt({"format": "KAFKA", "windowInfo": {"type": "HOPPING", "size": 6}}, windowed=hopping) is not None


def test_features_and_format_names_are_exact_when_given() -> None:
    assert fmt({"format": "AVRO", "features": ["UNWRAP_SINGLES"]}, format="AVRO",
               features=frozenset({"UNWRAP_SINGLES"})) is None
    assert fmt({"format": "AVRO", "features": []}, format="AVRO", features=frozenset({"UNWRAP_SINGLES"}))
    assert fmt("JSON", format="JSON_SR") is not None


def test_the_full_schema_name_is_the_name_of_the_registered_schema() -> None:
    name = "io.confluent.ksql.avro_schemas.OutKey"
    assert fmt({"format": "AVRO", "properties": {"fullSchemaName": name}}, format="AVRO",
               full_name=lambda: name) is None
    problem = fmt({"format": "AVRO", "properties": {"fullSchemaName": name}}, format="AVRO",
                  full_name=lambda: "io.confluent.ksql.avro_schemas.KsqlDataSourceSchema")
    assert problem is not None and "fullSchemaName" in problem
    # properties the engine does not expose are not compared
    assert fmt({"format": "PROTOBUF", "properties": {"unwrapPrimitives": "true"}}, format="PROTOBUF") is None


@dataclass
class _Registered:
    schema: str
    schema_type: str


@dataclass
class _Registry:
    subjects: dict[str, _Registered] = field(default_factory=dict)

    def latest(self, subject: str) -> _Registered | None:
        return self.subjects.get(subject)


@dataclass
class _Engine:
    schema_registry: _Registry


def test_registered_full_names_of_avro_and_protobuf_schemas() -> None:
    record = {"type": "record", "name": "OutKey", "namespace": "io.confluent.ksql.avro_schemas", "fields": []}
    engine = _Engine(_Registry({
        "out-key": _Registered(json.dumps(["null", record]), "AVRO"),
        "out-value": _Registered('syntax = "proto3"; package p.q; message V { int32 A = 1; }', "PROTOBUF"),
        "plain-key": _Registered('"int"', "AVRO"),
    }))
    assert registered_full_name(engine, "out", True) == "io.confluent.ksql.avro_schemas.OutKey"
    assert registered_full_name(engine, "out", False) == "p.q.V"
    assert registered_full_name(engine, "plain", True) is None
    assert registered_full_name(engine, "missing", True) is None


def test_a_source_is_checked_against_every_field_the_case_gives() -> None:
    source = Source("OUT", "TABLE", "out", [Column("ID", T.BIGINT, key=True), Column("V", T.INTEGER)],
                    key_format="KAFKA", value_format="JSON", windowed=WindowInfo("SESSION", None))
    good = parse_post_source({"name": "OUT", "type": "table", "schema": "ID BIGINT KEY, V INT",
                              "keyFormat": {"format": "KAFKA", "windowType": "SESSION"}, "valueFormat": "JSON"})
    assert source_diff(good, source) is None
    unwindowed = parse_post_source({"name": "OUT", "keyFormat": {"format": "KAFKA"}})
    assert source_diff(unwindowed, source) is not None
    assert source_diff(parse_post_source({"name": "OUT", "type": "stream"}), source) is not None


def test_a_source_is_found_by_its_name_as_given() -> None:
    from ksqlpy.catalog import Catalog
    from ksqlpy.testing.post import find_source

    catalog = Catalog()
    catalog.add_source(Source("OUT", "STREAM", "out", [Column("V", T.INTEGER)]))

    @dataclass
    class _WithCatalog:
        catalog: Catalog

    assert find_source(_WithCatalog(catalog), "OUT") is not None
    assert find_source(_WithCatalog(catalog), "out") is None  # ksqlDB's hasName is exact


def test_a_topics_key_and_value_schemas_are_compared_as_parsed_schemas() -> None:
    """ksqlDB's harness reads each subject's latest schema and compares it with the case's ``keySchema`` /
    ``valueSchema``: structure counts, spelling that a parsed schema forgets does not."""
    from ksqlpy.testing.post import registered_schema_diff

    inner = {"type": "record", "name": "OutKey_F", "fields": [{"name": "A", "type": ["null", "int"], "default": None}]}
    record = {"type": "record", "name": "OutKey", "namespace": "io.confluent.ksql.avro_schemas",
              "fields": [{"name": "F", "type": ["null", inner], "default": None}]}
    with_namespace = json.loads(json.dumps(record))
    with_namespace["fields"][0]["type"][1]["namespace"] = "io.confluent.ksql.avro_schemas"
    engine = _Engine(_Registry({
        "out-key": _Registered(json.dumps(with_namespace), "AVRO"),
        "int-key": _Registered('"int"', "AVRO"),
        "sr-key": _Registered(json.dumps({"oneOf": [{"type": "null"}, {"type": "string"}]}), "JSON"),
        "pb-value": _Registered('syntax = "proto3";\n\nmessage V {\n  int32 A = 1;\n}\n', "PROTOBUF"),
    }))
    # a nested record's namespace is its parent's whether written or not
    assert registered_schema_diff(record, engine, "out", True) is None
    # a primitive as a name, as {"type": name}, or as schema text
    for spelled in ("int", {"type": "int"}, '"int"'):
        assert registered_schema_diff(spelled, engine, "int", True) is None, spelled
    assert registered_schema_diff("long", engine, "int", True) is not None
    # AVRO's root is not optional: a union with null is another schema
    assert registered_schema_diff(["null", "int"], engine, "int", True) is not None
    assert registered_schema_diff({"oneOf": [{"type": "null"}, {"type": "string"}]}, engine, "sr", True) is None
    assert registered_schema_diff({"type": "string"}, engine, "sr", True) is not None
    # PROTOBUF: the schema text, whitespace aside
    assert registered_schema_diff('syntax = "proto3"; message V { int32 A = 1; }', engine, "pb", False) is None
    assert registered_schema_diff('syntax = "proto3"; message V { int64 A = 1; }', engine, "pb", False) is not None
    assert registered_schema_diff("int", engine, "absent", True) == "no schema registered"


def test_an_internal_topic_is_compared_with_its_plan_steps_formats() -> None:
    """Key format name, features (a single key in a format that could wrap it is UNWRAP_SINGLES), window,
    fullSchemaName (the step's source's) and value format name, as ksqlDB's harness lists them for
    repartition and changelog topics."""
    from ksqlpy.plan.topology import TopicKey
    from ksqlpy.testing.expansion import parse_topic
    from ksqlpy.testing.post import internal_format_diff

    key = TopicKey([("V", T.INTEGER)], "JSON_SR", "x.SKey", window=WindowInfo("HOPPING", 5000), value_format="JSON")
    spec = {"name": "t", "keyFormat": {"format": "JSON_SR", "features": ["UNWRAP_SINGLES"],
                                       "properties": {"fullSchemaName": "x.SKey"},
                                       "windowInfo": {"type": "HOPPING", "size": 5}},
            "valueFormat": {"format": "JSON"}}
    assert internal_format_diff(parse_topic(spec), key) is None
    for change, wanted in (({"features": []}, "features"), ({"windowInfo": {"type": "SESSION"}}, "window type"),
                           ({"windowInfo": {"type": "HOPPING", "size": 6}}, "window size"),
                           ({"properties": {"fullSchemaName": "x.TKey"}}, "fullSchemaName")):
        diff = internal_format_diff(parse_topic({**spec, "keyFormat": {**spec["keyFormat"], **change}}), key)
        assert diff is not None and wanted in diff
    unwindowed = {k: v for k, v in spec["keyFormat"].items() if k != "windowInfo"}
    assert "window type" in (internal_format_diff(parse_topic({**spec, "keyFormat": unwindowed}), key) or "")
    assert "valueFormat" in (internal_format_diff(parse_topic({**spec, "valueFormat": {"format": "AVRO"}}), key) or "")
    two = TopicKey([("A", T.INTEGER), ("B", T.INTEGER)], "JSON", value_format="JSON")
    assert internal_format_diff(parse_topic({"name": "t", "keyFormat": {"format": "JSON", "features": []}}), two) is None
