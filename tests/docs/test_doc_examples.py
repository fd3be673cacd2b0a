"""Docs that run: every SQL and shell example of README.md and docs/ is executed against a fresh embedded
engine, and the output a page shows is compared with what the shell prints (markers: doc_examples.py)."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from doc_examples import ROOT, SHELL_LANGS, Block, blocks, documents, expected_matches

from ksqlpy.cli.console import Console
from ksqlpy.cli.embedded import EmbeddedBackend
from ksqlpy.cli.session import Session

ALL = [b for d in documents() for b in blocks(d)]


_LOOKS_RUNNABLE = re.compile(r"^(?:ksql> |\$ (?:python3? -m )?ksqlpy|(?:CREATE|SELECT|INSERT|DROP|SET) )", re.MULTILINE)


def _is_example_candidate(b: Block) -> bool:
    """SQL blocks, shell blocks running ksqlpy, and any other block that shows statements or a session."""
    if b.mark == "output":
        return False
    return (b.lang == "sql" or (b.lang in SHELL_LANGS and "ksqlpy" in b.body)
            or (b.lang not in ("json", "python", "java", "properties") and _LOOKS_RUNNABLE.search(b.body) is not None))


def test_every_sql_and_shell_example_is_marked() -> None:
    unmarked = [b.where for b in ALL if _is_example_candidate(b) and b.mark is None]
    assert not unmarked, f"mark these blocks as example, syntax or 'not run: why' (doc_examples.py): {unmarked}"
    orphans = [b.where for i, b in enumerate(ALL) if b.mark == "output"
               and (i == 0 or ALL[i - 1].mark != "example" or ALL[i - 1].path != b.path)]
    assert not orphans, f"output blocks must follow an example block: {orphans}"


def _groups() -> list[tuple[str, list[tuple[Block, Block | None]]]]:
    found: dict[tuple[Path, str], list[tuple[Block, Block | None]]] = {}
    for i, b in enumerate(ALL):
        if b.mark != "example":
            continue
        nxt = ALL[i + 1] if i + 1 < len(ALL) and ALL[i + 1].mark == "output" else None
        found.setdefault((b.path, b.name), []).append((b, nxt))
    return [(f"{path.relative_to(ROOT)}#{name}", items) for (path, name), items in found.items()]


GROUPS = _groups()


class _Shell:
    """The embedded shell over one data directory, opened when SQL runs, closed for shell commands."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.backend: EmbeddedBackend | None = None
        self.session: Session | None = None
        self.out, self.err = io.StringIO(), io.StringIO()

    def run_sql(self, sql: str) -> tuple[bool, str, str]:
        if self.session is None:
            self.backend = EmbeddedBackend(str(self.data_dir))
            self.session = Session(self.backend, Console(self.out, self.err, color=False))
        self._caught_up()  # as a reader would: the queries of the steps before have done their work
        self.out.seek(0), self.out.truncate(), self.err.seek(0), self.err.truncate()
        ok = self.session.run_entry(sql)
        return ok, self.out.getvalue(), self.err.getvalue()

    def _caught_up(self, timeout_s: float = 20.0) -> None:
        from ksqlpy.engine.metrics import total_lag

        engine = self.backend.engine  # type: ignore[union-attr]
        end = time.monotonic() + timeout_s
        while time.monotonic() < end and any(total_lag(engine, q) for q in list(engine.queries.values())):
            time.sleep(0.05)

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
        self.backend = self.session = None


def _run_commands(body: str, data_dir: Path, cwd: Path) -> str:
    """Each ``ksqlpy ...`` / ``python3 -m ksqlpy ...`` line, as written (DIR is the example's data directory)."""
    shown = []
    for raw in body.split("\n"):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line.replace("DIR", str(data_dir)))
        if words[:3] == ["python3", "-m", "ksqlpy"]:
            words = words[3:]
        elif words[:1] == ["ksqlpy"]:
            words = words[1:]
        else:
            raise AssertionError(f"an example shell line must run ksqlpy: {raw!r}")
        if "--data-dir" not in words and (not words or words[0] not in ("test", "--version", "version")):
            words += ["--data-dir", str(data_dir)] if (not words or words[0] != "server") else []
        done = subprocess.run([sys.executable, "-m", "ksqlpy", *words], capture_output=True, text=True,
                              timeout=120, cwd=cwd)
        assert done.returncode == 0, f"{raw!r} exited {done.returncode}: {done.stdout}{done.stderr}"
        shown.append(done.stdout)
    return "".join(shown)


@pytest.mark.parametrize("items", [g[1] for g in GROUPS], ids=[g[0] for g in GROUPS])
def test_examples_run_as_shown(items: list[tuple[Block, Block | None]], tmp_path: Path) -> None:
    shell = _Shell(tmp_path / "data")
    try:
        for block, output in items:
            if block.lang == "sql":
                if block.setup:
                    ok, out, err = shell.run_sql(block.setup)
                    assert ok and not err, f"{block.where}: setup failed: {err or out}"
                ok, out, err = shell.run_sql(block.body)
                assert ok and not err.strip(), f"{block.where}: the example failed:\n{err or out}"
            else:
                if block.setup.startswith("file "):  # ``file NAME = content``: a file the commands read
                    name, _, content = block.setup[5:].partition("=")
                    (tmp_path / name.strip()).write_text(content.strip() + "\n")
                elif block.setup:  # SQL the commands' data directory needs first
                    ok, out, err = shell.run_sql(block.setup)
                    assert ok and not err, f"{block.where}: setup failed: {err or out}"
                shell.close()
                out = _run_commands(block.body, tmp_path / "data", tmp_path)
            if output is not None:
                assert expected_matches(output.body, out), (
                    f"{output.where}: the page shows\n{output.body}\n\nbut the example printed\n{out}")
    finally:
        shell.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield tmp_path_factory.mktemp("site")


def test_the_docs_site_builds_strictly(site: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (site / "index.html").exists() and (site / "quickstart" / "index.html").exists()
