"""check_format: which (format, schema) pairs are legal, with ksqlDB's wording for the others."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde import check_format, key_serde, normalize_format, resolve_delimiter, value_serde
from ksqlpy.serde.formats import type_text
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DOUBLE,
    INTEGER,
    STRING,
    TIMESTAMP,
    Array,
    Decimal,
    Map,
    Struct,
)


def _msg(**kw) -> str:
    with pytest.raises(KsqlStatementError) as e:
        check_format(**kw)
    return e.value.message


def _value_reason(fmt: str, columns: list, **kw) -> str:  # type: ignore[type-arg]
    """The reason of a value-format refusal, after checking ksqlDB's GenericSerdeFactory wrapper around it."""
    msg = _msg(fmt=fmt, is_key=False, columns=columns, **kw)
    head, reason = msg.split("\nreason: ", 1)
    cols = ", ".join(f"`{n}` {type_text(t)}" for n, t in columns)
    single = len(columns) == 1
    features = ("[UNWRAP_SINGLES]" if single and kw.get("unwrapped") else
                "[WRAP_SINGLES]" if single and kw.get("wrapped") else "[]")
    assert head == (f"Value format does not support schema.\nformat: {fmt}\n"
                    f"schema: Persistence{{columns=[{cols}], features={features}}}")
    return reason


def test_format_names_are_case_insensitive() -> None:
    assert normalize_format("KafkA") == "KAFKA"
    assert normalize_format(" json ") == "JSON"
    check_format("delimited", is_key=False, columns=[("A", INTEGER)])


def test_unknown_format() -> None:
    assert _msg(fmt="FOO", is_key=False, columns=[]) == "Unknown format: FOO"


@pytest.mark.parametrize("fmt", ["protobuf", "PROTOBUF"])
def test_protobuf_with_a_registry_is_a_supported_format(fmt: str) -> None:
    check_format(fmt, is_key=False, columns=[("A", INTEGER)])
    assert _msg(fmt="PROTOBUF3", is_key=False, columns=[("A", INTEGER)]) == "Unknown format: PROTOBUF3"


def test_kafka_key_type_error_has_ksqldb_wrapper() -> None:
    msg = _msg(fmt="KAFKA", is_key=True, columns=[("K", BOOLEAN)])
    assert msg == (
        "Key format does not support schema.\nformat: KAFKA\n"
        "schema: Persistence{columns=[`K` BOOLEAN KEY], features=[]}\n"
        "reason: The 'KAFKA' format does not support type 'BOOLEAN'"
    )


def test_kafka_key_with_two_columns() -> None:
    msg = _msg(fmt="KAFKA", is_key=True, columns=[("ID", INTEGER), ("AGE", INTEGER)])
    assert "schema: Persistence{columns=[`ID` INTEGER KEY, `AGE` INTEGER KEY], features=[]}" in msg
    assert msg.endswith("reason: The 'KAFKA' format only supports a single field. Got: [`ID` INTEGER KEY, `AGE` INTEGER KEY]")


def test_kafka_key_decimal_shows_precision_and_scale() -> None:
    msg = _msg(fmt="KAFKA", is_key=True, columns=[("K", Decimal(21, 19))])
    assert "[`K` DECIMAL(21, 19) KEY]" in msg and "does not support type 'DECIMAL'" in msg


def test_kafka_values() -> None:
    for t in (INTEGER, BIGINT, DOUBLE, STRING, BYTES):
        check_format("KAFKA", is_key=False, columns=[("V", t)])
    assert _value_reason("KAFKA", [("V0", INTEGER), ("V1", STRING)]) == (
        "The 'KAFKA' format only supports a single field. Got: [`V0` INTEGER, `V1` STRING]"
    )
    assert _value_reason("KAFKA", [("V", TIMESTAMP)]) == "The 'KAFKA' format does not support type 'TIMESTAMP'"
    assert _value_reason("KAFKA", [("V", Array(INTEGER))]) == "The 'KAFKA' format does not support type 'ARRAY'"


def test_keyless_kafka_key_is_fine() -> None:
    check_format("KAFKA", is_key=True, columns=[])
    assert key_serde("KAFKA", []).serialize(()) is None


@pytest.mark.parametrize("t,base", [(Array(INTEGER), "ARRAY"), (Map(STRING, INTEGER), "MAP"),
                                    (Struct((("F0", STRING),)), "STRUCT")])
