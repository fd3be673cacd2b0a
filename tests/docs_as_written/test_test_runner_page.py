"""The ksqlDB testing tool page (``ksql-test-runner -s statements.sql -i input.json -o output.json``) as a
ksqlpy user runs it: ``ksqlpy test --statements ... --input ... --output ...`` on the page's three files -
statements over several lines, pretty-printed input and output records with keys and timestamps, a windowed
output with its ``window`` - through the real engine. A wrong expectation fails naming the difference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(300)

STATEMENTS = """-- the orders, sized
CREATE STREAM orders (ORDERID BIGINT KEY, ORDERUNITS DOUBLE)
  WITH (kafka_topic='test_topic', value_format='JSON');

CREATE STREAM S1 AS
  SELECT ORDERID, ORDERUNITS,
         CASE WHEN orderunits < 2.0 THEN 'small'
              WHEN orderunits < 4.0 THEN 'medium'
              ELSE 'large'
         END AS case_result
  FROM orders
  EMIT CHANGES;

CREATE TABLE UNITS_PER_MINUTE AS
  SELECT ORDERID, SUM(ORDERUNITS) AS TOTAL
  FROM orders WINDOW TUMBLING (SIZE 1 MINUTE)
  GROUP BY ORDERID
  EMIT CHANGES;
"""

INPUTS = [
    {"topic": "test_topic", "timestamp": 0, "value": {"ORDERUNITS": 2.0}, "key": 0},
    {"topic": "test_topic", "timestamp": 1000, "value": {"ORDERUNITS": 4.0}, "key": 100},
    {"topic": "test_topic", "timestamp": 2000, "value": {"ORDERUNITS": 6.0}, "key": 101},
    {"topic": "test_topic", "timestamp": 61000, "value": {"ORDERUNITS": 1.0}, "key": 0},
]

OUTPUTS = [
    {"topic": "S1", "timestamp": 0, "value": {"ORDERUNITS": 2.0, "CASE_RESULT": "medium"}, "key": 0},
    {"topic": "S1", "timestamp": 1000, "value": {"ORDERUNITS": 4.0, "CASE_RESULT": "large"}, "key": 100},
    {"topic": "S1", "timestamp": 2000, "value": {"ORDERUNITS": 6.0, "CASE_RESULT": "large"}, "key": 101},
    {"topic": "S1", "timestamp": 61000, "value": {"ORDERUNITS": 1.0, "CASE_RESULT": "small"}, "key": 0},
    {"topic": "UNITS_PER_MINUTE", "timestamp": 0, "value": {"TOTAL": 2.0}, "key": 0,
     "window": {"start": 0, "end": 60000, "type": "time"}},
    {"topic": "UNITS_PER_MINUTE", "timestamp": 1000, "value": {"TOTAL": 4.0}, "key": 100,
     "window": {"start": 0, "end": 60000, "type": "time"}},
    {"topic": "UNITS_PER_MINUTE", "timestamp": 2000, "value": {"TOTAL": 6.0}, "key": 101,
     "window": {"start": 0, "end": 60000, "type": "time"}},
    {"topic": "UNITS_PER_MINUTE", "timestamp": 61000, "value": {"TOTAL": 1.0}, "key": 0,
     "window": {"start": 60000, "end": 120000, "type": "time"}},
]


def _run(tmp_path: Path, outputs: list[dict]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "statements.sql").write_text(STATEMENTS)
    (tmp_path / "input.json").write_text(json.dumps({"inputs": INPUTS}, indent=2))
    (tmp_path / "output.json").write_text(json.dumps({"outputs": outputs}, indent=2))
    return subprocess.run([sys.executable, "-m", "ksqlpy", "test", "--statements", "statements.sql",
                           "--input", "input.json", "--output", "output.json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=240)


def test_the_pages_files_pass(tmp_path: Path) -> None:
    done = _run(tmp_path, OUTPUTS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("1 passed, 0 failed, 0 skipped"), done.stdout


def test_a_wrong_expectation_fails_naming_it(tmp_path: Path) -> None:
    wrong = [dict(o) for o in OUTPUTS]
    wrong[1] = {**wrong[1], "value": {"ORDERUNITS": 4.0, "CASE_RESULT": "medium"}}
    done = _run(tmp_path, wrong)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "CASE_RESULT" in done.stdout, done.stdout
