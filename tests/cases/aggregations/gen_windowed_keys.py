"""Generates windowed aggregations grouped by structured and multi-column keys in every key format (our own
cases, ksqlDB's test format): a STRUCT, an ARRAY, a STRUCT beside a column and two primitive columns, under
TUMBLING and SESSION windows. KAFKA holds neither several columns nor structured types, DELIMITED no
structured types: those are refused with the key format's reason; the others write the windowed key.

Run ``python tests/cases/aggregations/gen_windowed_keys.py`` to rewrite ``windowed-structured-keys.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
KEY_FORMATS = ["KAFKA", "JSON", "AVRO", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR", "DELIMITED"]
_ST1, _ST2 = {"A": 1, "B": "x"}, {"A": 2, "B": "y"}
# (value, timestamp) of one input key: two groups, the first one twice
_KEYED_EVENTS = [({"ST": _ST1, "AR": [1, 2], "N": 1, "V": 1}, 1), ({"ST": _ST2, "AR": [3], "N": 2, "V": 2}, 2),
                 ({"ST": _ST1, "AR": [1, 2], "N": 1, "V": 4}, 3)]
_GROUPINGS = {  # GROUP BY -> the result's key columns
    "ST": "ST STRUCT<A INTEGER, B STRING> KEY",
    "AR": "AR ARRAY<INTEGER> KEY",
    "N, ST": "N INTEGER KEY, ST STRUCT<A INTEGER, B STRING> KEY",
    "K, N": "K STRING KEY, N INTEGER KEY",
}


def _group_key(grouping: str, key_format: str, value: dict[str, Any]) -> Any:
    """The result key as a case spells it: one column bare (PROTOBUF and PROTOBUF_NOSR keep it in a
    message), several as an object, DELIMITED as text."""
    cols = [c.strip() for c in grouping.split(",")]
    row = {"K": "k", **value}
    if len(cols) == 1:
        # PROTOBUF_NOSR unwraps a single key: a STRUCT is the root message itself, shown bare
        in_message = key_format == "PROTOBUF" or (key_format == "PROTOBUF_NOSR" and not isinstance(row[cols[0]], dict))
        return {cols[0]: row[cols[0]]} if in_message else row[cols[0]]
    if key_format == "DELIMITED":
        return ",".join(str(row[c]) for c in cols)
    return {c: row[c] for c in cols}


def _key_refusal(grouping: str, key_format: str) -> str | None:
    """The reason a key format cannot hold the grouped key, or None."""
    spelled = {"ST": "STRUCT<`A` INTEGER, `B` STRING>", "AR": "ARRAY<INTEGER>", "N": "INTEGER", "K": "STRING"}
    persistence = ", ".join(f"`{c}` {spelled[c]} KEY" for c in grouping.split(", "))
    head = f"Key format does not support schema.\nformat: {key_format}\nschema: Persistence{{columns=[{persistence}]"
    if key_format == "KAFKA" and "," in grouping:
        return f"{head}, features=[]}}\nreason: The 'KAFKA' format only supports a single field. Got: [{persistence}]"
    complex_type = "STRUCT" if "ST" in grouping.split(", ") else "ARRAY" if grouping == "AR" else None
    if key_format == "KAFKA" and complex_type:
        return f"{head}, features=[]}}\nreason: The 'KAFKA' format does not support type '{complex_type}'"
    if key_format == "DELIMITED" and complex_type:
        column = "ST" if complex_type == "STRUCT" else "AR"
        return (f"{head}, features=[]}}\nreason: The 'DELIMITED' format does not support type '{complex_type}', "
                f"column: `{column}`")
    return None


def windowed_key_cases() -> list[dict[str, Any]]:
    """Windowed aggregations grouped by a STRUCT, an ARRAY, a STRUCT beside a column and two primitive
    columns, in every key format: the windowed key written in the format, or the format's refusal."""
    cases = []
    for key_format in KEY_FORMATS:
        for grouping, key_schema in _GROUPINGS.items():
            for window in ("TUMBLING", "SESSION"):
                clause = "TUMBLING (SIZE 10 MILLISECONDS)" if window == "TUMBLING" else "SESSION (5 MILLISECONDS)"
                statements = [
                    "CREATE STREAM S (K STRING KEY, ST STRUCT<A INT, B STRING>, AR ARRAY<INT>, N INT, V INT) WITH "
                    "(kafka_topic='s', value_format='JSON');",
                    f"CREATE TABLE O WITH (key_format='{key_format}') AS SELECT {grouping}, COUNT(*) AS C, "
                    f"SUM(V) AS S FROM S WINDOW {clause} GROUP BY {grouping};",
                ]
                name = f"{window} grouped by {grouping}, key {key_format}"
                refusal = _key_refusal(grouping, key_format)
                if refusal is not None:
                    cases.append({"name": name + " is refused", "statements": statements,
                                  "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                                        "message": refusal}})
                    continue
                outputs: list[dict[str, Any]] = []
                seen: dict[str, tuple[int, int, int]] = {}  # key -> count, sum, first timestamp
                for value, ts in _KEYED_EVENTS:
                    key = _group_key(grouping, key_format, value)
                    kid = json.dumps(key, sort_keys=True)
                    n, total, first = seen.get(kid, (0, 0, ts))
                    if window == "SESSION" and kid in seen:  # the session grows: its old row is deleted
                        last = max(t for v, t in _KEYED_EVENTS if t < ts and
                                   json.dumps(_group_key(grouping, key_format, v), sort_keys=True) == kid)
                        outputs.append({"topic": "O", "key": key, "value": None, "timestamp": last,
                                        "window": {"start": first, "end": last, "type": "session"}})
                    seen[kid] = (n + 1, total + value["V"], first)
                    bounds = {"start": first, "end": ts, "type": "session"} if window == "SESSION" else \
                        {"start": 0, "end": 10, "type": "time"}
                    outputs.append({"topic": "O", "key": key, "value": {"C": n + 1, "S": total + value["V"]},
                                    "timestamp": ts, "window": bounds})
                window_key: dict[str, Any] = {"format": key_format, "windowType": window}
                if window == "TUMBLING":
                    window_key["windowSize"] = 10
                cases.append({
                    "name": name, "statements": statements,
                    "inputs": [{"topic": "s", "key": "k", "value": v, "timestamp": ts} for v, ts in _KEYED_EVENTS],
                    "outputs": outputs,
                    "topics": [{"name": "s", "partitions": 1}],
                    "post": {"sources": [{"name": "O", "type": "table", "keyFormat": window_key,
                                          "schema": f"{key_schema}, C BIGINT, S INTEGER"}]},
                })
    return cases


def cases() -> list[dict[str, Any]]:
    """``windowed-structured-keys.json`` as the file holds it."""
    return json.loads(json.dumps(windowed_key_cases()))


def write() -> None:
    doc = {"comment": "generated by gen_windowed_keys.py", "tests": windowed_key_cases()}
    (HERE / "windowed-structured-keys.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    write()
