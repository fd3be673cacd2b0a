"""Every statement of ksqlDB's QTT corpus parses, and every case ksqlDB rejects as a syntax error fails.

The corpus is read from /work/shared at test time (never copied here); the test skips without it.
"""

from __future__ import annotations

import time

import pytest
from grammar_qtt_corpus import QTT_ROOT, REJECTED_BY_PARSER, load_cases

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import parse, parse_schema

pytestmark = pytest.mark.skipif(not QTT_ROOT.is_dir(), reason="QTT corpus not available")


def _failures(statements: list[str]) -> list[tuple[str, KsqlParseError]]:
    failures = []
    for statement in statements:
        try:
            # The QTT runner is ksqlDB's server: RUN SCRIPT is a CLI command there.
            parse(statement, allow_run_script=False)
        except KsqlParseError as e:
            failures.append((statement, e))
    return failures


def test_qtt_statements_parse_or_fail_as_ksqldb_does() -> None:
    cases = load_cases()
    wrong: list[str] = []
    statements = 0
    started = time.perf_counter()
    for case in cases:
        statements += len(case.statements)
        failures = _failures(case.statements)
        if case.expect_parse_error and not failures:
            wrong.append(f"{case.file} :: {case.name}: parsed, but ksqlDB rejects it as a syntax error")
        elif not case.expect_parse_error and failures:
            statement, error = failures[0]
            wrong.append(f"{case.file} :: {case.name}: {error}\n    {statement}")
    elapsed = time.perf_counter() - started
    expected_errors = sum(c.expect_parse_error for c in cases)
    print(
        f"\nQTT grammar: {len(cases)} cases ({expected_errors} expected parse failures), "
        f"{statements} statements, {len(cases) - len(wrong)} passed, {len(wrong)} failed, {elapsed:.2f}s"
    )
    assert not wrong, "\n".join(wrong)
    assert len(cases) > 1000


def test_explicit_exceptions_still_exist() -> None:
    names = {(c.file, c.name.split(" [")[0]) for c in load_cases()}
    assert set(REJECTED_BY_PARSER) <= names


def test_qtt_post_condition_schemas_parse() -> None:
    import json

    from grammar_qtt_corpus import QTT_DIRS, strip_line_comments

    schemas = set()
    for folder in QTT_DIRS:
        for path in sorted((QTT_ROOT / folder).glob("*.json")):
            for case in json.loads(strip_line_comments(path.read_text())).get("tests", []):
                for source in (case.get("post") or {}).get("sources", []):
                    if "schema" in source:
                        schemas.add(source["schema"])
    assert schemas
    for schema in schemas:
        assert parse_schema(schema), schema
