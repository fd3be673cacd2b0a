"""Golden binding tests: a SQL expression in, the bound expression as ksqlDB prints it and its type out.

Each file under ``golden/`` holds cases separated by blank lines: the expression on its first line, then
an indented ``<printed> : <TYPE>`` or ``! <error message>`` (new lines in messages written ``\\n``).
Lines starting with ``#`` are comments. The expressions read the columns of ``COLUMNS``.

Set ``KSQLPY_GOLDEN_UPDATE=1`` to rewrite the expected lines from what the binder does now (then review
the diff: the files are the specification).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ksqlpy import types as T
from ksqlpy.errors import KsqlError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.functions import builtin_registry
from ksqlpy.grammar import parse_expression

REGISTRY = builtin_registry()

GOLDEN = Path(__file__).parent / "golden"
COLUMNS: list[tuple[str, T.SqlType]] = [
    ("I", T.INTEGER), ("BI", T.BIGINT), ("DEC", T.Decimal(4, 2)), ("DBL", T.DOUBLE), ("S", T.STRING),
    ("FLAG", T.BOOLEAN), ("DT", T.DATE), ("TM", T.TIME), ("TS", T.TIMESTAMP), ("BYT", T.BYTES),
    ("ARR", T.Array(T.INTEGER)), ("M", T.Map(T.STRING, T.INTEGER)),
    ("ST", T.Struct((("F", T.STRING), ("G", T.INTEGER)))), ("lower", T.STRING),
]


def outcome(sql: str) -> str:
    try:
        e = bind(parse_expression(sql), Scope.of(COLUMNS), BindContext(REGISTRY))
    except KsqlError as err:
        return "! " + err.message.replace("\n", "\\n")
    return f"{e} : {e.type}"


def cases(path: Path) -> list[tuple[str, str]]:
    out = []
    for block in path.read_text().split("\n\n"):
        lines = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
        if lines:
            out.append((lines[0], lines[1].strip() if len(lines) > 1 else ""))
    return out


FILES = sorted(GOLDEN.glob("*.txt"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden(path: Path) -> None:
    if os.environ.get("KSQLPY_GOLDEN_UPDATE"):
        blocks = []
        for block in path.read_text().split("\n\n"):
            comments = [ln for ln in block.splitlines() if ln.startswith("#")]
            lines = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
            blocks.append("\n".join(comments + ([lines[0], "  " + outcome(lines[0])] if lines else [])))
        path.write_text("\n\n".join(blocks).rstrip("\n") + "\n")
    mismatches = [(sql, expected, got) for sql, expected in cases(path) if (got := outcome(sql)) != expected]
    assert not mismatches, "\n".join(f"{sql}\n  expected {e}\n  got      {g}" for sql, e, g in mismatches)
