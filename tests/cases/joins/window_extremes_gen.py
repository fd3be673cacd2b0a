"""Stream-stream join windows at the ends of Java's long, over every join kind.

ksqlDB reads a WITHIN duration with ``TimeUnit.toMillis`` (saturated at Long.MAX_VALUE) and builds Kafka
Streams' ``JoinWindows.of(before)`` (``ofTimeDifferenceAndGrace`` with GRACE PERIOD) then ``.after(after)``,
in long arithmetic (from memory): the constructors refuse ``before + after < 0`` - so a window of
``before`` on both sides whose sum overflows is refused (*Window interval (ie, beforeMs+afterMs) must not be
negative.*) -, then building the join's window stores refuses a retention (size + grace; without GRACE, the
grace ``of`` leaves: 24 hours less 2 x before, at least 0) that overflowed (*retentionPeriod cannot be
negative*). A window as wide as fits joins records billions of milliseconds apart.

Writes tests/cases/joins/window-extremes.json: ``python tests/cases/joins/window_extremes_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

KINDS = {"INNER": ("JOIN", "A.ID AS ID"), "LEFT": ("LEFT JOIN", "A.ID AS ID"),
         "RIGHT": ("RIGHT JOIN", "B.ID AS ID"), "FULL OUTER": ("FULL OUTER JOIN", "ROWKEY AS ID")}
LONG_MAX = 2**63 - 1
HALF = 2**62 - 1  # before + before = Long.MAX_VALUE - 1
INTERVAL = "Window interval (ie, beforeMs+afterMs) must not be negative."
RETENTION = "retentionPeriod cannot be negative"
REFUSED = [
    (f"{LONG_MAX} MILLISECONDS", INTERVAL),
    ("1000000000000 DAYS", INTERVAL),  # saturated at Long.MAX_VALUE
    ("100000000000 DAYS", INTERVAL),  # 8.64e18 ms: before + before overflows
    (f"{HALF + 1} MILLISECONDS", INTERVAL),
    (f"(1 MILLISECOND, {LONG_MAX} MILLISECONDS)", INTERVAL),
    (f"1 SECOND GRACE PERIOD {LONG_MAX} MILLISECONDS", RETENTION),
    (f"{HALF} MILLISECONDS GRACE PERIOD 1 DAY", RETENTION),
]
ACCEPTED = [f"{HALF} MILLISECONDS", f"({HALF} MILLISECONDS, {HALF + 1} MILLISECONDS)", "10000 DAYS"]
FAR = 5_000_000_000


def statements(kind: str, within: str) -> list[str]:
    join, key = KINDS[kind]
    return ["CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', value_format='JSON', partitions=1);",
            "CREATE STREAM B (ID INT KEY, W INT) WITH (kafka_topic='b', value_format='JSON', partitions=1);",
            f"CREATE STREAM OUT AS SELECT {key}, V, W FROM A {join} B WITHIN {within} ON A.ID = B.ID;"]


def rec(topic: str, key: Any, val: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": val, "timestamp": ts}


def cases() -> list[dict[str, Any]]:
    tests: list[dict[str, Any]] = []
    for kind in KINDS:
        for within, message in REFUSED:
            tests.append({"name": f"{kind} join WITHIN {within} is refused", "statements": statements(kind, within),
                          "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                                                "message": message}})
        for within in ACCEPTED:
            # no GRACE: an outer side's unmatched record is padded at once (JoinWindows.of)
            first = [rec("OUT", 1, {"V": None, "W": 2}, 0)] if kind in ("RIGHT", "FULL OUTER") else []
            tests.append({
                "name": f"{kind} join WITHIN {within} joins records {FAR} ms apart",
                "statements": statements(kind, within),
                "inputs": [rec("b", 1, {"W": 2}, 0), rec("a", 1, {"V": 3}, FAR)],
                "outputs": [*first, rec("OUT", 1, {"V": 3, "W": 2}, FAR)],
            })
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("window-extremes.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
