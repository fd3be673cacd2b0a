"""Results and what developers read: per-file counts, top failure/skip reasons, the JSON report.

Reasons are grouped by a normalized form (quoted names, numbers and long literals replaced by
placeholders) so that "Function 'FOO' does not exist" and "Function 'BAR' does not exist" count as one
thing to fix.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TextIO

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


@dataclass
class CaseResult:
    file: str
    name: str
    status: str
    reason: str = ""
    group: str = ""  # normalized reason used for grouping
    duration_s: float = 0.0

    @property
    def id(self) -> str:
        return f"{self.file} :: {self.name}"

    @property
    def key(self) -> str:
        return self.group or normalize(self.reason)


_SUBS = [
    (re.compile(r"'(?:[^'\\]|\\.)*'"), "'<s>'"),
    (re.compile(r'"(?:[^"\\]|\\.)*"'), '"<s>"'),
    (re.compile(r"`[^`]*`"), "`<id>`"),
    (re.compile(r"\{[^{}]*\}"), "{...}"),
    (re.compile(r"\[[^\[\]]*\]"), "[...]"),
    (re.compile(r"\b\d+(\.\d+)?\b"), "<n>"),
    (re.compile(r"\s+"), " "),
]


def normalize(reason: str, limit: int = 160) -> str:
    """A reason with the case-specific details blanked out."""
    text = (reason or "").strip().splitlines()[0] if reason and reason.strip() else ""
    for pattern, repl in _SUBS:
        text = pattern.sub(repl, text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def counts(results: list[CaseResult]) -> dict[str, int]:
    c = Counter(r.status for r in results)
    return {PASSED: c[PASSED], FAILED: c[FAILED], SKIPPED: c[SKIPPED]}


def summary_line(results: list[CaseResult]) -> str:
    c = counts(results)
    return f"{c[PASSED]} passed, {c[FAILED]} failed, {c[SKIPPED]} skipped"


def per_file(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    by_file: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        by_file[r.file].append(r)
    return {f: counts(rs) for f, rs in by_file.items()}


def top_reasons(results: list[CaseResult], status: str, n: int = 15) -> list[tuple[str, int, list[str]]]:
    """(grouped reason, count, a few example case ids), most frequent first."""
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        if r.status == status:
            groups[r.key].append(r)
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [(k, len(v), [r.id for r in v[:3]]) for k, v in ranked[:n]]


def write_text(results: list[CaseResult], out: TextIO, verbose: bool = False, top: int = 15) -> None:
    """Human summary; the last line is always ``N passed, M failed, K skipped``."""
    if verbose:
        for r in results:
            tail = f": {r.reason}" if r.reason and r.status != PASSED else ""
            out.write(f"{r.status.upper():7} {r.id}{tail}\n")
        out.write("\n")
    files = per_file(results)
    if len(files) > 1 or not verbose:
        for f, c in files.items():
            out.write(f"{f}: {c[PASSED]} passed, {c[FAILED]} failed, {c[SKIPPED]} skipped\n")
        out.write("\n")
    for status, title in ((FAILED, "Top failure reasons"), (SKIPPED, "Top skip reasons")):
        ranked = top_reasons(results, status, top)
        if not ranked:
            continue
        out.write(f"{title}:\n")
        for reason, count, examples in ranked:
            out.write(f"  {count:5d}  {reason}\n")
            for e in examples[:2]:
                out.write(f"           e.g. {e}\n")
        out.write("\n")
    vacuous = sum(1 for r in results if r.status == PASSED and r.reason)
    if vacuous:
        out.write(f"Note: {vacuous} passed cases check nothing (no outputs, expected error or post), "
                  "as in ksqlDB; see their reason in the report.\n\n")
    out.write(summary_line(results) + "\n")


def report_dict(results: list[CaseResult]) -> dict[str, object]:
    return {
        "summary": counts(results),
        "files": per_file(results),
        "top_failure_reasons": [{"reason": r, "count": c, "examples": e}
                                for r, c, e in top_reasons(results, FAILED, 50)],
        "top_skip_reasons": [{"reason": r, "count": c, "examples": e}
                             for r, c, e in top_reasons(results, SKIPPED, 50)],
        "cases": [asdict(r) for r in results],
    }


def write_json(results: list[CaseResult], path: str | Path) -> None:
    Path(path).write_text(json.dumps(report_dict(results), indent=1) + "\n", encoding="utf-8")
