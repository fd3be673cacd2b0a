"""Generates pull-query probes over windowed aggregations: every window type x predicates on WINDOWSTART and
WINDOWEND (each comparison, both sides, combined, at the ends of BIGINT) x key lookup and table scan (a session
table's scan fails when it runs - ksqlDB's KsMaterializedSessionTable: "Table scan unsupported on session
tables" - and HARouting, no other host left, ends the response after its header with "Unable to execute pull
query: <statement>. Exhausted standby hosts to try.", from memory).

Run ``python tests/cases/rest/gen_pull_windows.py`` to rewrite ``pull-window-bounds.json`` next to it.
Expected rows come from the windows the model below computes: a pull query returns the key's windows whose
bounds satisfy every predicate (ksqlDB narrows the store fetch by the bounds and filters the rest).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

# (key, timestamp)
EVENTS = [("10", 12345), ("11", 12800), ("10", 13500), ("10", 25000)]

WINDOWS = {
    "TUMBLING": "TUMBLING (SIZE 1 SECOND)",
    "HOPPING": "HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND)",
    "SESSION": "SESSION (5 SECONDS)",
}

OPS: dict[str, Callable[[int, int], bool]] = {
    "=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def windows(kind: str) -> dict[tuple[str, int, int], int]:
    """(key, start, end) -> count."""
    out: dict[tuple[str, int, int], int] = {}
    if kind == "SESSION":
        sessions: dict[str, list[list[int]]] = {}
        for key, ts in EVENTS:
            near = [s for s in sessions.get(key, []) if s[1] >= ts - 5000 and s[0] <= ts + 5000]
            merged = [min([ts] + [s[0] for s in near]), max([ts] + [s[1] for s in near]), 1 + sum(s[2] for s in near)]
            for s in near:
                sessions[key].remove(s)
            sessions.setdefault(key, []).append(merged)
        for key, found in sessions.items():
            for start, end, n in found:
                out[(key, start, end)] = n
        return out
    size, advance = (1000, 1000) if kind == "TUMBLING" else (2000, 1000)
    for key, ts in EVENTS:
        for start in range(max(0, ts - size + advance) // advance * advance, ts + 1, advance):
            if start <= ts < start + size:
                out[(key, start, start + size)] = out.get((key, start, start + size), 0) + 1
    return out


def predicates(kind: str) -> list[list[tuple[str, str, int, bool]]]:
    """Lists of (bound, op, value, literal first) conjuncts, with values at and around window bounds."""
    starts = sorted({s for (_, s, _) in windows(kind)})
    ends = sorted({e for (_, _, e) in windows(kind)})
    out: list[list[tuple[str, str, int, bool]]] = []
    for op in OPS:
        out.append([("WINDOWSTART", op, starts[1], False)])
        out.append([("WINDOWEND", op, ends[0], False)])
    out.append([("WINDOWSTART", "<=", starts[1], True)])
    out.append([("WINDOWEND", ">", ends[0], True)])
    out.append([("WINDOWSTART", ">=", starts[0], False), ("WINDOWEND", "<=", ends[-2], False)])
    out.append([("WINDOWSTART", ">", starts[0], False), ("WINDOWSTART", "<", starts[-1], False)])
    out.append([("WINDOWEND", ">=", ends[0], False), ("WINDOWEND", "<", ends[-1], False),
                ("WINDOWSTART", ">=", starts[0], False)])
    # bounds at the ends of BIGINT: beyond the window starts a store holds (they failed the lookup)
    for op in ("=", ">", "<="):
        out.append([("WINDOWSTART", op, BIGINT_MAX, False)])
        out.append([("WINDOWEND", op, -BIGINT_MAX, False)])
    return out


BIGINT_MAX = (1 << 63) - 1


def _sql(conjuncts: list[tuple[str, str, int, bool]]) -> str:
    flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
    return " AND ".join(f"{v} {flipped[op]} {b}" if first else f"{b} {op} {v}" for b, op, v, first in conjuncts)


def cases() -> list[dict[str, Any]]:
    out = []
    for kind, clause in WINDOWS.items():
        rows = windows(kind)
        for conjuncts in predicates(kind):
            for keyed in (True, False):
                where = _sql(conjuncts)
                if keyed:
                    where = f"ID = '10' AND {where}"
                match = [[k, s, e, n] for (k, s, e), n in sorted(rows.items())
                         if (not keyed or k == "10")
                         and all(OPS[op]({"WINDOWSTART": s, "WINDOWEND": e}[b], v) for b, op, v, _ in conjuncts)]
                if kind == "SESSION" and not keyed:  # a session store is read key by key only
                    out.append({
                        "name": f"{kind} table scan where {_sql(conjuncts)} fails when it runs",
                        "statements": [
                            "CREATE STREAM INPUT (ID STRING KEY, V INT) WITH (kafka_topic='test_topic', "
                            "value_format='JSON');",
                            f"CREATE TABLE AGG AS SELECT ID, COUNT(1) AS N FROM INPUT WINDOW {clause} GROUP BY ID;",
                            f"SELECT * FROM AGG WHERE {where};",
                        ],
                        "inputs": [{"topic": "test_topic", "timestamp": ts, "key": k, "value": {"V": 1}}
                                   for k, ts in EVENTS],
                        # planned, then failed when it ran: the header, then HARouting's error (no other host)
                        "responses": [
                            {"admin": {"@type": "currentStatus"}},
                            {"admin": {"@type": "currentStatus"}},
                            {"query": [{"header": {"schema": "`ID` STRING KEY, `WINDOWSTART` BIGINT KEY, "
                                                             "`WINDOWEND` BIGINT KEY, `N` BIGINT"}},
                                       {"errorMessage": {"@type": "generic_error", "error_code": 50000,
                                                         "message": f"Unable to execute pull query: SELECT * FROM AGG "
                                                                    f"WHERE {where};. Exhausted standby hosts to "
                                                                    "try."}}]},
                        ],
                    })
                    continue
                out.append({
                    "name": f"{kind} {'key lookup' if keyed else 'table scan'} where {_sql(conjuncts)}",
                    "statements": [
                        "CREATE STREAM INPUT (ID STRING KEY, V INT) WITH (kafka_topic='test_topic', "
                        "value_format='JSON');",
                        f"CREATE TABLE AGG AS SELECT ID, COUNT(1) AS N FROM INPUT WINDOW {clause} GROUP BY ID;",
                        f"SELECT * FROM AGG WHERE {where};",
                    ],
                    "inputs": [{"topic": "test_topic", "timestamp": ts, "key": k, "value": {"V": 1}}
                               for k, ts in EVENTS],
                    "responses": [
                        {"admin": {"@type": "currentStatus"}},
                        {"admin": {"@type": "currentStatus"}},
                        {"query": [{"header": {"schema": "`ID` STRING KEY, `WINDOWSTART` BIGINT KEY, "
                                                         "`WINDOWEND` BIGINT KEY, `N` BIGINT"}}]
                         + [{"row": {"columns": r}} for r in match]},
                    ],
                })
    return out


if __name__ == "__main__":
    (HERE / "pull-window-bounds.json").write_text(
        json.dumps({"comment": "generated by gen_pull_windows.py", "tests": cases()}, indent=1) + "\n")
