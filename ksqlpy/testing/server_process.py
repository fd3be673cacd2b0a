"""A real ``ksqlpy server`` in a subprocess on a free loopback port: what the REST harness and the server
tests start (``ServerProcess``), with its log kept for the failure message."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """A real ``ksqlpy server`` in a subprocess on 127.0.0.1, over ``data_dir``."""

    def __init__(self, data_dir: str, properties: dict[str, Any] | None = None, startup_timeout_s: float = 60.0,
                 extra_args: list[str] | None = None, scheme: str = "http",
                 open_files: tuple[int, int] | None = None) -> None:
        """``open_files``: the (soft, hard) open-file limit the server starts with."""
        self.data_dir = data_dir
        self.open_files = open_files
        self.properties = dict(properties or {})
        self.startup_timeout_s = startup_timeout_s
        self.extra_args = list(extra_args or [])
        self.scheme = scheme
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None  # the last stopped process's, kept after stop() forgets the process
        self.log_path = os.path.join(data_dir, "server.log")

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def start(self, wait: bool = True) -> ServerProcess:
        os.makedirs(self.data_dir, exist_ok=True)
        self.port = free_port()
        args = [sys.executable, "-m", "ksqlpy", "server", "--listeners", self.url, "--data-dir", self.data_dir,
                "--log-level", "WARNING"]
        for k, v in self.properties.items():
            args += ["-D", f"{k}={v}"]
        args += self.extra_args
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env,
                                         preexec_fn=self._limits if self.open_files else None)
        if wait:
            try:
                self.wait_ready()
            except BaseException:
                self.stop()  # a server that never became ready must not outlive the test that started it
                raise
        return self

    def _limits(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, self.open_files)

    def wait_ready(self, path: str = "/info", **client_args: Any) -> None:
        import httpx

        end = time.monotonic() + self.startup_timeout_s
        last = ""
        while time.monotonic() < end:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                r = httpx.get(self.url + path, timeout=2, **client_args)
                if r.status_code == 200:
                    return
                last = f"{r.status_code} {r.text[:200]}"
            except httpx.HTTPError as e:
                last = str(e)
            time.sleep(0.05)
        raise RuntimeError(f"server not ready after {self.startup_timeout_s}s ({last}): {self.log_tail()}")

    def log_tail(self, n: int = 3000) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 15.0) -> int | None:
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        self.exit_code = proc.returncode
        return self.exit_code

    def kill(self) -> None:
        self.stop(signal.SIGKILL)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
