"""Run the QTT cases that use JOIN and no schema-registry format (the issue's acceptance subset).

Usage: python tests/joins/qtt_subset.py [--report FILE] [-k SUBSTRING] [-v]
Not a pytest module: the conformance corpus lives outside the repository.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys

from ksqlpy.testing.cli import default_factory
from ksqlpy.testing.runner import discover, load_cases, run_all

QTT = "/work/shared/qtt/query-validation-tests"
_JOIN = re.compile(r"\bJOIN\b", re.IGNORECASE)
_SR = re.compile(r"\b(AVRO|PROTOBUF|JSON_SR)\b", re.IGNORECASE)


def uses_join(case) -> bool:  # type: ignore[no-untyped-def]
    return any(_JOIN.search(s) for s in case.statements)


def uses_sr(case) -> bool:  # type: ignore[no-untyped-def]
    text = " ".join(case.statements) + json.dumps(case.properties)
    return bool(_SR.search(text)) or any(t.schema_fields for t in case.topics)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*", default=[QTT])
    ap.add_argument("--report")
    ap.add_argument("-k")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    cases = [c for c in load_cases(discover(a.paths)) if uses_join(c) and not uses_sr(c)]
    if a.k:
        cases = [c for c in cases if a.k.lower() in c.id.lower()]
    results = run_all(cases, default_factory())
    counts = collections.Counter(r.status for r in results)
    reasons = collections.Counter(r.group or r.reason for r in results if r.status == "failed")
    skips = collections.Counter(r.reason for r in results if r.status == "skipped")
    for r in results:
        if a.v or r.status != "passed":
            print(f"{r.status:8} {r.file} :: {r.name}  {r.reason[:300]}")
    print("\nfailures:")
    for k, n in reasons.most_common(15):
        print(f"  {n:4} {k[:200]}")
    print("skips:")
    for k, n in skips.most_common(10):
        print(f"  {n:4} {k[:200]}")
    total = len(results)
    print(f"\n{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped of {total} "
          f"({100 * counts['passed'] / max(total, 1):.1f}%)")
    if a.report:
        with open(a.report, "w") as f:
            json.dump([r.__dict__ for r in results], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
