"""Completion candidates by context, over a stand-in backend."""

from __future__ import annotations

from ksqlpy.cli.backend import SourceInfo
from ksqlpy.cli.completer import CompletionSource, make_completer
from ksqlpy.cli.session import CLI_COMMANDS


class FakeCatalog:
    def sources(self) -> list[SourceInfo]:
        return [SourceInfo("PAGEVIEWS", "STREAM", ["ID", "PAGE", "VIEWTIME"]),
                SourceInfo("USERS", "TABLE", ["USERID", "REGION"])]

    def functions(self) -> list[str]:
        return ["ABS", "PARSE_DATE", "UCASE"]

    def topics(self) -> list[str]:
        return ["pageviews", "users"]

    def property_names(self) -> list[str]:
        return ["auto.offset.reset", "ksql.service.id"]


def complete(text: str) -> tuple[str, list[str]]:
    prefix, cands = CompletionSource(FakeCatalog(), CLI_COMMANDS).candidates(text)
    return prefix, [c.text for c in cands]


def test_statement_start_and_cli_commands() -> None:
    assert complete("sel") == ("sel", ["select"])
    assert complete("SH")[1] == ["SHOW"]
    assert "help" in complete("he")[1]
    assert complete("SELECT 1; DESC")[1] == ["DESCRIBE"]


def test_sources_after_from_join_describe() -> None:
    assert complete("SELECT * FROM pa") == ("pa", ["PAGEVIEWS"])
    assert complete("SELECT * FROM ")[1] == ["PAGEVIEWS", "USERS"]
    assert complete("DESCRIBE EXTENDED u")[1] == ["USERS"]
    assert complete("SELECT * FROM PAGEVIEWS p JOIN us")[1] == ["USERS"]


def test_columns_of_referenced_sources_first() -> None:
    _, cands = complete("SELECT PAGE, V")
    assert cands[0] == "VIEWTIME"
    _, cands = complete("SELECT * FROM USERS WHERE R")
    assert cands[0] == "REGION"
    assert "REGION" not in complete("SELECT * FROM PAGEVIEWS WHERE R")[1]


def test_functions_and_keywords() -> None:
    _, cands = complete("SELECT uc")
    assert "UCASE" in cands
    assert "WHERE" in complete("SELECT * FROM PAGEVIEWS WH")[1]
    assert complete("DESCRIBE FUNCTION pa")[1] == ["PARSE_DATE"]


def test_properties_inside_set_and_topics_after_print() -> None:
    assert complete("SET 'auto") == ("auto", ["auto.offset.reset'"])
    assert complete("UNSET 'ksql.")[1] == ["ksql.service.id'"]
    assert complete("PRINT 'pa")[1] == ["pageviews'"]
    assert complete("PRINT u")[1] == ["users"]
    assert complete("SHOW ")[1][:2] == ["STREAMS", "TABLES"]


def test_nothing_inside_strings_and_comments() -> None:
    assert complete("SELECT 'pa")[1] == []
    assert complete("SELECT 1 /* pa")[1] == []


def test_quoted_names() -> None:
    assert complete("SELECT * FROM `PAG") == ("PAG", ["PAGEVIEWS`"])


def test_prompt_toolkit_completer() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    completer = make_completer(CompletionSource(FakeCatalog(), CLI_COMMANDS))
    got = list(completer.get_completions(Document("SELECT * FROM pa"), CompleteEvent(completion_requested=True)))
    assert [(c.text, c.start_position) for c in got] == [("PAGEVIEWS", -2)]
