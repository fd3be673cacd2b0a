"""The fenced blocks of README.md and docs/*.md, and how each is checked (tests/docs/test_doc_examples.py).

A block is classified by the HTML comment on the line right above its opening fence (invisible on the
rendered page):

* ``<!-- example -->`` / ``<!-- example NAME -->``: SQL run in the embedded shell, or shell commands run as
  written (``ksqlpy ...`` lines). Blocks of one page with the same NAME share one fresh engine, in page
  order. ``<!-- example NAME: SQL -->`` runs SQL first, unseen (setup a reader need not see); on a shell
  block ``<!-- example NAME: file FILE = text -->`` writes a file its commands read instead.
* ``<!-- output -->``: what the example block just before it prints; compared line by line. ``...`` inside a
  line matches any text; a line of just ``...`` matches any number of lines.
* ``<!-- syntax -->``: a grammar synopsis with placeholders, not meant to run.
* ``<!-- not run: REASON -->``: a command that cannot run in a test (it installs packages, needs a broker).

Every ``sql`` block and every shell block that runs ``ksqlpy`` must carry one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGS = {"bash", "sh", "shell", "console"}
_FENCE = re.compile(r"^```")
_MARK = re.compile(r"^<!--\s*(example|output|syntax|not run)\b\s*([^:]*?)\s*(?::\s*(.*?))?\s*-->\s*$", re.DOTALL)


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    lang: str
    body: str
    mark: str | None  # example | output | syntax | not run
    name: str  # the example group (default "main")
    setup: str  # SQL of ``<!-- example NAME: SQL -->``, or the reason of ``not run``

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(path: Path) -> list[Block]:
    lines = path.read_text().split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        if not _FENCE.match(lines[i]):
            i += 1
            continue
        info = lines[i][3:].strip()
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        mark, name, setup = _mark_above(lines, start)
        out.append(Block(path, start + 1, info.split()[0] if info else "", "\n".join(body), mark, name, setup))
    return out


def _mark_above(lines: list[str], fence: int) -> tuple[str | None, str, str]:
    """The marker comment ending on the line above ``fence`` (it may span lines)."""
    end = fence - 1
    if end < 0 or not lines[end].rstrip().endswith("-->"):
        return None, "main", ""
    begin = end
    while begin >= 0 and "<!--" not in lines[begin]:
        begin -= 1
    m = _MARK.match("\n".join(lines[begin:end + 1]).strip())
    if m is None:
        return None, "main", ""
    return m.group(1), (m.group(2) or "main").strip() or "main", (m.group(3) or "").strip()


def expected_matches(expected: str, actual: str) -> bool:
    """``expected`` (an output block) against what ran; ``...`` is a wildcard (see the module doc)."""
    want = [line.rstrip() for line in expected.strip("\n").split("\n")]
    got = [line.rstrip() for line in actual.strip("\n").split("\n")]
    return _match(want, got)


def _match(want: list[str], got: list[str]) -> bool:
    if not want:
        return not got
    head = want[0]
    if head == "...":
        return any(_match(want[1:], got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    pattern = ".*?".join(re.escape(part) for part in head.split("..."))
    return re.fullmatch(pattern, got[0]) is not None and _match(want[1:], got[1:])
