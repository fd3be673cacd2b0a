"""Generates aggregation-check-order.json: which error a CREATE TABLE AS aggregation with several faults gets.

ksqlDB validates in stages (parse -> analysis -> logical planning -> physical planning -> building the
topology) and reports the first failing check. For aggregations (from memory of ksqlDB's source):

1. analysis - a source with the KAFKA value format cannot GROUP BY (``Analyzer``); then, at the end of
   analysis, a persistent query cannot read a windowed table (``PushQueryValidator``);
2. logical planning - the WHERE's type (``FilterTypeValidator``, as the filter node is built below the
   aggregation), ``AggregateAnalyzer`` (a non-aggregate SELECT column not in GROUP BY), then
   ``AggregateNode``'s key check (a GROUP BY expression missing from the projection);
3. physical planning - ``SchemaKGroupedTable.aggregate``: a table aggregation takes no WINDOW, then only
   functions that can undo (MIN cannot);
4. building the topology - Kafka Streams' ``TimeWindows`` refuses a window of size 0.

Every combination of sources (stream, table, windowed table, each in JSON and KAFKA) and faults (a WHERE
that is no BOOLEAN, a non-aggregate column, the key missing, MIN, a WINDOW of 1 s or of size 0) with at least two faults is a case;
the expected error is the first fault in that order.

Run ``python tests/cases/aggregations/gen_aggregation_check_order.py`` after changing it.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"

# (name, kind, windowed, value format)
SOURCES = [(f"{kind[0]}{'W' if windowed else ''}_{fmt}", kind, windowed, fmt)
           for fmt in ("JSON", "KAFKA") for kind, windowed in (("STREAM", False), ("TABLE", False), ("TABLE", True))]

MESSAGES = {
    "kafka": "Source(s) {source} are using the 'KAFKA' value format. This format does not yet support GROUP BY.",
    "windowed table": "KSQL does not support persistent queries on windowed tables.",
    "WHERE not BOOLEAN": "Type error in WHERE expression: Should evaluate to boolean but is V (INTEGER) instead.",
    "non-aggregate column": "Non-aggregate SELECT expression(s) not part of GROUP BY: V\nEither add the column(s) to "
                            "the GROUP BY or remove them from the SELECT.",
    "key missing": "Key missing from projection (ie, SELECT).",
    "table window": "Windowing not supported for table aggregations.",
    "table MIN": "The aggregation function MIN cannot be applied to a table source, only to a stream source.",
    "window size 0": "Window size (sizeMs) must be larger than zero.",
}
ORDER = list(MESSAGES)  # the stage order above


def _ddl(name: str, kind: str, windowed: bool, fmt: str) -> str:
    key = "KEY" if kind == "STREAM" else "PRIMARY KEY"
    window = ", window_type='TUMBLING', window_size='1 SECOND'" if windowed else ""
    return (f"CREATE {kind} {name} (ID INT {key}, V INT) WITH (kafka_topic='{name.lower()}', value_format='{fmt}'"
            f"{window}, partitions=1);")


def cases() -> list[dict[str, Any]]:
    out = []
    for (name, kind, windowed, fmt), where, nonagg, keymiss, fn, window in itertools.product(
            SOURCES, (False, True), (False, True), (False, True), ("COUNT(*)", "MIN(V)"),
            (None, "1 SECOND", "0 SECONDS")):
        table = kind == "TABLE"
        faults = [f for f, present in (
            ("kafka", fmt == "KAFKA"),
            ("windowed table", windowed),
            ("WHERE not BOOLEAN", where),
            ("non-aggregate column", nonagg),
            ("key missing", keymiss),
            ("table window", table and window is not None),
            ("table MIN", table and fn == "MIN(V)"),
            ("window size 0", window == "0 SECONDS"),
        ) if present]
        if len(faults) < 2:
            continue
        items = ([] if keymiss else ["ID"]) + (["V"] if nonagg else []) + [f"{fn} AS C"]
        clause = f" WINDOW TUMBLING (SIZE {window})" if window else ""
        filtered = " WHERE V" if where else ""
        query = f"CREATE TABLE O AS SELECT {', '.join(items)} FROM {name}{clause}{filtered} GROUP BY ID;"
        first = min(faults, key=ORDER.index)
        out.append({
            "name": f"{' + '.join(faults)}: {first} first ({name})",
            "statements": [_ddl(name, kind, windowed, fmt), query],
            "expectedException": {"type": EXCEPTION, "message": MESSAGES[first].format(source=name)},
        })
    return out


if __name__ == "__main__":
    (HERE / "aggregation-check-order.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n",
                                                       encoding="utf-8")
