"""Generates default-argument.json: an aggregate called without arguments aggregates ROWTIME.

ksqlDB's AggregateAnalyzer (from memory) gives an aggregate call with no arguments - ``COUNT(*)`` is parsed
as one, ``COUNT()`` is the same call - the default argument ``ROWTIME``, and ExpressionTypeManager types it
as BIGINT (``DEFAULT_FUNCTION_ARG_SCHEMA``). So every aggregate with a BIGINT form accepts ``f(*)`` and
``f()`` and aggregates the records' timestamps; one without (TOPK needs its k, HISTOGRAM takes STRING) is
refused as for a BIGINT argument; messages listing the call name it ``f(ROWTIME)``.

Run ``python tests/cases/aggregations/gen_default_argument.py`` after changing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"
STREAM = ("CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
TABLE = ("CREATE TABLE T (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);")
TIMESTAMPS = [10, 20, 20, 5]


def _running(fn: Callable[[list[int]], Any]) -> list[Any]:
    return [fn(TIMESTAMPS[:i + 1]) for i in range(len(TIMESTAMPS))]


# (function, the result after each record, from the timestamps so far)
MODELS: list[tuple[str, Callable[[list[int]], Any]]] = [
    ("COUNT", len),
    ("SUM", sum),
    ("MAX", max),
    ("MIN", min),
    ("AVG", lambda ts: sum(ts) / len(ts)),
    ("COUNT_DISTINCT", lambda ts: len(set(ts))),
    ("COLLECT_LIST", list),
    ("COLLECT_SET", lambda ts: list(dict.fromkeys(ts))),
    ("EARLIEST_BY_OFFSET", lambda ts: ts[0]),
    ("LATEST_BY_OFFSET", lambda ts: ts[-1]),
]


def _stream_cases() -> list[dict[str, Any]]:
    out = []
    for fn, model in MODELS:
        for written in ("*", ""):
            out.append({
                "name": f"{fn}({written}) aggregates ROWTIME",
                "statements": [STREAM, f"CREATE TABLE O AS SELECT ID, {fn}({written}) AS R FROM S GROUP BY ID;"],
                "inputs": [{"topic": "s", "key": 1, "value": {"V": i}, "timestamp": ts}
                           for i, ts in enumerate(TIMESTAMPS)],
                # an aggregate's row carries the largest timestamp its group has seen
                "outputs": [{"topic": "O", "key": 1, "value": {"R": r}, "timestamp": ts}
                            for r, ts in zip(_running(model), _running(max), strict=True)],
            })
    return out


def _table_case() -> dict[str, Any]:
    """A table's aggregation takes back the old row's arguments computed when the row changes: its ROWTIME is
    the update's (ksqlDB computes the old value through the source's transformValues with the timestamp of the
    record being processed - ``runtime.group_by``; the same rule as a table WHERE's previous row)."""
    rows = [(1, 10), (2, 20), (1, 30)]  # (key, timestamp): key 1 updated at 30
    sums = [10, 30, 30]  # group 7: 10; +20; -30 +30
    return {
        "name": "SUM(*) over a table: an update takes back the old row at the update's ROWTIME",
        "statements": [TABLE, "CREATE TABLE O AS SELECT 7 AS G, SUM(*) AS R FROM T GROUP BY 7;"],
        "inputs": [{"topic": "t", "key": k, "value": {"V": 0}, "timestamp": ts} for k, ts in rows],
        "outputs": [{"topic": "O", "key": 7, "value": {"R": r}, "timestamp": ts}
                    for r, ts in zip(sums, [10, 20, 30], strict=True)],
    }


def _refused() -> list[dict[str, Any]]:
    out = [{
        "name": f"{call}: no BIGINT form",
        "statements": [STREAM, f"CREATE TABLE O AS SELECT ID, {call} AS R FROM S GROUP BY ID;"],
        "expectedException": {"type": EXCEPTION,
                              "message": f"Function '{call.split('(')[0]}' does not accept parameters (BIGINT)."},
    } for call in ("TOPK(*)", "TOPKDISTINCT()", "HISTOGRAM(*)")]
    out += [{
        "name": f"{call} without GROUP BY is named with ROWTIME",
        "statements": [STREAM, f"CREATE TABLE O AS SELECT {call} AS R FROM S;"],
        "expectedException": {"type": EXCEPTION,
                              "message": f"CREATE TABLE AS SELECT statement does not support aggregate function "
                                         f"[{call.split('(')[0]}(ROWTIME)] without a GROUP BY clause."},
    } for call in ("COUNT(*)", "COUNT()", "SUM(*)", "MAX()")]
    return out


def cases() -> list[dict[str, Any]]:
    return _stream_cases() + [_table_case()] + _refused()


if __name__ == "__main__":
    (HERE / "default-argument.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n", encoding="utf-8")
