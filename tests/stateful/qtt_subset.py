"""Run the QTT stateful subset: expanded cases using GROUP BY or WINDOW, no JOIN, no schema-registry format.

    python tests/stateful/qtt_subset.py [QTT_DIR] [--report FILE.json] [-k SUBSTRING] [-v] [--list]

It selects the cases the stateful issue is measured on and runs them with the normal QTT runner.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from ksqlpy.testing.model import Case

_GROUP = re.compile(r"\bGROUP\s+BY\b|\bWINDOW\s+(TUMBLING|HOPPING|SESSION)\b", re.I)
_JOIN = re.compile(r"\bJOIN\b", re.I)
_SR = re.compile(r"\b(AVRO|PROTOBUF|JSON_SR)\b", re.I)


def is_stateful(case: Case) -> bool:
    """GROUP BY or WINDOW, but no JOIN and no schema-registry format anywhere in the case."""
    text = "\n".join(case.statements)
    if not _GROUP.search(text) or _JOIN.search(text):
        return False
    if _SR.search(text) or _SR.search(case.name):
        return False
    return not any(t.schema_fields for t in case.topics)


def main(argv: list[str]) -> int:
    from ksqlpy.testing.cli import default_factory
    from ksqlpy.testing.report import write_json, write_text
    from ksqlpy.testing.runner import discover, load_cases, run_all, select

    p = argparse.ArgumentParser()
    p.add_argument("path", nargs="?", default="/work/shared/qtt/query-validation-tests")
    p.add_argument("--report")
    p.add_argument("-k", dest="substring")
    p.add_argument("-v", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args(argv)
    cases = [c for c in select(load_cases(discover([a.path])), a.substring) if is_stateful(c)]
    if a.list:
        for c in cases:
            print(c.id)
        return 0
    opts: dict[str, Any] = dict(timeout_s=60.0, drain_timeout_s=10.0, extra_properties={}, cleanup_topics=False)
    results = run_all(cases, default_factory(), **opts)
    write_text(results, sys.stdout, verbose=a.v, top=a.top)
    if a.report:
        write_json(results, a.report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
