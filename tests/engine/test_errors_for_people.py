"""Errors a user reads: never a Python exception text; an undefined ${var} is named with its position."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine import statements as S
from ksqlpy.errors import KsqlError, KsqlParseError, KsqlStatementError
from ksqlpy.grammar import ast as A

PYTHON_NAMES = ("ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "Traceback", "NoneType")


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path))
    yield e
    e.close()


def test_an_undefined_variable_is_named_with_its_position(engine: Engine) -> None:
    with pytest.raises(KsqlParseError) as err:
        engine.execute("SHOW STREAMS;\nSELECT * FROM ${orders} EMIT CHANGES;")
    assert (err.value.line, err.value.column) == (2, 15)
    assert "Variable '${orders}' is not defined. Define it first: DEFINE orders = '<value>';" in str(err.value)


def test_a_defined_variable_is_substituted_and_an_undefined_one_inside_a_literal_is_text(engine: Engine) -> None:
    engine.execute("DEFINE src_topic = 'in';")
    engine.execute("CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='${src_topic}', value_format='JSON', "
                   "partitions=1);")
    assert engine.catalog.source("S").topic == "in"
    engine.execute("INSERT INTO s (id, v) VALUES (1, '${not_defined}');")  # a literal: left as written


def test_without_substitution_a_variable_is_the_name_it_is_written_as(engine: Engine) -> None:
    """A VARIABLE token stands where a name may (ksqlDB's grammar); with substitution off nothing replaces it,
    so the source named ``${ORDERS}`` is unknown - not a variable that is undefined."""
    engine.execute("SET 'ksql.variable.substitution.enable'='false';")
    with pytest.raises(KsqlStatementError) as err:
        engine.execute("SELECT * FROM ${orders} EMIT CHANGES;")
    assert "${ORDERS} does not exist" in str(err.value)
    assert "is not defined" not in str(err.value)


def test_an_illegal_topic_name_is_the_logs_message_not_a_python_error(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError) as err:
        engine.execute("CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='a b', value_format='JSON', "
                       "partitions=1);")
    assert str(err.value).startswith('Topic name "a b" is illegal')
    assert not any(n in str(err.value) for n in PYTHON_NAMES)


def test_an_unexpected_failure_becomes_a_statement_error_without_python_text(engine: Engine,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(engine: Engine, stmt: A.Statement) -> None:
        return [][1]  # an IndexError, as a bug would raise

    monkeypatch.setitem(S.HANDLERS, A.Show, broken)
    with pytest.raises(KsqlError) as err:
        engine.execute("SHOW STREAMS;")
    text = str(err.value)
    assert text.startswith("Could not execute the statement (Show): ksqlpy failed unexpectedly.")
    assert not any(n in text for n in PYTHON_NAMES) and "out of range" not in text
    assert S.is_unexpected(err.value)


def test_a_user_error_echoing_the_words_is_not_the_bug_marker(engine: Engine) -> None:
    """The fuzz oracle and the server's sandbox fallback tell the bug stand-in by its cause, not by a
    message that quotes the statement (a fuzzed statement 'failed unexpectedly' did)."""
    for sql in ("failed unexpectedly;", "ksqlpy failed unexpectedly;", "SELECT * FROM `ksqlpy failed unexpectedly`;"):
        with pytest.raises(KsqlError) as err:
            engine.execute(sql)
        assert "failed unexpectedly" in str(err.value) and not S.is_unexpected(err.value)


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("auto.offset.reset", "sideways", "Invalid value sideways for configuration auto.offset.reset: String must be "
                                      "one of: latest, earliest, none"),
    ("auto.offset.reset", "none", "'none' is not valid for this property within KSQL"),
    ("commit.interval.ms", "abc", "Invalid value abc for configuration commit.interval.ms: Not a number of type LONG"),
    ("ksql.streams.num.stream.threads", "2.5", "Invalid value 2.5 for configuration num.stream.threads: "
                                               "Not a number of type INT"),
    ("ksql.create.or.replace.enabled", "maybe", "Invalid value maybe for configuration ksql.create.or.replace.enabled: "
                                                "Expected value to be either true or false"),
])
def test_a_bad_property_value_names_the_setting_when_it_is_set(engine: Engine, setting: str, value: str,
                                                               message: str) -> None:
    with pytest.raises(KsqlStatementError) as err:
        engine.execute(f"SET '{setting}'='{value}';")
    assert str(err.value) == message
    # as a request property too, before anything runs with it
    engine.execute("CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    with pytest.raises(KsqlStatementError) as err:
        engine.execute("CREATE STREAM c AS SELECT * FROM s;", {setting: value})
    assert str(err.value) == message
    assert engine.catalog.source("C") is None


def test_good_property_values_pass(engine: Engine) -> None:
    for setting, value in (("auto.offset.reset", "EARLIEST"), ("ksql.streams.commit.interval.ms", "100"),
                           ("ksql.query.pull.table.scan.enabled", "false"), ("ksql.streams.max.poll.records", "500")):
        engine.execute(f"SET '{setting}'='{value}';")


@pytest.mark.parametrize("sql", [
    "CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='p0', value_format='JSON', partitions=0);",
    "CREATE TABLE t (id INT PRIMARY KEY, v STRING) WITH (kafka_topic='p0', value_format='JSON', partitions=0);",
    "CREATE STREAM c WITH (kafka_topic='p0', partitions=0) AS SELECT * FROM src;",
])
def test_a_partition_count_the_log_refuses_is_the_statements_error(engine: Engine, sql: str) -> None:
    engine.execute("CREATE STREAM src (id INT KEY, v STRING) WITH (kafka_topic='src', value_format='JSON', "
                   "partitions=1);")
    with pytest.raises(KsqlError) as err:
        engine.execute(sql)
    assert str(err.value) == ("Failed to guarantee existence of topic p0\n"
                              "Caused by: Number of partitions was set to an invalid non-positive value.")
    assert not engine.log.topic_exists("p0")
    assert [s.name for s in engine.catalog.sources()] == ["SRC"]
    assert not engine.catalog.queries()


def test_format_rules_are_statement_errors_raised_by_the_format() -> None:
    from ksqlpy.serde import key_serde
    from ksqlpy.serde.base import FormatRuleError
    from ksqlpy.serde.capabilities import parse_delimiter
    from ksqlpy.serde.coerce import json_converter
    from ksqlpy.serde.delimited import DelimitedValueSerde
    from ksqlpy.serde.kafka_format import KafkaValueSerde
    from ksqlpy.serde.none_format import NoneSerde
    from ksqlpy.types import INTEGER, STRING, Array, Map

    cases = [
        (lambda: KafkaValueSerde([("A", INTEGER), ("B", INTEGER)]), "The 'KAFKA' format only supports a single field"),
        (lambda: KafkaValueSerde([("A", Array(INTEGER))]), "The 'KAFKA' format does not support type 'ARRAY'"),
        (lambda: NoneSerde([("A", INTEGER)]), "The 'NONE' format can only be used when no columns are defined"),
        (lambda: json_converter(Map(INTEGER, STRING), ""), "JSON only supports MAP types with STRING keys"),
        (lambda: DelimitedValueSerde([("A", Map(STRING, STRING))]), "The 'DELIMITED' format does not support type 'MAP'"),
        (lambda: parse_delimiter("ab"), "Invalid delimiter value: 'ab'. Delimiter must be a single character or "
                                        "TAB,SPACE\nExample valid value: ';'"),
        (lambda: key_serde("KAFKA", [("K", INTEGER)], window="HOPPING"),
         "HOPPING windowed keys need a positive window size"),
    ]
    for make, message in cases:
        with pytest.raises(FormatRuleError) as err:
            make()
        assert isinstance(err.value, KsqlStatementError) and str(err.value) == message


def test_any_other_exception_is_a_bug_whatever_its_text(engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    def broken(engine: Engine, stmt: A.Statement) -> None:
        raise ValueError("Topic 'x' has no partition 3")  # reads like a user error; it is a bug

    monkeypatch.setitem(S.HANDLERS, A.Show, broken)
    with pytest.raises(KsqlStatementError) as err:
        engine.execute("SHOW STREAMS;")
    assert str(err.value) == ("Could not execute the statement (Show): ksqlpy failed unexpectedly. The details are in "
                              "the engine's log; please report this as a bug.")
    [logged] = [r for r in caplog.records if r.getMessage().startswith("statement failed unexpectedly: SHOW STREAMS")]
    assert logged.exc_info is not None and "has no partition 3" in str(logged.exc_info[1])