def test_delimited_rejects_nested_types(t, base: str) -> None:
    msg = _value_reason("DELIMITED", [("V0", t)])
    assert msg == f"The 'DELIMITED' format does not support type '{base}', column: `V0`"


def test_delimited_key_struct() -> None:
    msg = _msg(fmt="DELIMITED", is_key=True, columns=[("ROWKEY", Struct((("A", INTEGER),)))])
    assert "The 'DELIMITED' format does not support type 'STRUCT', column: `ROWKEY`" in msg


def test_json_needs_string_map_keys_anywhere() -> None:
    assert _value_reason("JSON", [("FOO", Map(INTEGER, DOUBLE))]) == "JSON only supports MAP types with STRING keys"
    assert _value_reason("JSON", [("FOO", Map(INTEGER, DOUBLE))], unwrapped=True) == (
        "JSON only supports MAP types with STRING keys")
    assert _value_reason("JSON", [("FOO", Map(INTEGER, DOUBLE))], wrapped=True) == (
        "JSON only supports MAP types with STRING keys")
    nested = Struct((("M", Array(Map(BIGINT, STRING))),))
    assert _value_reason("JSON", [("FOO", nested), ("BAR", INTEGER)], unwrapped=True) == (
        "JSON only supports MAP types with STRING keys")
    check_format("JSON", is_key=False, columns=[("FOO", Map(STRING, Array(Map(STRING, INTEGER))))])


@pytest.mark.parametrize("fmt", ["JSON", "KAFKA", "DELIMITED", "AVRO"])
def test_map_in_a_key_is_rejected_before_anything_else(fmt: str) -> None:
    t = Array(Map(INTEGER, DOUBLE))
    msg = _msg(fmt=fmt, is_key=True, columns=[("K", t)])
    assert msg == (
        "Map keys, including types that contain maps, are not supported as they may lead to unexpected "
        "behavior due to inconsistent serialization. Key column name: `K`. Column type: "
        "ARRAY<MAP<INTEGER, DOUBLE>>. See https://github.com/confluentinc/ksql/issues/6621 for more."
    )


def test_struct_types_display_with_backquoted_fields() -> None:
    assert type_text(Struct((("F", Map(STRING, STRING)),))) == "STRUCT<`F` MAP<STRING, STRING>>"


def test_wrap_single_value_rules() -> None:
    two = [("F0", STRING), ("F1", STRING)]
    for wrap in (True, False):
        assert _msg(fmt="JSON", is_key=False, columns=two, wrap_single_value=wrap) == (
            "'WRAP_SINGLE_VALUE' is only valid for single-field value schemas"
        )
    check_format("JSON", is_key=False, columns=two)  # not given: fine
    check_format("JSON", is_key=False, columns=[("F0", STRING)], wrap_single_value=False)
    check_format("KAFKA", is_key=False, columns=[("F0", STRING)], wrap_single_value=False)
    assert "'WRAP_SINGLE_VALUE' set to 'true'" in _msg(
        fmt="KAFKA", is_key=False, columns=[("F0", STRING)], wrap_single_value=True)


def test_none_format_only_without_columns() -> None:
    check_format("NONE", is_key=True, columns=[])
    msg = _value_reason("NONE", [("A", INTEGER)])
    assert msg == "The 'NONE' format can only be used when no columns are defined. Got: [`A` INTEGER]"
    assert key_serde("NONE", []).serialize(()) is None
    assert key_serde("NONE", []).deserialize(b"anything") == ()


def test_delimiters() -> None:
    assert resolve_delimiter(None) == ","
    assert resolve_delimiter("TAB") == "\t"
    assert resolve_delimiter("SPACE") == " "
    assert resolve_delimiter("|") == "|"
    with pytest.raises(KsqlStatementError, match="single character"):
        resolve_delimiter("||")
    with pytest.raises(KsqlStatementError, match="single character or TAB,SPACE"):
        resolve_delimiter("space")  # the names are exact, as in ksqlDB
    with pytest.raises(KsqlStatementError, match="cannot be empty"):
        resolve_delimiter("")
    with pytest.raises(KsqlStatementError):
        check_format("DELIMITED", is_key=False, columns=[("A", INTEGER)], delimiter="ab")


def test_factories_validate_too() -> None:
    with pytest.raises(KsqlStatementError, match="single field"):
        value_serde("KAFKA", [("A", INTEGER), ("B", INTEGER)])
    with pytest.raises(KsqlStatementError, match="Unknown format: XML"):
        key_serde("XML", [("A", INTEGER)])
