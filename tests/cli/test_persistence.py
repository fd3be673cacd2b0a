"""The embedded shell keeps its catalog and persistent queries across restarts (command topic replay)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _ksqlpy(data_dir: Path, sql: str) -> str:
    out = subprocess.run([sys.executable, "-m", "ksqlpy", "--data-dir", str(data_dir), "-e", sql],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_streams_and_queries_come_back_after_a_restart(tmp_path: Path) -> None:
    # regression: the embedded shell lost every CREATE when it exited
    _ksqlpy(tmp_path, "CREATE STREAM s (id INT KEY, v STRING) WITH (kafka_topic='s', value_format='JSON', "
                      "partitions=1); CREATE STREAM t AS SELECT id, UCASE(v) AS v FROM s;")
    shown = _ksqlpy(tmp_path, "SHOW STREAMS; SHOW QUERIES;")
    assert " S " in shown and " T " in shown
    assert "CSAS_T_2" in shown  # command 0 declared KSQL_PROCESSING_LOG, 1 the stream, 2 the query
    # the restored query still processes new input
    _ksqlpy(tmp_path, "INSERT INTO s (id, v) VALUES (1, 'abc');")
    rows = _ksqlpy(tmp_path, "SET 'auto.offset.reset'='earliest'; SELECT * FROM t EMIT CHANGES LIMIT 1;")
    assert "ABC" in rows
