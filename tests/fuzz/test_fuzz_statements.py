"""Fuzzing the parser and the engine in-process: generated statements (the dialect's grammar, mutations of
it, deep nesting, random text) are parsed and run against a sandbox of an engine with sources of every type
(analysis and planning in full, nothing started), and a share of the SELECTs is started for real as push
queries (code generation included). Every outcome must be a result or a user error (``KsqlError``) - never
another exception, never the 'failed unexpectedly' error that stands for one.

Each example draws ``GRAMMAR`` statements from the grammar, ``VARIANTS`` cheap mutations of each and ``NOISE``
random texts. Bounded by count (``FUZZ_STATEMENTS``, default 100,000 per run), marked slow; a failure names
its statement (no shrinking: a batch of a hundred takes minutes to shrink). ``FUZZ_COLLECT=1`` explores:
failures are collected and printed at the end instead of stopping the run.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sql_strategies import SETUP, fuzz_batches, selects

from ksqlpy.engine import Engine
from ksqlpy.engine.sandbox import Sandbox
from ksqlpy.engine.statements import is_unexpected
from ksqlpy.errors import KsqlError
from ksqlpy.grammar import ast as A

# generated code that Python warns about (``1 is None``) fails the run: compile() raises it as a SyntaxError
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("error::SyntaxWarning")]

TOTAL = int(os.environ.get("FUZZ_STATEMENTS", "100000"))
# per example: statements from the grammar, mutations of each, random texts (FUZZ_MIX="50,0,0" explores semantics)
GRAMMAR, VARIANTS, NOISE = (int(x) for x in os.environ.get("FUZZ_MIX", "12,6,16").split(","))
PER_EXAMPLE = GRAMMAR * (1 + VARIANTS) + NOISE
EXAMPLES = max(1, -(-TOTAL // PER_EXAMPLE))
RUN_EVERY = 10  # one SELECT in this many is also started for real
READ_ONLY = (A.SelectStatement, A.Describe, A.Show, A.Explain)
_counts = {"statements": 0, "parsed": 0, "ran": 0, "user_errors": 0, "started": 0}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("fuzz")), {"ksql.logging.processing.stream.auto.create": "false"})
    for sql in SETUP:
        e.execute(sql)
    logging.getLogger("ksqlpy").setLevel(logging.CRITICAL)  # user errors are expected by the thousand
    yield e
    e.close()
    print(f"\nfuzzed in-process: {_counts}")
    if FAILURES:
        print("\n".join(FAILURES))


FAILURES: list[str] | None = [] if os.environ.get("FUZZ_COLLECT") else None  # explore: collect, do not stop


def check(outcome: Exception | None, sql: str) -> None:
    if outcome is None:
        return
    if FAILURES is not None and (not isinstance(outcome, KsqlError) or is_unexpected(outcome)):
        cause = outcome.__cause__ or outcome
        FAILURES.append(f"{type(cause).__name__}: {str(cause)[:150]} <- {sql[:300]}")
        return
    if not isinstance(outcome, KsqlError):
        raise AssertionError(f"{type(outcome).__name__} escaped for: {sql[:2000]}") from outcome
    if is_unexpected(outcome):
        raise AssertionError(f"an internal error for: {sql[:2000]}") from (outcome.__cause__ or outcome)
    _counts["user_errors"] += 1


def run_one(engine: Engine, box: Sandbox, sql: str) -> None:
    _counts["statements"] += 1
    try:
        statements = engine.parse(sql)
    except Exception as e:  # noqa: BLE001 - judged by check
        check(e, sql)
        return
    _counts["parsed"] += 1
    for stmt in statements:
        try:
            if isinstance(stmt, READ_ONLY):  # queries and descriptions run on the engine itself
                result = engine.execute_statement(stmt, {"auto.offset.reset": "earliest"})
                if result.kind == "push":  # started (its pipeline generated and compiled), then closed
                    _counts["started"] += 1
                    with engine.lock:
                        result.data.close()
            else:  # what would change the engine runs against the sandbox (planned in full, nothing kept)
                box.execute_statement(stmt, {})
            _counts["ran"] += 1
        except Exception as e:  # noqa: BLE001
            check(e, sql)


@given(fuzz_batches(GRAMMAR, VARIANTS, NOISE), st.data())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=[Phase.generate])
def test_statements_never_fail_unexpectedly(engine: Engine, batch: list[str], data: Any) -> None:
    with engine.lock:
        box = Sandbox(engine)
    for sql in batch:
        run_one(engine, box, sql)
    if data.draw(st.integers(0, RUN_EVERY - 1)) == 0:
        push = data.draw(selects()).rstrip(";")
        if "EMIT" not in push:
            push += " EMIT CHANGES"
        try:
            [result] = engine.execute(push + " LIMIT 1;", {"auto.offset.reset": "earliest"})
        except Exception as e:  # noqa: BLE001
            check(e, push)
        else:
            _counts["started"] += 1
            if result.kind == "push":
                with engine.lock:
                    result.data.close()


def test_the_budget_was_fuzzed() -> None:
    """A CI run fuzzes at least 100,000 statements in-process unless told otherwise (runs after the fuzz)."""
    if not _counts["statements"]:
        pytest.skip("the fuzz test did not run")
    assert _counts["statements"] >= TOTAL
    if "FUZZ_STATEMENTS" not in os.environ:
        assert _counts["statements"] >= 100_000
