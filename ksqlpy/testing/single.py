"""Single-case mode, like ksqlDB's ``ksql-test-runner``: a SQL file, ``{"inputs": [...]}`` and
``{"outputs": [...]}`` files become one case."""

from __future__ import annotations

from pathlib import Path

from ksqlpy.testing.expansion import parse_record
from ksqlpy.testing.loader import load_text
from ksqlpy.testing.model import Case
from ksqlpy.testing.support import static_skip_reason


def single_case(statements: str | Path, inputs: str | Path | None, outputs: str | Path | None) -> Case:
    """Build the case; the whole SQL file is one statement text run by ``Engine.execute``."""
    sql_path = Path(statements)
    case = Case(file=sql_path.name, name="test", statements=[sql_path.read_text(encoding="utf-8")])
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
