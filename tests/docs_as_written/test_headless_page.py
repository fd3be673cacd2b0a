"""The operate-and-deploy pages' headless deployment as written: ``ksql-server-start ... --queries-file FILE``
(here ``ksqlpy server --queries-file FILE``, or ``ksql.queries.file`` in the properties) runs the file's
statements at start-up and serves no REST API; every start runs the file again, the queries keeping their ids,
positions and state. A file that is not a headless one stops the server with the reason."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.testing.server_process import free_port

pytestmark = pytest.mark.timeout(180)

PIPELINE = """-- the pipeline this server runs
SET 'auto.offset.reset' = 'earliest';
DEFINE orders_topic = 'hl_orders';

CREATE STREAM orders (id INT KEY, item VARCHAR, qty INT)
  WITH (kafka_topic='${orders_topic}', value_format='json', partitions=1);
INSERT INTO orders (id, item, qty) VALUES (1, 'tea', 2);
INSERT INTO orders (id, item, qty) VALUES (2, 'cake', 0);
CREATE STREAM big_orders AS
  SELECT * FROM orders WHERE qty > 0;
CREATE TABLE qty_by_item AS
  SELECT item, SUM(qty) AS total FROM orders GROUP BY item;
"""


def _start(data: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "ksqlpy", "server", "--data-dir", str(data), "--log-level",
                             "WARNING", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))


def _wait_line(proc: subprocess.Popen[str], needle: str, timeout: float = 120.0) -> str:
    assert proc.stdout is not None
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            line = proc.stdout.readline()
            if needle in line:
                return line
        if proc.poll() is not None:
            raise AssertionError(f"server exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
    raise AssertionError(f"no {needle!r} line")


def _values(data: Path, topic: str) -> list[object]:
    log = EmbeddedLog(str(data / "log"))
    try:
        if not log.topic_exists(topic):
            return []
        return [json.loads(v) for v in log.fetch(topic, 0, 0).values]
    finally:
        log.close()


def _until(data: Path, topic: str, want: list[object], timeout: float = 90.0) -> None:
    end = time.monotonic() + timeout
    got: list[object] = []
    while time.monotonic() < end:
        got = _values(data, topic)
        if got == want:
            return
        time.sleep(0.2)
    raise AssertionError(f"{topic}: {got} (expected {want})")


def _stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_headless_runs_the_file_again_on_every_start(tmp_path: Path) -> None:
    queries = tmp_path / "queries.sql"
    queries.write_text(PIPELINE)
    data = tmp_path / "data"
    port = free_port()
    # the property form, with a listener configured: headless mode serves no REST API on it
    proc = _start(data, "--listeners", f"http://127.0.0.1:{port}", "-D", f"ksql.queries.file={queries}")
    try:
        line = _wait_line(proc, "running headless")
        assert "CSAS_BIG_ORDERS_0, CTAS_QTY_BY_ITEM_1" in line
        _until(data, "BIG_ORDERS", [{"ITEM": "tea", "QTY": 2}])
        _until(data, "QTY_BY_ITEM", [{"TOTAL": 2}, {"TOTAL": 0}])
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        assert _stop(proc) == 0
    # the option form: the file runs again (its INSERT VALUES too); the queries keep their ids, carry on
    # from their positions (nothing read twice) and keep their state (the sum goes on)
    proc = _start(data, "--queries-file", str(queries))
    try:
        assert "CSAS_BIG_ORDERS_0, CTAS_QTY_BY_ITEM_1" in _wait_line(proc, "running headless")
        _until(data, "BIG_ORDERS", [{"ITEM": "tea", "QTY": 2}] * 2)
        _until(data, "QTY_BY_ITEM", [{"TOTAL": 2}, {"TOTAL": 0}, {"TOTAL": 4}, {"TOTAL": 0}])
    finally:
        assert _stop(proc) == 0


CREATE = "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='json', partitions=1);\n"


@pytest.mark.parametrize(("text", "message"), [
    (CREATE + "\nSHOW STREAMS;\nCREATE STREAM t AS SELECT * FROM s;\n",
     "Line: 3, Col: 1: Unsupported statement. Only the following statements are supported in headless mode:"),
    (CREATE + "SELECT * FROM s EMIT CHANGES;\n", "Line: 2, Col: 1: Unsupported statement."),
    (CREATE + "INSERT INTO s (id, v) VALUES (1, 2);\n",
     "The SQL file does not contain any persistent queries. i.e. it contains no 'INSERT INTO', "
     "'CREATE TABLE x AS SELECT' or 'CREATE STREAM x AS SELECT' style statements."),
    (CREATE + "CREATE STREAM t AS SELEC * FROM s;\n", "line 2:20: Syntax Error\nmissing 'SELECT' at 'SELEC'"),
    # validated as a whole first: nothing ran, so the first statement's stream is not there either
    (CREATE + "CREATE STREAM t AS SELECT * FROM nope;\n",
     "Line: 2, Col: 34: NOPE does not exist.\nStatement: CREATE STREAM t AS SELECT * FROM nope;"),
], ids=["show", "select", "no-query", "syntax", "unknown-source"])
def test_a_file_headless_mode_cannot_run_stops_the_server(tmp_path: Path, text: str, message: str) -> None:
    queries = tmp_path / "queries.sql"
    queries.write_text(text)
    proc = _start(tmp_path / "data", "--queries-file", str(queries))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"ksqlpy server: start-up failed: {message}" in err, err
    assert "Traceback" not in err


def test_a_missing_queries_file_is_named(tmp_path: Path) -> None:
    proc = _start(tmp_path / "data", "--queries-file", str(tmp_path / "nowhere.sql"))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"Could not read the queries file '{tmp_path / 'nowhere.sql'}': No such file or directory" in err
