"""Loader, expansion and static skips of the QTT runner, on cases written for these tests."""

from __future__ import annotations

from decimal import Decimal

from ksqlpy.testing import exactjson
from ksqlpy.testing.expansion import expand_case, expand_file
from ksqlpy.testing.loader import load_text, strip_comments
from ksqlpy.testing.model import Window


def test_comments_are_stripped_outside_strings_only() -> None:
    text = '{"a": "x//y", // trailing note\n "b": 1 // another\n}'
    assert load_text(text) == {"a": "x//y", "b": 1}
    assert strip_comments('"\\"//" // c') == '"\\"//" '


def test_numbers_keep_their_exact_text() -> None:
    doc = load_text('{"a": 1.10, "b": 1.0E7, "c": 3}')
    assert doc["a"] == Decimal("1.10") and doc["a"].text == "1.10"
    assert doc["b"].scientific and not doc["a"].scientific
    assert isinstance(doc["c"], int)
    assert exactjson.dumps(doc) == '{"a":1.10,"b":1.0E7,"c":3}'


def _case(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "copy",
        "statements": ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='{FORMAT}');"],
        "inputs": [{"topic": "s", "key": 1, "value": {"V": 2}}],
        "outputs": [{"topic": "OUT", "key": 1, "value": {"V": 2}, "timestamp": 5}],
    }
    base.update(extra)
    return base


def test_format_expansion_substitutes_everywhere_and_names_cases() -> None:
    cases = expand_case(_case(format=["JSON", "DELIMITED"]), "f.json")
    assert [c.name for c in cases] == ["copy [JSON]", "copy [DELIMITED]"]
    assert "value_format='DELIMITED'" in cases[1].statements[0]
    assert cases[0].inputs[0].timestamp == 0  # inputs default to timestamp 0
    assert cases[0].outputs[0].timestamp == 5
    assert cases[0].id == "f.json :: copy [JSON]"


def test_config_expansion_substitutes_property_values() -> None:
    raw = _case(config=["true", "false"], properties={"ksql.new.query.planner.enabled": "{CONFIG}"})
    cases = expand_case(raw, "f.json")
    assert [c.name for c in cases] == ["copy [true]", "copy [false]"]
    assert cases[1].properties == {"ksql.new.query.planner.enabled": "false"}


def test_static_skips_name_their_reason() -> None:
    def reason(**extra: object) -> str | None:
        return expand_case(_case(**extra), "f.json")[0].skip_reason

    assert reason(format=["JSON"]) is None
    assert "versions.max" in (reason(format=["JSON"], versions={"max": "6.0.0"}) or "")
    assert reason(format=["JSON"], versions={"min": "7.0.0"}) is None
    assert reason(format=["AVRO"]) is None  # the schema-registry formats run (embedded registry)
    assert reason(format=["PROTOBUF"]) is None
    assert reason(format=["JSON"], enabled=False) == "disabled in the QTT file (enabled: false)"
    # properties never skip: ksqlDB's harness hands each to its KsqlConfig (unknown names ignored) and the
    # engine decides, either spelling
    assert reason(format=["JSON"], properties={"made.up.prop": "1"}) is None
    assert reason(format=["JSON"], properties={"ksql.streams.auto.offset.reset": "latest"}) is None
    assert reason(format=["JSON"], properties={"ksql.functions.collect_list.limit": 3}) is None
    assert reason(format=["JSON"], properties={"ksql.functions.test_udaf.init": 100}) is None  # configure()
    assert reason(format=["JSON"], topics=[{"name": "s", "valueSchema": {"type": "int"}}]) is None
    assert "schema references" in (reason(format=["JSON"], topics=[{"name": "s", "valueSchemaReferences": []}]) or "")
    assert reason(format=["JSON"], post={"sources": [{"name": "X", "type": "stream",
                                                       "valueFormat": "PROTOBUF"}]}) is None


def test_rest_cases_are_skipped_but_keep_their_responses() -> None:
    raw = {"name": "pull", "statements": ["SELECT 1;"], "responses": [{"admin": {"@type": "currentStatus"}}]}
    [case] = expand_file({"tests": [raw]}, "r.json", rest=True)
    assert case.skip_reason == "REST case: needs --rest"
    assert case.responses == [{"admin": {"@type": "currentStatus"}}]


def test_records_windows_headers_and_malformed_cases() -> None:
    raw = _case(format=["JSON"], inputs=[{"topic": "s", "key": "k", "value": None,
                                           "window": {"start": 0, "end": 10, "type": "TUMBLING"},
                                           "headers": [{"KEY": "h", "VALUE": "IQ=="}, {"KEY": "n", "VALUE": None}]}])
    [case] = expand_case(raw, "f.json")
    rec = case.inputs[0]
    assert rec.window == Window(0, 10, "time")
    assert rec.headers == [("h", b"!"), ("n", None)]
    [bad] = expand_case({"name": "bad", "statements": [], "inputs": [{"value": 1}]}, "f.json")
    assert bad.error and "record without topic" in bad.error
