"""Fixtures for the shell tests: a real ``ksqlpy`` process in a pseudo-terminal.

The shell under test is chosen by the ``target`` fixture: ``embedded`` (an engine in a temporary
data directory) or ``remote`` (``ksqlpy --server`` against a ``ksqlpy server`` started for the
test). Tests take ``spawn_shell`` and never care which one they got - swapping the backend is a
fixture parameter. The remote target runs when the server exists (``ksqlpy.server.main``) or when
KSQLPY_TEST_SERVER_URL names a running one.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 15  # seconds for any single expectation (generous: CI machines are shared)
PROMPT = re.compile(r"ksql>")
COLUMNS, ROWS = 120, 40


def _server_available() -> bool:
    if os.environ.get("KSQLPY_TEST_SERVER_URL"):
        return True
    try:
        return importlib.util.find_spec("ksqlpy.server.main") is not None
    except ModuleNotFoundError:
        return False


TARGETS = ["embedded"] + (["remote"] if _server_available() else [])


class Shell:
    """A running shell: send keys, expect output; every helper waits for the next prompt."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: str,
                 preexec_fn: Callable[[], None] | None = None) -> None:
        started = time.monotonic()
        self.child = pexpect.spawn(sys.executable, ["-m", "ksqlpy", *args], env=env, cwd=cwd,
                                   dimensions=(ROWS, COLUMNS), encoding="utf-8", timeout=TIMEOUT,
                                   preexec_fn=preexec_fn)
        self.log = open(os.path.join(cwd, "pty.log"), "a", encoding="utf-8")  # noqa: SIM115
        self.child.logfile_read = self.log
        self.wait_prompt()
        self.startup_s = time.monotonic() - started

    def wait_prompt(self) -> str:
        self.child.expect(PROMPT)
        return self.child.before

    def send_line(self, line: str) -> None:
        self.child.send(line + "\r")

    def run(self, sql: str, *expect: str) -> str:
        """Type ``sql`` (lines joined by Enter), expect each pattern in order, then the prompt."""
        lines = sql.split("\n")
        for line in lines:
            self.send_line(line)
        seen = ""
        for pattern in expect:
            self.child.expect(pattern)
            seen += self.child.before + self.child.after
        self.wait_prompt()
        return seen + self.child.before

    def expect(self, pattern: str) -> str:
        self.child.expect(pattern)
        return self.child.before + self.child.after

    def close(self) -> None:
        if self.child.isalive():
            self.child.sendeof()
            try:
                self.child.expect(pexpect.EOF, timeout=TIMEOUT)
            except pexpect.TIMEOUT:
                self.child.terminate(force=True)
        self.child.close()
        self.log.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def shell_env(tmp_path: Path) -> dict[str, str]:
    """A private HOME/XDG layout so history and data never touch the real user's files."""
    env = dict(os.environ)
    env.update({
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # pexpect does not answer cursor-position requests
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "COLUMNS": str(COLUMNS),
        "LINES": str(ROWS),
    })
    env.pop("NO_COLOR", None)
    env.pop("KSQLPY_DATA_DIR", None)
    env.pop("KSQLPY_HISTORY_FILE", None)
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


@pytest.fixture(params=TARGETS)
def target(request: pytest.FixtureRequest, tmp_path: Path, shell_env: dict[str, str]) -> Iterator[list[str]]:
    """Shell arguments selecting the backend: an embedded data dir, or a server's URL."""
    if request.param == "embedded":
        yield ["--data-dir", str(tmp_path / "engine")]
        return
    url = os.environ.get("KSQLPY_TEST_SERVER_URL")
    if url:
        yield ["--server", url]
        return
    port = _free_port()
    cmd = os.environ.get("KSQLPY_TEST_SERVER_CMD", "{python} -m ksqlpy server --listeners http://127.0.0.1:{port} --data-dir {data_dir}")
    argv = cmd.format(python=sys.executable, port=port, data_dir=tmp_path / "server").split()
    proc = subprocess.Popen(argv, env=shell_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        import httpx

        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url + "/info", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"server did not start: {' '.join(argv)}")
            time.sleep(0.1)
        yield ["--server", url]
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def spawn_shell(target: list[str], shell_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., Shell]]:
    """Start shells (several in a row share history and data: that is what restarts look like)."""
    shells: list[Shell] = []

    def spawn(*extra: str, preexec_fn: Callable[[], None] | None = None) -> Shell:
        sh = Shell([*target, *extra], shell_env, str(tmp_path), preexec_fn)
        shells.append(sh)
        return sh

    yield spawn
    for sh in shells:
        sh.close()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Any]:
    """An embedded engine in a temporary data directory, for in-process shells (captured_shell.py)."""
    from ksqlpy.cli.embedded import EmbeddedBackend

    backend = EmbeddedBackend(str(tmp_path / "data"))
    try:
        yield backend
    finally:
        backend.close()
