"""``ksqlpy reset QUERY_ID`` (real processes): the query's positions rewound, its internal topics and state
deleted; the next start recomputes the table, equal to a fresh run over the same input."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

STREAM = "CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=2);"
ROWS = [(1000, 1, 1), (2000, 1, 2), (3000, 2, 3), (4000, 1, 4), (5000, 3, 5)]


def _ksqlpy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ksqlpy", *args], capture_output=True, text=True, timeout=120)


def _shell(data_dir: Path, sql: str) -> str:
    out = _ksqlpy("--data-dir", str(data_dir), "-e", sql)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _insert(rows: list[tuple[int, int, int]]) -> str:
    return " ".join(f"INSERT INTO s (ROWTIME, id, v) VALUES ({ts}, {i}, {v});" for ts, i, v in rows)


def _table(data_dir: Path, expected: dict[int, tuple[int, int]] | None = None, timeout_s: float = 30.0,
           ) -> dict[int, tuple[int, int]]:
    end = time.monotonic() + timeout_s
    got: dict[int, tuple[int, int]] = {}
    while time.monotonic() < end:
        shown = _shell(data_dir, "SELECT * FROM totals;")
        got = {int(k): (int(n), int(t)) for k, n, t in
               re.findall(r"^\|(\d+)\s*\|(\d+)\s*\|(\d+)\s*\|$", shown, re.MULTILINE)}
        if expected is None or got == expected:
            break
    return got


CTAS = "CREATE TABLE totals AS SELECT id, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY id;"


def _fresh_run(data_dir: Path) -> dict[int, tuple[int, int]]:
    _shell(data_dir, STREAM + _insert(ROWS) + " SET 'auto.offset.reset'='earliest'; " + CTAS)
    return _table(data_dir, {1: (3, 7), 2: (1, 3), 3: (1, 5)})


def test_reset_then_restart_recomputes_the_table_of_a_fresh_run(tmp_path: Path) -> None:
    fresh = _fresh_run(tmp_path / "fresh")
    assert fresh == {1: (3, 7), 2: (1, 3), 3: (1, 5)}
    data = tmp_path / "data"
    # started with 'latest' after the first three records: it counted only the last two
    created = _shell(data, STREAM + _insert(ROWS[:3]) + CTAS)
    [qid] = re.findall(r"Created query with ID (\w+)", created)
    _shell(data, _insert(ROWS[3:]))
    assert _table(data, {1: (1, 4), 3: (1, 5)}) == {1: (1, 4), 3: (1, 5)}

    out = _ksqlpy("reset", qid, "--data-dir", str(data))
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"Query {qid} reset to the earliest offsets" in out.stdout
    assert "input s partition 0: next offset 0" in out.stdout
    assert "-Aggregate-Aggregate-Materialize-changelog" in out.stdout
    assert not (data / "state" / qid).exists()
    assert _table(data, fresh) == fresh


def test_reset_to_a_time_recomputes_from_there(tmp_path: Path) -> None:
    created = _shell(tmp_path, STREAM + _insert(ROWS) + " SET 'auto.offset.reset'='earliest'; " + CTAS)
    [qid] = re.findall(r"Created query with ID (\w+)", created)
    assert _table(tmp_path, {1: (3, 7), 2: (1, 3), 3: (1, 5)}) == {1: (3, 7), 2: (1, 3), 3: (1, 5)}
    out = _ksqlpy("reset", qid.lower(), "--data-dir", str(tmp_path), "--to-timestamp", "1970-01-01T00:00:03.500")
    assert out.returncode == 0, out.stdout + out.stderr
    assert _table(tmp_path, {1: (1, 4), 3: (1, 5)}) == {1: (1, 4), 3: (1, 5)}


def test_reset_is_refused_while_an_engine_runs_and_for_an_unknown_query(tmp_path: Path) -> None:
    _shell(tmp_path, STREAM + CTAS)
    unknown = _ksqlpy("reset", "CTAS_NOPE_9", "--data-dir", str(tmp_path))
    assert unknown.returncode == 1
    assert "ksqlpy reset: Unknown queryId: CTAS_NOPE_9 (persistent queries: CTAS_TOTALS_" in unknown.stderr
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom ksqlpy.engine import Engine\n"
                               f"e = Engine({str(tmp_path)!r})\nprint('ready', flush=True)\nsys.stdin.readline()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        busy = _ksqlpy("reset", "CTAS_TOTALS_2", "--data-dir", str(tmp_path))
        assert busy.returncode == 1
        assert f"ksqlpy reset: The data directory {tmp_path} is in use by process {holder.pid}" in busy.stderr
    finally:
        holder.communicate("\n", timeout=20)
