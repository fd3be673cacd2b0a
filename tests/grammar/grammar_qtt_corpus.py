"""Reading ksqlDB's query-validation-test (QTT) files from /work/shared at test time.

The files are ksqlDB's data and are never copied into this repository; tests that use them skip
when the folder is absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

QTT_ROOT = Path("/work/shared/qtt")
QTT_DIRS = ("query-validation-tests", "rest-query-validation-tests")

# Messages ksqlDB gives for syntax errors even when it wraps them in a statement exception.
SYNTAX_MARKERS = (
    "mismatched input",
    "Syntax error",
    "Syntax Error",
    "extraneous input",
    "no viable alternative",
)


@dataclass
class QttCase:
    file: str
    name: str
    statements: list[str]
    expect_parse_error: bool


def strip_line_comments(text: str) -> str:
    """Remove ``//`` comments outside JSON strings (ksqlDB's JSON reader allows them)."""
    out: list[str] = []
    i, n, in_string = 0, len(text), False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            in_string = c != '"'
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


# Cases whose expected failure is neither a ParseFailedException nor worded as a syntax error, but
# that ksqlDB still raises while parsing/building its AST, so our parser rejects them too.
REJECTED_BY_PARSER: dict[tuple[str, str], str] = {
    ("pull-queries-with-limit-clause.json", "error on non-integer limit"): (
        "ksqlDB's AstBuilder rejects LIMIT 2.5 ('Value must be integer for command: LIMIT') while "
        "parsing; we raise the same message as a KsqlParseError"
    ),
    ("pull-queries-with-limit-clause.json", "error on limit clause in persistent queries - CTAS"): (
        "ksqlDB's AstBuilder refuses LIMIT in CREATE TABLE AS SELECT while it prepares the statement; we "
        "raise it ('Failed to prepare statement: ...') as a KsqlParseError"
    ),
    ("pull-queries-with-limit-clause.json", "error on limit clause in persistent queries - CSAS"): (
        "ksqlDB's AstBuilder refuses LIMIT in CREATE STREAM AS SELECT while it prepares the statement; we "
        "raise it ('Failed to prepare statement: ...') as a KsqlParseError"
    ),
    ("elements.json", "non-join select star with unknown qualifier"): (
        "ksqlDB's AstBuilder refuses a qualifier that is not the FROM source's name or alias while it prepares "
        "the statement; we raise it ('Failed to prepare statement: ...') as a KsqlParseError"
    ),
}


def _expects_parse_error(file: str, case: dict) -> bool:
    if (file, case["name"]) in REJECTED_BY_PARSER:
        return True
    expected = case.get("expectedException") or case.get("expectedError") or {}
    if expected.get("type", "").endswith("ParseFailedException"):
        return True
    message = expected.get("message") or ""
    return any(marker in message for marker in SYNTAX_MARKERS)


def _expansions(case: dict) -> Iterator[tuple[str, list[str]]]:
    """The case once per FORMAT / CONFIG value, placeholders substituted."""
    statements: list[str] = case["statements"]
    for placeholder, values in (("{FORMAT}", case.get("format")), ("{CONFIG}", case.get("config"))):
        if values:
            for value in values:
                yield f" [{value}]", [s.replace(placeholder, str(value)) for s in statements]
            return
    yield "", statements


def load_cases() -> list[QttCase]:
    cases: list[QttCase] = []
    for folder in QTT_DIRS:
        for path in sorted((QTT_ROOT / folder).glob("*.json")):
            data = json.loads(strip_line_comments(path.read_text()))
            for case in data.get("tests", []):
                expect_error = _expects_parse_error(path.name, case)
                for suffix, statements in _expansions(case):
                    cases.append(QttCase(path.name, case["name"] + suffix, statements, expect_error))
    return cases
