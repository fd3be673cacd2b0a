"""A query upgrade in the embedded shell (a real ``ksqlpy`` process each time): the same query id, old
counts kept, the new filter on new records only, and the same after the shell is started again."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path


def _ksqlpy(data_dir: Path, sql: str) -> str:
    out = subprocess.run([sys.executable, "-m", "ksqlpy", "--data-dir", str(data_dir), "-e", sql],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _counts(data_dir: Path, expected: dict[int, int], timeout_s: float = 20.0) -> dict[int, int]:
    end = time.monotonic() + timeout_s
    got: dict[int, int] = {}
    while time.monotonic() < end:
        shown = _ksqlpy(data_dir, "SELECT * FROM counts;")
        got = {int(a): int(b) for a, b in re.findall(r"^\|(\d+)\s*\|(\d+)\s*\|$", shown, re.MULTILINE)}
        if got == expected:
            break
    return got


def test_an_upgrade_in_the_shell_keeps_the_query_and_its_counts(tmp_path: Path) -> None:
    created = _ksqlpy(tmp_path, "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', "
                                "partitions=1); SET 'auto.offset.reset'='earliest'; "
                                "CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM s GROUP BY id; "
                                "INSERT INTO s (id, v) VALUES (1, 1); INSERT INTO s (id, v) VALUES (1, -1); "
                                "INSERT INTO s (id, v) VALUES (2, 5);")
    [qid] = re.findall(r"Created query with ID (\w+)", created)
    assert _counts(tmp_path, {1: 2, 2: 1}) == {1: 2, 2: 1}
    upgraded = _ksqlpy(tmp_path, "CREATE OR REPLACE TABLE counts AS SELECT id, COUNT(*) AS n FROM s WHERE v > 0 "
                                 "GROUP BY id; INSERT INTO s (id, v) VALUES (1, 1); "
                                 "INSERT INTO s (id, v) VALUES (1, -1); INSERT INTO s (id, v) VALUES (2, -7);")
    assert f"Created query with ID {qid}" in upgraded
    assert _counts(tmp_path, {1: 3, 2: 1}) == {1: 3, 2: 1}
    shown = _ksqlpy(tmp_path, "SHOW QUERIES;")
    assert re.findall(r"\b(C[ST]AS_\w+)", shown) == [qid]
    refused = subprocess.run([sys.executable, "-m", "ksqlpy", "--data-dir", str(tmp_path), "-e",
                              "CREATE OR REPLACE TABLE counts AS SELECT id, MAX(ROWTIME) AS n FROM s GROUP BY id;"],
                             capture_output=True, text=True, timeout=60)
    assert "Plan step of type StreamAggregate must have matching aggregationFunctions" in refused.stdout + refused.stderr
    _ksqlpy(tmp_path, "INSERT INTO s (id, v) VALUES (2, 3);")
    assert _counts(tmp_path, {1: 3, 2: 2}) == {1: 3, 2: 2}
