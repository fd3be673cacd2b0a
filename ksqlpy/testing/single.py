"""Single-case mode, like ksqlDB's ``ksql-test-runner``: a SQL file, ``{"inputs": [...]}`` and
``{"outputs": [...]}`` files become one case."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.testing.expansion import parse_record
from ksqlpy.testing.loader import load_text
from ksqlpy.testing.model import Case
from ksqlpy.testing.support import static_skip_reason


def single_case(statements: str | Path, inputs: str | Path | None, outputs: str | Path | None) -> Case:
    """Build the case; the SQL file is split into statements run one by one, as QTT cases are."""
    sql_path = Path(statements)
    case = Case(file=sql_path.name, name="test",
                statements=split_statements(sql_path.read_text(encoding="utf-8")))
    try:
        case.inputs = [parse_record(r, is_input=True) for r in _records(inputs, "inputs")]
        case.outputs = [parse_record(r, is_input=False) for r in _records(outputs, "outputs")]
    except (OSError, ValueError) as e:
        case.error = f"malformed test files: {e}"
        return case
    case.skip_reason = static_skip_reason(case)
    return case


def _records(path: str | Path | None, field: str) -> list[object]:
    if path is None:
        return []
    data = load_text(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get(field), list):
        raise ValueError(f"{path}: expected an object with a {field!r} list")
    return data[field]


def split_statements(text: str) -> list[str]:
    """Split SQL text at ``;`` outside quotes ('..', `..`, "..") and ``--`` / ``/* */`` comments."""
    statements: list[str] = []
    start, i, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c in "'`\"":
            i += 1
            while i < n:
                if text[i] == c:
                    if i + 1 < n and text[i + 1] == c:  # doubled quote escapes itself
                        i += 2
                        continue
                    break
                i += 1
        elif text.startswith("--", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif c == ";":
            statements.append(_without_leading_comments(text[start : i + 1]))
            start = i + 1
        i += 1
    tail = _without_leading_comments(text[start:])
    if tail:
        statements.append(tail)
    return statements


def _without_leading_comments(sql: str) -> str:
    lines = sql.strip().splitlines()
    while lines and (lines[0].strip().startswith("--") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).strip()
