"""WITH clauses are checked while the statement is built: ksqlDB's keys per statement kind, value types and
validators, each failure a parse failure reading ``Failed to prepare statement: ...``."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse
from ksqlpy.grammar.with_clause import PropertyScope, prepare_properties

CREATE = "CREATE STREAM s (k INT KEY, v STRING) WITH (kafka_topic='t', value_format='DELIMITED', {props});"
CREATE_TABLE = "CREATE TABLE s (k INT PRIMARY KEY, v STRING) WITH (kafka_topic='t', value_format='DELIMITED', {props});"
CSAS = "CREATE STREAM s WITH ({props}) AS SELECT * FROM src;"
CTAS = "CREATE TABLE s WITH ({props}) AS SELECT * FROM src;"
EVERY_CREATE = [CREATE, CREATE_TABLE, CSAS, CTAS]
PREFIX = "Failed to prepare statement: "
EXAMPLE = "\nExample valid value: ';'"


def _error(sql: str) -> str:
    with pytest.raises(KsqlParseError) as err:
        parse(sql)
    return err.value.message


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize("prop", ["KEY_DELIMITER", "VALUE_DELIMITER"])
@pytest.mark.parametrize("value", ["", " ", "   ", "\t"])
def test_a_blank_delimiter_is_refused(template: str, prop: str, value: str) -> None:
    assert _error(template.format(props=f"{prop}='{value}'")) == (
        f"{PREFIX}Configuration {prop} is invalid: Delimiter cannot be empty, if you meant to have a tab or space "
        f"for delimiter, please use the special values 'TAB' or 'SPACE'{EXAMPLE}")


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize("prop", ["KEY_DELIMITER", "VALUE_DELIMITER"])
@pytest.mark.parametrize("value", ["||", "tab", "Space", "TABS", "\\t"])
def test_a_delimiter_is_one_character_or_a_name(template: str, prop: str, value: str) -> None:
    assert _error(template.format(props=f"{prop}='{value}'")) == (
        f"{PREFIX}Configuration {prop} is invalid: Invalid delimiter value: '{value}'. Delimiter must be a single "
        f"character or TAB,SPACE{EXAMPLE}")


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize("value", ["|", ";", "$", "TAB", "SPACE"])
def test_good_delimiters_parse(template: str, value: str) -> None:
    parse(template.format(props=f"VALUE_DELIMITER='{value}'"))


@pytest.mark.parametrize("template", EVERY_CREATE)
def test_unknown_keys_are_named(template: str) -> None:
    assert _error(template.format(props="ZED=1, FOO='x'")) == (
        f"{PREFIX}Invalid config variable(s) in the WITH clause: FOO,ZED")


@pytest.mark.parametrize("template", [CSAS, CTAS])
@pytest.mark.parametrize("prop", ["WINDOW_TYPE='TUMBLING'", "WINDOW_SIZE='1 SECOND'", "SOURCE_CONNECTOR='c'"])
def test_create_as_select_has_no_window_or_connector_keys(template: str, prop: str) -> None:
    key = prop.split("=")[0]
    assert _error(template.format(props=prop)) == f"{PREFIX}Invalid config variable(s) in the WITH clause: {key}"


@pytest.mark.parametrize("prop", ["KAFKA_TOPIC='x'", "VALUE_FORMAT='JSON'", "PARTITIONS=2", "TIMESTAMP='v'"])
def test_insert_into_select_takes_only_a_query_id(prop: str) -> None:
    key = prop.split("=")[0]
    assert _error(f"INSERT INTO s WITH ({prop}) SELECT * FROM src;") == (
        f"{PREFIX}Invalid config variable(s) in the WITH clause: {key}")
    parse("INSERT INTO s WITH (QUERY_ID='my_query') SELECT * FROM src;")


def test_create_needs_a_topic_but_create_as_select_does_not() -> None:
    assert _error("CREATE STREAM s (v INT) WITH (value_format='JSON');") == (
        f'{PREFIX}Missing required property "KAFKA_TOPIC" which has no default value.')
    parse("CREATE STREAM s WITH (value_format='JSON') AS SELECT * FROM src;")


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize(("prop", "value", "kind"), [
    ("PARTITIONS", "'four'", "INT"), ("REPLICAS", "'x'", "SHORT"), ("RETENTION_MS", "'soon'", "LONG"),
    ("KEY_SCHEMA_ID", "'one'", "INT"), ("VALUE_SCHEMA_ID", "'1.5'", "INT"), ("REPLICAS", "70000", "SHORT"),
])
def test_numeric_properties_are_numbers(template: str, prop: str, value: str, kind: str) -> None:
    assert _error(template.format(props=f"{prop}={value}")) == (
        f"{PREFIX}Invalid value {value.strip(chr(39))} for property {prop}: Not a number of type {kind}")


@pytest.mark.parametrize("template", EVERY_CREATE)
def test_wrap_single_value_is_a_boolean(template: str) -> None:
    assert _error(template.format(props="WRAP_SINGLE_VALUE='maybe'")) == (
        f"{PREFIX}Invalid value maybe for property WRAP_SINGLE_VALUE: Expected value to be either true or false")
    stmt = parse(template.format(props="WRAP_SINGLE_VALUE='False'"))[0]
    assert stmt.properties["WRAP_SINGLE_VALUE"] is False


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize(("pattern", "reason"), [
    ("yyyy-MM-dd bb", "Unknown pattern letter: b"),
    ("yyyy-MM-dd'T", "Pattern ends with an incomplete string literal: yyyy-MM-dd'T"),
])
def test_timestamp_format_is_a_java_pattern(template: str, pattern: str, reason: str) -> None:
    quoted = pattern.replace("'", "''")
    assert _error(template.format(props=f"TIMESTAMP_FORMAT='{quoted}'")) == (
        f"{PREFIX}Invalid datetime format for config:TIMESTAMP_FORMAT, reason:{reason}")


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize("which", ["KEY", "VALUE"])
def test_nullable_representation_values(template: str, which: str) -> None:
    assert _error(template.format(props=f"{which}_PROTOBUF_NULLABLE_REPRESENTATION='MAYBE'")) == (
        f"{PREFIX}Invalid value MAYBE for property {which}_PROTOBUF_NULLABLE_REPRESENTATION: String must be one "
        "of: OPTIONAL, WRAPPER, null")


WINDOWED = "CREATE TABLE w (k INT PRIMARY KEY, v INT) WITH (kafka_topic='t', value_format='JSON', {props});"


@pytest.mark.parametrize(("size", "reason"), [
    ("10", "Expected 2 tokens, got: 1"),
    ("1 2 SECONDS", "Expected 2 tokens, got: 3"),
    ("ten SECONDS", "Not numeric: 'ten'"),
    ("10 fortnights", "Unknown time unit: 'FORTNIGHTS'\nSupported time units are: NANOSECONDS, MICROSECONDS, "
                      "MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS"),
    ("10 S", "Unknown time unit: 'S'\n"),
    ("10  SECONDS", "Expected 2 tokens, got: 3"),  # Java's split("\\s"): two spaces make an empty token
    ("", "Expected 2 tokens, got: 1"),
    ("--10 SECONDS", "Not numeric: '--10'"),
    ("1.5 SECONDS", "Not numeric: '1.5'"),
    ("99999999999999999999 SECONDS", "Not numeric: '99999999999999999999'"),
])
def test_window_size_is_a_duration(size: str, reason: str) -> None:
    msg = _error(WINDOWED.format(props=f"WINDOW_TYPE='HOPPING', WINDOW_SIZE='{size}'"))
    assert msg.startswith(f"{PREFIX}Configuration WINDOW_SIZE is invalid: Invalid duration: '{size}'. {reason}")


def test_string_values_are_trimmed_before_their_validators() -> None:
    # ConfigDef.parseType returns a STRING value trimmed (Java's trim), and the validator sees that value
    stmt = parse(WINDOWED.format(props="WINDOW_TYPE=' hopping ', WINDOW_SIZE=' 10 SECONDS\t'"))[0]
    assert stmt.properties["WINDOW_SIZE"] == "10 SECONDS"
    assert stmt.properties["KAFKA_TOPIC"] == "t"
    stmt = parse("CREATE STREAM s (v INT) WITH (kafka_topic=' t\n', value_format=' JSON ');")[0]
    assert (stmt.properties["KAFKA_TOPIC"], stmt.properties["VALUE_FORMAT"]) == ("t", "JSON")


@pytest.mark.parametrize("window_type", ["tumbling", "HOPPING", "Hopping"])
def test_time_windows_need_a_size(window_type: str) -> None:
    assert _error(WINDOWED.format(props=f"WINDOW_TYPE='{window_type}'")) == (
        f"{PREFIX}{window_type.upper()} windows require 'WINDOW_SIZE' to be provided in the WITH clause. "
        "For example: 'WINDOW_SIZE'='10 SECONDS'")
    parse(WINDOWED.format(props=f"WINDOW_TYPE='{window_type}', WINDOW_SIZE='10 SECOND'"))


@pytest.mark.parametrize("size", ["+10 SECONDS", "10 SECONDS ", "10\tseconds", "10 second"])
def test_window_sizes_parsed_as_java_does(size: str) -> None:
    parse(WINDOWED.format(props=f"WINDOW_TYPE='TUMBLING', WINDOW_SIZE='{size}'"))


def test_a_size_without_a_window_type_is_refused_in_the_session_wording() -> None:
    assert _error(WINDOWED.format(props="WINDOW_SIZE='10 SECONDS'")) == (
        f"{PREFIX}'WINDOW_SIZE' should not be set for SESSION windows.")


def test_session_windows_have_no_size() -> None:
    assert _error(WINDOWED.format(props="WINDOW_TYPE='session', WINDOW_SIZE='10 SECONDS'")) == (
        f"{PREFIX}'WINDOW_SIZE' should not be set for SESSION windows.")
    assert _error(WINDOWED.format(props="WINDOW_TYPE='SLIDING'")) == (
        f"{PREFIX}Invalid value SLIDING for property WINDOW_TYPE: String must be one of: SESSION, HOPPING, TUMBLING, null")


@pytest.mark.parametrize("prop", ["KEY_PROTOBUF_NULLABLE_REPRESENTATION", "VALUE_PROTOBUF_NULLABLE_REPRESENTATION"])
def test_enum_values_list_null_among_the_valid_ones(prop: str) -> None:
    # ConfigValidators.enumValues: the enum's names plus null (the unset default), listed in its message
    assert _error(CREATE.format(props=f"{prop}='sometimes'")) == (
        f"{PREFIX}Invalid value sometimes for property {prop}: String must be one of: OPTIONAL, WRAPPER, null")


_NUMERIC = [("PARTITIONS", "32-bit integer"), ("REPLICAS", "16-bit integer (short)"),
            ("RETENTION_MS", "64-bit integer (long)"), ("KEY_SCHEMA_ID", "32-bit integer"),
            ("VALUE_SCHEMA_ID", "32-bit integer")]


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize(("prop", "expected"), _NUMERIC)
@pytest.mark.parametrize(("literal", "shown", "java_class"), [
    ("1.50", "1.50", "java.math.BigDecimal"),  # a decimalLiteral: BigDecimal keeps the text's scale
    ("-2.0", "-2.0", "java.math.BigDecimal"),
    (".5", "0.5", "java.math.BigDecimal"),
    ("1e3", "1000.0", "java.lang.Double"),  # a floatLiteral: Double.toString
    ("2.5E7", "2.5E7", "java.lang.Double"),
    ("true", "true", "java.lang.Boolean"),
])
def test_a_number_property_names_the_literal_class_it_got(template: str, prop: str, expected: str, literal: str,
                                                          shown: str, java_class: str) -> None:
    # Kafka's ConfigDef.parseType takes a String (parsed) or the type's own class; ksqlDB swaps 'configuration'
    # for 'property'
    assert _error(template.format(props=f"{prop}={literal}")) == (
        f"{PREFIX}Invalid value {shown} for property {prop}: Expected value to be a {expected}, "
        f"but it was a {java_class}")


@pytest.mark.parametrize("template", EVERY_CREATE)
@pytest.mark.parametrize(("prop", "expected"), [p for p in _NUMERIC if p[0] != "RETENTION_MS"])
@pytest.mark.parametrize("literal", ["2147483648", "3000000000", "9223372036854775807"])
def test_an_integer_literal_beyond_int_is_a_long_to_an_int_or_short_property(template: str, prop: str,
                                                                             expected: str, literal: str) -> None:
    # ParserUtil.visitIntegerLiteral makes a LongLiteral of it: ConfigDef.parseType's INT and SHORT take no
    # java.lang.Long whatever its value (quoted, the same digits are a String that fails to parse instead)
    assert _error(template.format(props=f"{prop}={literal}")) == (
        f"{PREFIX}Invalid value {literal} for property {prop}: Expected value to be a {expected}, "
        "but it was a java.lang.Long")
    assert _error(template.format(props=f"{prop}='{literal}'")) == (
        f"{PREFIX}Invalid value {literal} for property {prop}: Not a number of type "
        f"{'SHORT' if prop == 'REPLICAS' else 'INT'}")


@pytest.mark.parametrize("template", EVERY_CREATE)
def test_a_long_literal_is_a_long_property_value(template: str) -> None:
    stmt = parse(template.format(props="RETENTION_MS=3000000000"))[0]
    assert stmt.properties["RETENTION_MS"] == 3000000000


def test_prepare_errors_keep_the_clause_position_out_of_their_text() -> None:
    with pytest.raises(KsqlParseError) as err:
        parse("SHOW STREAMS;\nCREATE STREAM s (v INT) WITH (value_format='JSON', foo=1);")
    assert err.value.line == 2 and err.value.column == 25
    assert err.value.message == f"{PREFIX}Invalid config variable(s) in the WITH clause: FOO"


def test_a_syntax_error_in_the_query_comes_before_the_with_clause() -> None:
    assert _error("CREATE STREAM s WITH (foo=1) AS SELECT * FROM;").startswith("line 1:")


def test_prepared_values_are_typed() -> None:
    props = prepare_properties(PropertyScope.CREATE_SOURCE, {"kafka_topic": "t", "partitions": "4",
                                                             "replicas": 1, "wrap_single_value": "TRUE"})
    assert props == {"KAFKA_TOPIC": "t", "PARTITIONS": 4, "REPLICAS": 1, "WRAP_SINGLE_VALUE": True}
