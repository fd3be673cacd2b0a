"""Run the pull-query REST conformance files through the Engine API (no HTTP server).

    python tests/stateful/rest_pull.py [FILES/DIRS...] [-k SUBSTRING] [-v] [--report FILE.json]

Like ksqlDB's RestTestExecutor: admin statements run first, then the inputs are produced and processed,
then the queries run and their answers are compared with ``responses`` (header schema and rows; rows
compare as a multiset - ksqlDB's table scans have no defined order). ``expectedError`` cases pass when the
failing statement's message contains the expected one. Cases needing REST-only behaviour (push queries,
``inputConditions``, schema-registry formats) are skipped with the reason.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

from ksqlpy.testing.executor import HARNESS_PROPERTIES, _Done, _Run, deadline
from ksqlpy.testing.model import Case
from ksqlpy.testing.piping import GatedLog
from ksqlpy.testing.report import FAILED, PASSED, SKIPPED, CaseResult

DEFAULT_FILES = [
    f"/work/shared/qtt/rest-query-validation-tests/pull-queries-{n}.json"
    for n in ("against-cst-materialized", "against-materialized-aggregates", "against-streams", "complex-lambda",
              "with-headers", "with-limit-clause", "with-predicates", "with-range-scan",
              "against-materialized-table-table-joins", "protobuf")
]
_QUERY = re.compile(r"^\s*SELECT\b", re.IGNORECASE)
_SR = re.compile(r"\b(AVRO|PROTOBUF|JSON_SR)\b", re.IGNORECASE)


def _norm(v: Any) -> Any:
    """Values compared by meaning: numbers exactly as decimals, containers recursively."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float, Decimal)):
        return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
    if isinstance(v, dict):
        return tuple(sorted((str(k), _norm(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_norm(x) for x in v)
    return v


class PullRun(_Run):
    def run(self) -> None:
        case = self.case
        if case.error:
            raise _Done(FAILED, case.error)
        if case.skip_reason and not case.skip_reason.startswith("REST case"):
            raise _Done(SKIPPED, case.skip_reason)
        text = " ".join(case.statements)
        if _SR.search(text) or any(t.schema_fields for t in case.topics):
            raise _Done(SKIPPED, "schema-registry format")
        if re.search(r"\bEMIT\b", text, re.I):
            raise _Done(SKIPPED, "push query (REST-specific)")
        if case.input_conditions:
            raise _Done(SKIPPED, "inputConditions (REST-specific)")
        self.engine = self.factory(self.data_dir, {**HARNESS_PROPERTIES, **case.properties})
        # the inputs are fed through the harness's gate, as the QTT runner feeds them (``executor.feed_inputs``)
        self.gate = GatedLog(self.engine.log)
        self.engine.log = self.gate
        self.create_topics()
        responses = case.responses or []
        fed = False
        for i, sql in enumerate(case.statements):
            query = bool(_QUERY.match(sql))
            if query and not fed:
                self.feed_inputs()
                fed = True
            try:
                results = self.engine.execute(sql)
            except Exception as e:  # noqa: BLE001
                self._error(e, i)
            self.snapshot_sources()
            if query and i < len(responses) and "query" in responses[i]:
                self._compare(results[-1], responses[i]["query"], i, sql)
        if not fed:
            self.feed_inputs()
        if case.expected_error:
            raise _Done(FAILED, f"expected error {case.expected_error.get('message')!r}, nothing failed",
                        "expected error not raised")

    def _error(self, e: BaseException, i: int) -> None:
        msg = str(e)
        exp = self.case.expected_error
        if exp is not None:
            want = str(exp.get("message") or "")
            if want in msg:
                raise _Done(PASSED)
            raise _Done(FAILED, f"statement {i + 1}: expected error containing {want!r}, got {msg!r}",
                        "error message mismatch")
        raise _Done(FAILED, f"statement {i + 1}: {type(e).__name__}: {msg}", f"error: {type(e).__name__}")

    def _compare(self, result: Any, expected: list[dict[str, Any]], i: int, sql: str) -> None:
        from ksqlpy.cli.entities import json_value

        data = result.data
        cols = data["columns"]
        keys = set(data.get("keys", []))
        header = ", ".join(f"`{n}` {t}{' KEY' if n in keys else ''}" for n, t in cols)
        want_header = next((e["header"]["schema"] for e in expected if "header" in e), None)
        if want_header is not None and header != want_header:
            raise _Done(FAILED, f"statement {i + 1} ({sql.strip()}): header {header!r} != {want_header!r}",
                        "header mismatch")
        got = [_norm([json_value(v, t) for v, (_, t) in zip(r, cols, strict=True)]) for r in data["rows"]]
        want = [_norm(e["row"]["columns"]) for e in expected if "row" in e]
        if Counter(got) != Counter(want):
            raise _Done(FAILED, f"statement {i + 1} ({sql.strip()}): rows {got} != expected {want}",
                        "rows mismatch")


def run_case(case: Case, timeout_s: float = 60.0) -> CaseResult:
    import tempfile

    from ksqlpy.testing.cli import default_factory

    with tempfile.TemporaryDirectory(prefix="ksqlpy-rest-") as d:
        run = PullRun(case, default_factory(), d, {}, 10.0, False)
        try:
            with deadline(timeout_s):
                run.run()
            outcome = _Done(PASSED)
        except _Done as done:
            outcome = done
        except Exception as e:  # noqa: BLE001
            outcome = _Done(FAILED, f"harness error: {type(e).__name__}: {e}", "harness error")
        finally:
            run.close()
    return CaseResult(case.file, case.name, outcome.status, outcome.reason, outcome.group)


def load(paths: list[str]) -> list[Case]:
    from ksqlpy.testing.runner import discover, load_cases

    return load_cases(discover(paths))


def main(argv: list[str]) -> int:
    from ksqlpy.testing.report import write_json, write_text

    p = argparse.ArgumentParser()
    p.add_argument("paths", nargs="*", default=[f for f in DEFAULT_FILES if Path(f).exists()])
    p.add_argument("-k", dest="substring")
    p.add_argument("-v", action="store_true")
    p.add_argument("--report")
    a = p.parse_args(argv)
    cases = [c for c in load(a.paths) if not a.substring or a.substring.lower() in c.id.lower()]
    results = [run_case(c) for c in cases]
    write_text(results, sys.stdout, verbose=a.v, top=30)
    if a.report:
        write_json(results, a.report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
