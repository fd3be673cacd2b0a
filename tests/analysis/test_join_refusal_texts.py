"""A join's refusals read exactly as ksqlDB's: the REST cases of ``tests/cases/rest/join-refusal-texts.json``
compare by containment (as ksqlDB's harness does), so a ``Line: n, Col: m:`` put before a text, or a text cut
short, would pass there; here each whole message is compared, on the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from statement_errors import statement_error

from ksqlpy.engine import Engine

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "cases" / "rest" / "join-refusal-texts.json").read_text())["tests"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_the_whole_refusal_text(tmp_path: Path, case: dict[str, Any]) -> None:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    try:
        *setup, refused = case["statements"]
        engine.execute("\n".join(setup))
        assert statement_error(engine, refused) == case["expectedError"]["message"]
    finally:
        engine.close()
