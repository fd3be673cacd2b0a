"""``${name}`` is one token of the grammar (grammar/variables.py, ``tokenize``): the text is parsed as written
before anything is substituted, so a reference stands only where an identifier or a literal may."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import check_variable_positions, parse, substitute_variables, tokenize
from ksqlpy.grammar.variables import references

VALUES = {"src": "S", "n": "1", "kind": "STREAM", "t": "BIGINT", "q": "'JSON'"}


def test_a_reference_is_one_token_and_a_glued_word_another() -> None:
    texts = [t.text for t in tokenize("SELECT x${n}, ${a}_b FROM ${src};")]
    assert texts == ["SELECT", "x", "${n}", ",", "${a}", "_b", "FROM", "${src}", ";"]


def test_no_reference_inside_strings_quoted_names_comments_or_after_an_escape() -> None:
    text = "SELECT '${a}', `${b}`, \"${c}\", $${d} /* ${e} */ FROM ${f}; -- ${g}"
    assert [name for _s, _e, name in references(text)] == ["f"]


def test_substitution_leaves_quoted_names_and_comments_as_written() -> None:
    text = "SELECT `${n}`, '${n}' /* ${n} */ FROM ${src};"
    assert substitute_variables(text, VALUES) == "SELECT `${n}`, '1' /* ${n} */ FROM S;"


@pytest.mark.parametrize("text", [
    "SELECT * FROM ${src} WHERE A > ${n} EMIT CHANGES;",
    "CREATE STREAM ${src} (K STRING KEY, V ${t}) WITH (kafka_topic='s', value_format=${q}, partitions=${n});",
    "SELECT CAST(-${n} AS ${t}), UCASE('${src}') FROM S;",
    "PRINT ${src} FROM BEGINNING;",
    "DROP STREAM IF EXISTS ${src};",
])
def test_identifier_and_literal_positions_parse(text: str) -> None:
    check_variable_positions(text)
    assert "${" not in parse(text, VALUES)[0].text.replace("'${", "")


@pytest.mark.parametrize(("text", "column"), [
    ("CREATE ${kind} X AS SELECT * FROM S;", 8),
    ("SELECT * FROM S EMIT ${c};", 22),
    ("CREATE STREAM ${src}_2 AS SELECT * FROM S;", 21),
    ("SELECT * FROM S WHERE A ${op} 1;", 25),
    ("SELECT * FROM S WINDOW TUMBLING (SIZE ${n} SECONDS) EMIT CHANGES;", 39),
    ("SELECT * FROM S EMIT CHANGES LIMIT ${n};", 36),
    ("CREATE STREAM X (V DECIMAL(${n}, 2)) WITH (kafka_topic='x', value_format='JSON');", 28),
    ("DEFINE x = ${n};", 12),
    ("SET 'auto.offset.reset' = ${n};", 27),
])
@pytest.mark.parametrize("variables", [VALUES, {}, None], ids=["defined", "undefined", "disabled"])
def test_other_positions_are_syntax_errors_whatever_the_values(
        text: str, column: int, variables: dict[str, str] | None) -> None:
    with pytest.raises(KsqlParseError) as caught:
        parse(text, variables)
    assert (caught.value.line, caught.value.column) == (1, column)
    assert "Syntax Error" in str(caught.value) and not caught.value.prepared


def test_an_undefined_reference_is_named_after_the_shape_check() -> None:
    with pytest.raises(KsqlParseError, match=r"line 1:15: Syntax Error\nVariable '\$\{nope\}' is not defined"):
        parse("SELECT * FROM ${nope};", {})


def test_disabled_substitution_leaves_names_and_refuses_literals() -> None:
    (stmt,) = parse("DROP STREAM ${src};", None)
    assert stmt.name == "${SRC}"  # type: ignore[attr-defined]
    with pytest.raises(KsqlParseError, match="Failed to prepare statement: line 1:65: Variable '\\$\\{q\\}'"):
        parse("CREATE STREAM X (K INT KEY) WITH (kafka_topic='x', value_format=${q});", None)


@pytest.mark.parametrize("name", ["a@b", "_x@", "src@v1", "x_1", "select"])
def test_define_and_undefine_take_every_name_a_reference_can_hold(name: str) -> None:
    """One spelling rule (variables.NAME, ksqlDB's IDENTIFIER): what ``${name}`` references, DEFINE defines."""
    (define,) = parse(f"DEFINE {name} = 'v';")
    (undefine,) = parse(f"UNDEFINE {name};")
    assert define.name == undefine.name == name  # type: ignore[attr-defined]
    if name != "select":
        assert [n for _s, _e, n in references(f"SELECT * FROM ${{{name}}};")] == [name]


@pytest.mark.parametrize("text", ["DEFINE @v = 'x';", "DEFINE 1v = 'x';", "UNDEFINE @v;"])
def test_a_variable_name_begins_with_a_letter_or_underscore(text: str) -> None:
    with pytest.raises(KsqlParseError, match="Syntax Error"):
        parse(text)
