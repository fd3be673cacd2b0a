"""The suite's own layout: test modules are imported by basename (rootdir-relative, no packages), so two
test files with the same name in different directories stop the whole run at collection - which targeted
runs of one directory never show (session 13's CI failed on tests/backfill/ and tests/testing/
test_differential.py)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_module_basenames_are_unique() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if ".venv" not in path.parts and "node_modules" not in path.parts:
            seen[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"test modules sharing a basename (pytest cannot collect both): {clashes}"
