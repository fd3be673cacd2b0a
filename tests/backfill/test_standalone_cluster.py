"""The backfill on a Spark standalone cluster - a master and a worker the test starts on loopback - through
the CLI, against the streaming runtime: the executors run in processes of their own, read the log by its
directory and stage their output where the driver commits it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.backfill import collapse as collapsed
from bench.backfill import sink as sink_records
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine
from tests.backfill.conftest import Record, _java, produce, streamed

pytestmark = pytest.mark.slow

DDL = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"
SQL = ("CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s WINDOW TUMBLING (SIZE 3 SECONDS, "
       "GRACE PERIOD 1 SECOND) GROUP BY k EMIT CHANGES;")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the Spark {what} exited ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(1)
    raise TimeoutError(f"the Spark {what} did not listen on {port}")


@pytest.fixture
def cluster(tmp_path: Any) -> Iterator[str]:
    if not _java():
        pytest.skip("Java is not installed")
    import pyspark

    spark_class = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-class")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(tmp_path / "work"),
           "SPARK_LOG_DIR": str(tmp_path / "logs"), "PYSPARK_PYTHON": sys.executable}
    port, worker_port = _port(), _port()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        master = subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                   "--port", str(port), "--webui-port", str(_port())], env=env,
                                  stdout=subprocess.DEVNULL, stderr=open(tmp_path / "master.log", "wb"))
        procs.append(master)
        _wait_for(port, master, "master")
        url = f"spark://127.0.0.1:{port}"
        worker = subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                   "--port", str(worker_port), "--webui-port", str(_port()), "--cores", "2",
                                   "--memory", "1g", url], env=env, stdout=subprocess.DEVNULL,
                                  stderr=open(tmp_path / "worker.log", "wb"))
        procs.append(worker)
        _wait_for(worker_port, worker, "worker")
        yield url
    finally:
        for p in reversed(procs):  # only the processes this fixture started, by their handles
            p.terminate()
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_cli_backfill_on_a_standalone_cluster_equals_streaming(tmp_path: Any, cluster: str) -> None:
    records: list[Record] = [(i % 2, f"k{i % 2}{i % 4}".encode(), json.dumps({"V": i}).encode(),
                              1_000 + i * 250 - (2_500 if i % 8 == 5 else 0)) for i in range(300)]
    ref = streamed(str(tmp_path / "ref"), DDL, records, "s", SQL)
    path = str(tmp_path / "bf")
    engine = Engine(path)
    DurableStatements(engine).execute(DDL)
    produce(engine, "s", records)
    engine.close()
    proc = subprocess.run([sys.executable, "-m", "ksqlpy", "backfill", "--data-dir", path, "--master", cluster,
                           "-p", "spark.executor.memory=512m", "-p", "spark.cores.max=2", SQL],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "300 records read" in proc.stdout
    again = Engine(path)
    try:
        DurableStatements(again)
        assert collapsed(sink_records(again, "O")) == collapsed(sink_records(ref, "O"))
        assert not os.listdir(os.path.join(path, "backfill-staging"))  # the run's staging is gone
    finally:
        again.close()


def test_every_benchmark_workload_and_tier_equal_on_a_standalone_cluster(tmp_path: Any, cluster: str) -> None:
    """The acceptance's cluster line: the benchmark (filter/projection, tumbling COUNT/SUM, out-of-order with
    grace; each on every tier that runs it) on the cluster's executors, each ``equal`` to streaming."""
    from bench import backfill as bench

    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "backfill", "--records", "4000", "--master", cluster,
                           "--report", str(report)], capture_output=True, text=True, timeout=1500,
                          env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"})
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    got = json.loads(report.read_text())
    assert got["master"] == cluster
    assert {(r["workload"], r["tier"]) for r in got["results"]} == {
        (w.name, t) for w in bench.WORKLOADS for t in bench.tiers_of(w)}
    for r in got["results"]:
        assert r["equal"] and r["records"] == 4000, r
