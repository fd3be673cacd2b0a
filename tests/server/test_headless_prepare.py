"""How headless mode reads its queries file before anything runs (``server.headless.prepare``): the
statements are prepared in order as ``engine.script`` prepares any script - DEFINE/UNDEFINE and CREATE TYPE
change what the statements after them may use - and each is then held to the kinds ksqlDB's
``StandaloneExecutor`` has a handler for, named with its position (from memory of StandaloneExecutor)."""

from __future__ import annotations

import pytest

from ksqlpy.grammar import ast as A
from ksqlpy.server.headless import NO_QUERIES, HeadlessError, prepare

CREATE = "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='json', partitions=1);\n"
CSAS = "CREATE STREAM t AS SELECT * FROM s;\n"


def test_define_applies_to_the_statements_after_it() -> None:
    out = prepare("DEFINE topic = 'hl_t';\nCREATE STREAM s (id INT KEY) WITH (kafka_topic='${topic}', "
                  "value_format='json', partitions=1);\n" + CSAS)
    assert [type(s) for s in out] == [A.DefineVariable, A.CreateSource, A.CreateAsSelect]
    assert "'hl_t'" in out[1].text
    assert all(s.text == s.text.strip() for s in out)


def test_variables_given_are_substituted() -> None:
    out = prepare("CREATE STREAM s (id INT KEY) WITH (kafka_topic='${t}', value_format='json', partitions=1);\n"
                  + CSAS, {"t": "given"})
    assert "'given'" in out[0].text


def test_undefine_removes_the_variable_for_the_statements_after_it() -> None:
    with pytest.raises(HeadlessError, match=r"Variable '\$\{t\}' is not defined"):
        prepare("DEFINE t = 'x';\nUNDEFINE t;\nCREATE STREAM ${t} (id INT KEY) WITH (kafka_topic='s', "
                "value_format='json', partitions=1);\n" + CSAS)


def test_a_type_created_earlier_may_be_used_later() -> None:
    out = prepare("CREATE TYPE addr AS STRUCT<city STRING>;\n"
                  "CREATE STREAM s (id INT KEY, a addr) WITH (kafka_topic='s', value_format='json', partitions=1);\n"
                  + CSAS)
    assert [type(s) for s in out] == [A.CreateType, A.CreateSource, A.CreateAsSelect]


@pytest.mark.parametrize(("text", "where"), [
    (CREATE + "\nSHOW STREAMS;\n" + CSAS, "Line: 3, Col: 1"),
    (CREATE + "  DESCRIBE s;\n" + CSAS, "Line: 2, Col: 3"),
    (CREATE + "DROP STREAM s;\n" + CSAS, "Line: 2, Col: 1"),
])
def test_an_unsupported_statement_is_named_with_its_position(text: str, where: str) -> None:
    with pytest.raises(HeadlessError) as e:
        prepare(text)
    message = str(e.value)
    assert message.startswith(f"{where}: Unsupported statement. Only the following statements are supported "
                              "in headless mode:\n\tSET\n\tUNSET\n\tDEFINE\n\tUNDEFINE\n")
    assert message.splitlines()[-1].startswith("Statement: ")
    assert message.splitlines()[-1].endswith(";")


def test_the_unsupported_statement_comes_before_a_later_statements_preparation() -> None:
    # ksqlDB prepares a statement and looks for its handler before it prepares the next one
    with pytest.raises(HeadlessError, match="Line: 2, Col: 1: Unsupported statement"):
        prepare(CREATE + "SHOW STREAMS;\nCREATE STREAM ${nope} (id INT KEY) WITH (kafka_topic='u', "
                "value_format='json', partitions=1);\n" + CSAS)


def test_a_file_without_a_persistent_query_is_refused() -> None:
    with pytest.raises(HeadlessError) as e:
        prepare(CREATE + "INSERT INTO s (id, v) VALUES (1, 2);\n")
    assert str(e.value) == NO_QUERIES


def test_a_syntax_error_stops_the_file_with_its_position() -> None:
    with pytest.raises(HeadlessError, match="line 2:20: Syntax Error"):
        prepare(CREATE + "CREATE STREAM t AS SELEC * FROM s;\n")


def test_every_statement_ends_in_a_semicolon() -> None:
    with pytest.raises(HeadlessError):
        prepare(CREATE + "CREATE STREAM t AS SELECT * FROM s")


def test_a_syntax_error_anywhere_comes_before_any_statement_is_prepared() -> None:
    # ksqlDB's StandaloneExecutor parses the whole file (KsqlEngine.parse) before it prepares a statement
    with pytest.raises(HeadlessError, match="line 3:20: Syntax Error"):
        prepare(CREATE + "SHOW STREAMS;\nCREATE STREAM t AS SELEC * FROM s;\n")


def test_the_substitution_switch_applies_to_the_statements_after_it() -> None:
    out = prepare("DEFINE t = 'x';\nSET 'ksql.variable.substitution.enable' = 'false';\n"
                  "CREATE STREAM s (id INT KEY) WITH (kafka_topic='${t}', value_format='json', partitions=1);\n"
                  "UNSET 'ksql.variable.substitution.enable';\n"
                  "CREATE STREAM u (id INT KEY) WITH (kafka_topic='${t}', value_format='json', partitions=1);\n"
                  + CSAS)
    assert "'${t}'" in out[2].text
    assert "'x'" in out[4].text
