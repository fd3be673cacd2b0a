"""Generates ``emit-final-scope.json``: an EMIT FINAL windowed CREATE TABLE AS SELECT writes each window to its
sink once, when stream time reaches the window's end plus grace - over TUMBLING, HOPPING and SESSION windows x
grouped by the source's key (``groupByKey``, the aggregation in the source's task) or by a value column
(through ``Aggregate-GroupBy-repartition``) x a source of one or of four partitions (our own cases, ksqlDB's
test format).

The rule (Kafka Streams' ``onWindowClose`` emit strategy, which ksqlDB's EMIT FINAL uses, from memory of
``KStreamWindowAggregate``/``KStreamSessionWindowAggregate``): after a record, once the task's stream time
minus grace (the close time) has moved, the windows that closed go out, ordered by window start (sessions: by
end), then key; each output's timestamp is the latest record of its window. The look is throttled on
wall-clock time (``__emit.interval.ms.kstreams.windowed.aggregation__``, default 1000 ms: records that arrive
within a second of the previous look do not look); the cases set it to 0, as ksqlDB's own suppress tests do, so
every record looks. The harness places every record in partition 0, as ksqlDB's TopologyTestDriver does: a
four-partition source has one task's stream time here (``tests/runtime/test_emit_final_tasks.py`` covers a task
per partition).

The scenario: page visits in hour-long windows (30-minute sessions), grace 0; a visit an hour later closes the
first hour's windows of both pages (and the sessions of both) - nothing is written before it; a visit another
hour later closes the next ones, and what was written is not written again. Over four partitions a visit of shop
follows the closing visit of home at the same time: it closes nothing more here (one stream time), and it is what
closes shop's windows where records go to the partitions their keys hash to (``--partitioning kafka``, a stream
time per task), so the cases hold under both placements with the same output.

Run ``python tests/cases/aggregations/gen_emit_final_scope.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
HOUR = 3_600_000
THROTTLE = {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0}
# (page, timestamp): two visits of home and one of shop in the first hour, then a visit of home an hour later
VISITS = [("home", 1000), ("home", 2000), ("shop", 3000), ("home", HOUR + 1000)]

WINDOWS = {
    "TUMBLING": "TUMBLING (SIZE 1 HOUR, GRACE PERIOD 0 SECONDS)",
    "HOPPING": "HOPPING (SIZE 1 HOUR, ADVANCE BY 30 MINUTES, GRACE PERIOD 0 SECONDS)",
    "SESSION": "SESSION (30 MINUTES, GRACE PERIOD 0 SECONDS)",
}
# per window type: the closed windows once the last visit arrives, in emission order
# (page, count, output timestamp, window)
CLOSED: dict[str, list[tuple[str, int, int, dict[str, Any]]]] = {
    # the first hour's windows; a hop starting at 30 minutes holds no first-hour visit and the hops after it
    # are still open
    "TUMBLING": [("home", 2, 2000, {"start": 0, "end": HOUR, "type": "time"}),
                 ("shop", 1, 3000, {"start": 0, "end": HOUR, "type": "time"})],
    "HOPPING": [("home", 2, 2000, {"start": 0, "end": HOUR, "type": "time"}),
                ("shop", 1, 3000, {"start": 0, "end": HOUR, "type": "time"})],
    # a session closes once stream time passes its end by the gap (plus grace): both first sessions
    "SESSION": [("home", 2, 2000, {"start": 1000, "end": 2000, "type": "session"}),
                ("shop", 1, 3000, {"start": 3000, "end": 3000, "type": "session"})],
}
GROUPINGS = {
    "the source's key": "ID",  # groupByKey: aggregated in the source's task
    "a value column": "PAGE",  # re-keyed through Aggregate-GroupBy-repartition
}


def _case(window: str, grouping: str, partitions: int) -> dict[str, Any]:
    column = GROUPINGS[grouping]
    statements = [
        f"CREATE STREAM V (ID STRING KEY, PAGE STRING) WITH (kafka_topic='v', value_format='JSON', "
        f"partitions={partitions});",
        f"CREATE TABLE H AS SELECT {column}, COUNT(*) AS VISITS FROM V WINDOW {WINDOWS[window]} GROUP BY {column} "
        "EMIT FINAL;",
    ]
    visits = VISITS + ([("shop", HOUR + 1000)] if partitions > 1 else [])
    inputs = [{"topic": "v", "key": page, "value": {"PAGE": page}, "timestamp": ts} for page, ts in visits]
    outputs = [{"topic": "H", "key": page, "value": {"VISITS": n}, "timestamp": ts, "window": w}
               for page, n, ts, w in CLOSED[window]]
    return {
        "name": f"EMIT FINAL {window} grouped by {grouping} - {partitions} partition(s): the first hour's windows "
                "go out when a later visit closes them",
        "properties": THROTTLE,
        "statements": statements,
        "inputs": inputs,
        "outputs": outputs,
        "post": {"sources": [{"name": "H", "type": "table",
                              "schema": f"{column} STRING KEY, VISITS BIGINT"}]},
    }


def _closes_again(window: str) -> dict[str, Any]:
    """A visit another hour later closes the second hour's window (session) of home: written once, the first
    hour's are not written again."""
    case = _case(window, "the source's key", 1)
    case["name"] = f"EMIT FINAL {window}: a later visit closes the next windows, each written once"
    case["inputs"].append({"topic": "v", "key": "shop", "value": {"PAGE": "shop"}, "timestamp": 2 * HOUR + 1000})
    w = ({"start": HOUR, "end": 2 * HOUR, "type": "time"} if window == "TUMBLING"
         else {"start": HOUR + 1000, "end": HOUR + 1000, "type": "session"})
    case["outputs"].append({"topic": "H", "key": "home", "value": {"VISITS": 1}, "timestamp": HOUR + 1000,
                            "window": w})
    return case


def cases() -> list[dict[str, Any]]:
    out = [_case(w, g, p) for w in WINDOWS for g in GROUPINGS for p in (1, 4)]
    out += [_closes_again(w) for w in ("TUMBLING", "SESSION")]
    return out


def main() -> None:
    (HERE / "emit-final-scope.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
