"""Many cases: find files, load and expand them, filter with ``-k``, run them (optionally in parallel).

Parallel runs fork worker processes: each case already runs on its own engine and data directory, so
cases are independent; results come back in file order whatever the completion order.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ksqlpy.testing.executor import EngineFactory, run_case
from ksqlpy.testing.expansion import expand_file
from ksqlpy.testing.loader import load_file
from ksqlpy.testing.model import Case
from ksqlpy.testing.mutation import mutants
from ksqlpy.testing.report import CaseResult

Progress = Callable[[int, int, CaseResult], None]


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """QTT files under ``paths`` (directories are searched recursively for ``*.json``), sorted."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*.json") if f.is_file()))
        elif p.exists():
            files.append(p)
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")
    return files


def is_rest_file(path: Path, data: dict[str, Any]) -> bool:
    """REST files live in ``rest-query-validation-tests`` or expect REST ``responses``."""
    if any(part.startswith("rest-query-validation") for part in path.parts):
        return True
    return any(isinstance(c, dict) and ("responses" in c or "expectedError" in c) for c in data.get("tests", []))


def load_cases(files: Iterable[Path]) -> list[Case]:
    """All expanded cases of ``files``; a file that cannot be read yields one failed pseudo-case."""
    cases: list[Case] = []
    for path in files:
        try:
            data = load_file(path)
        except (OSError, ValueError) as e:
            cases.append(Case(file=path.name, name="<load>", error=f"cannot load file: {e}"))
            continue
        cases.extend(expand_file(data, path.name, rest=is_rest_file(path, data)))
    return cases


def select(cases: list[Case], substring: str | None) -> list[Case]:
    """``-k``: keep cases whose ``file :: name`` contains ``substring`` (case-insensitive)."""
    if not substring:
        return cases
    needle = substring.lower()
    return [c for c in cases if needle in c.id.lower()]


_SHARED: dict[str, Any] = {}


def _run_index(i: int) -> tuple[int, CaseResult]:
    return i, run_case(_SHARED["cases"][i], _SHARED["factory"], **_SHARED["options"])


def run_all(cases: list[Case], factory: EngineFactory, jobs: int = 1, progress: Progress | None = None,
            **options: Any) -> list[CaseResult]:
    """Run ``cases`` (``options`` go to ``run_case``); results in the order of ``cases``."""
    results: list[CaseResult | None] = [None] * len(cases)
    if jobs <= 1 or len(cases) <= 1:
        for i, case in enumerate(cases):
            results[i] = run_case(case, factory, **options)
            if progress:
                progress(i + 1, len(cases), results[i])  # type: ignore[arg-type]
        return results  # type: ignore[return-value]
    _SHARED.update(cases=cases, factory=factory, options=options)
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(jobs, maxtasksperchild=100) as pool:
            for done, (i, result) in enumerate(pool.imap_unordered(_run_index, range(len(cases))), 1):
                results[i] = result
                if progress:
                    progress(done, len(cases), result)
    finally:
        _SHARED.clear()
    return results  # type: ignore[return-value]


def mutation_check(cases: list[Case], results: list[CaseResult], factory: EngineFactory,
                   **options: Any) -> tuple[int, list[tuple[str, str]]]:
    """Re-run every passed case once per mutant, each with one expectation changed (``mutation.mutants``).

    Returns (how many mutants ran, [(case id, what was mutated)] for mutants that still passed: each is
    a runner bug, an expectation the runner does not really check).
    """
    mutated, survivors = 0, []
    for case, result in zip(cases, results, strict=True):
        if result.status != "passed":
            continue
        for mutant, what in mutants(case):
            mutated += 1
            if run_case(mutant, factory, **options).status == "passed":
                survivors.append((case.id, what))
    return mutated, survivors
