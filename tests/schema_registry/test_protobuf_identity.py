"""A PROTOBUF schema's identity in the registry is its parsed text, not its characters: Confluent compares
``ProtobufSchema.canonicalString()`` (the file rendered again), so the same schema laid out differently,
commented, or with single-quoted strings is the version and id it already has."""

from __future__ import annotations

import pytest

from ksqlpy.schema_registry import EmbeddedSchemaRegistry, canonical

PLAIN = 'syntax = "proto3";\nmessage Row {\n  int32 A = 1;\n  string B = 2 [json_name = "b"];\n}\n'
REFORMATTED = [
    'syntax="proto3"; message Row { int32 A=1; string B=2 [json_name="b"]; }',
    '// the row\nsyntax = "proto3";\n\n/* a message */\nmessage Row {\n\tint32 A = 1; // a\n  string B = 2 '
    '[json_name = "b"];\n}',
    "syntax = 'proto3';\nmessage Row {\n  int32 A = 1;\n  string B = 2 [json_name = 'b'];\n}\n",
]


@pytest.mark.parametrize("text", REFORMATTED)
def test_the_same_schema_reformatted_is_the_version_it_has(text: str) -> None:
    reg = EmbeddedSchemaRegistry()
    first = reg.register("t-value", PLAIN, "PROTOBUF")
    assert reg.register("t-value", text, "PROTOBUF") == first
    assert [v.version for v in reg.versions("t-value")] == [1]
    assert reg.latest("t-value").schema == PLAIN  # the text first registered is the one kept


@pytest.mark.parametrize("text", REFORMATTED)
def test_the_same_schema_reformatted_under_another_subject_gets_the_same_id(text: str) -> None:
    reg = EmbeddedSchemaRegistry()
    first = reg.register("a-value", PLAIN, "PROTOBUF")
    assert reg.register("b-value", text, "PROTOBUF") == first


def test_an_explicit_id_takes_the_same_schema_reformatted() -> None:
    reg = EmbeddedSchemaRegistry()
    reg.register("a-value", PLAIN, "PROTOBUF", schema_id=7)
    assert reg.register("b-value", REFORMATTED[0], "PROTOBUF", schema_id=7) == 7


@pytest.mark.parametrize("other", [
    PLAIN.replace("int32 A", "int64 A"),
    PLAIN.replace('"b"', '"c"'),
    PLAIN.replace("= 2", "= 3"),
    PLAIN.replace("Row", "Row2"),
])
def test_a_different_schema_is_a_new_id(other: str) -> None:
    reg = EmbeddedSchemaRegistry()
    first = reg.register("t-value", PLAIN, "PROTOBUF")
    assert reg.register("t-value", other, "PROTOBUF") != first


def test_strings_keep_their_contents_across_quote_styles() -> None:
    assert canonical("option x = 'it\\'s \"q\"';") == canonical('option x = "it\'s \\"q\\"";')
    assert canonical("option x = 'a';") != canonical("option x = 'b';")
    assert canonical('// a comment\nmessage M {}') != canonical('message M { int32 a = 1; }')


def test_json_texts_still_compare_as_json() -> None:
    assert canonical('{"type": "string"}') == canonical('{"type":"string"}')
    assert canonical('{"a": 1, "b": 2}') == canonical('{"b": 2, "a": 1}')
