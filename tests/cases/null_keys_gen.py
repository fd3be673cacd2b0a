"""Writes tests/cases/null-keys.json: a null (absent) Kafka key against a key whose columns are all NULL.

The rule, over its scope: read from any key format, single or multi-column, a null key stays null through
every query that keeps the input's key (projection, filter, INSERT INTO, a sink in another key format, a
PARTITION BY naming the key itself) and is written back as a null key; a key of NULL columns stays what it
is. Tables ignore records without a key (but keep a key of NULL columns). GROUP BY excludes a NULL group;
PARTITION BY a value column computes a new key. Joins: the outer sides of stream-stream joins and the
stream of a LEFT stream-table join emit a null-keyed record at once, null-padded, under a null key; inner
sides drop it - joined on the keys or on value columns (re-keyed through a repartition topic).

Run ``python tests/cases/null_keys_gen.py tests/cases/null-keys.json`` after changing it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"]
Case = dict[str, Any]


def key_specs(fmt: str, multi: bool) -> list[Any]:
    """Input keys: a key, a null key and (where the harness can write one) a key of NULL columns."""
    if not multi:
        if fmt.startswith("PROTOBUF"):
            return [{"K1": 1}, None]  # protobuf keys are always wrapped
        return ["1" if fmt == "DELIMITED" else 1, None]
    if fmt == "DELIMITED":
        return ["1,x", None, ","]
    if fmt.startswith("PROTOBUF"):  # (an unset proto3 field reads as its default, not NULL)
        return [{"K1": 1, "K2": "x"}, None]
    return [{"K1": 1, "K2": "x"}, None, {"K1": None, "K2": None}]


def keeping_cases() -> list[Case]:
    cases = []
    for fmt in FORMATS:
        for multi in (False, True):
            if fmt == "KAFKA" and multi:
                continue
            cols = "K1 INT KEY, K2 STRING KEY" if multi else "K1 INT KEY"
            ks = key_specs(fmt, multi)
            tag = f"{fmt} {'multi' if multi else 'single'}-column key"
            base = (f"CREATE STREAM INPUT ({cols}, V STRING) WITH (kafka_topic='input', key_format='{fmt}', "
                    "value_format='JSON');")
            ins = [{"topic": "input", "key": k, "value": {"V": f"v{i}"}, "timestamp": i} for i, k in enumerate(ks)]

            def outs(keep: set[int] | None = None, ks: list[Any] = ks) -> list[Case]:
                return [{"topic": "OUTPUT", "key": k, "value": {"V": f"v{i}"}, "timestamp": i}
                        for i, k in enumerate(ks) if keep is None or i in keep]

            sink = (f"CREATE STREAM OUTPUT ({cols}, V STRING) WITH (kafka_topic='OUTPUT', key_format='{fmt}', "
                    "value_format='JSON');")
            table = base.replace("CREATE STREAM", "CREATE TABLE").replace("KEY", "PRIMARY KEY")
            cases += [
                {"name": f"{tag}: projection", "inputs": ins, "outputs": outs(),
                 "statements": [base, "CREATE STREAM OUTPUT AS SELECT * FROM INPUT;"]},
                {"name": f"{tag}: filter", "inputs": ins, "outputs": outs(),
                 "statements": [base, "CREATE STREAM OUTPUT AS SELECT * FROM INPUT WHERE V IS NOT NULL;"]},
                {"name": f"{tag}: INSERT INTO", "inputs": ins, "outputs": outs(),
                 "statements": [base, sink, "INSERT INTO OUTPUT SELECT * FROM INPUT;"]},
                {"name": f"{tag}: a table drops a null key, keeps a key of NULL columns", "inputs": ins,
                 "outputs": outs({0, 2}), "statements": [table, "CREATE TABLE OUTPUT AS SELECT * FROM INPUT;"]},
            ]
    return cases


def join_cases(fmt: str) -> list[Case]:
    left = (f"CREATE STREAM L (ID INT KEY, LV STRING, LK INT) WITH (kafka_topic='left', key_format='{fmt}', "
            "value_format='JSON');")
    right = (f"CREATE STREAM R (ID INT KEY, RV STRING, RK INT) WITH (kafka_topic='right', key_format='{fmt}', "
             "value_format='JSON');")
    table = (f"CREATE TABLE T (ID INT PRIMARY KEY, TV STRING) WITH (kafka_topic='tab', key_format='{fmt}', "
             "value_format='JSON');")
    inputs = [
        {"topic": "left", "key": 1, "value": {"LV": "l1", "LK": 1}, "timestamp": 10},
        {"topic": "right", "key": 1, "value": {"RV": "r1", "RK": 1}, "timestamp": 11},
        {"topic": "left", "key": None, "value": {"LV": "ln", "LK": None}, "timestamp": 12},
        {"topic": "right", "key": None, "value": {"RV": "rn", "RK": None}, "timestamp": 13},
    ]

    def row(key: Any, lv: Any, rv: Any, ts: int) -> Case:
        return {"topic": "OUTPUT", "key": key, "value": {"LV": lv, "RV": rv}, "timestamp": ts}

    joined, l_alone, r_alone = row(1, "l1", "r1", 11), row(1, "l1", None, 10), row(None, None, "rn", 13)
    l_null = row(None, "ln", None, 12)
    out = []
    for kind, expected in (("INNER", [joined]), ("LEFT", [l_alone, joined, l_null]), ("RIGHT", [joined, r_alone]),
                           ("FULL OUTER", [l_alone, joined, l_null, r_alone])):
        for on, name in (("L.ID = R.ID", "on the keys"), ("L.LK = R.RK", "on value columns (re-keyed)")):
            if kind == "FULL OUTER":
                key = "ROWKEY"
            elif kind == "RIGHT":
                key = "R.ID" if on == "L.ID = R.ID" else "R.RK"
            else:
                key = "L.ID" if on == "L.ID = R.ID" else "L.LK"
            out.append({"name": f"{fmt} stream-stream {kind} join {name}: null keys", "inputs": inputs,
                        "outputs": expected,
                        "statements": [left, right, f"CREATE STREAM OUTPUT AS SELECT {key}, LV, RV FROM L {kind} "
                                                    f"JOIN R WITHIN 1 MINUTE ON {on};"]})
    inputs = [
        {"topic": "tab", "key": 1, "value": {"TV": "t1"}, "timestamp": 1},
        {"topic": "tab", "key": None, "value": {"TV": "tn"}, "timestamp": 2},
        {"topic": "left", "key": 1, "value": {"LV": "l1", "LK": 1}, "timestamp": 10},
        {"topic": "left", "key": None, "value": {"LV": "ln", "LK": None}, "timestamp": 12},
    ]
    found = {"topic": "OUTPUT", "key": 1, "value": {"LV": "l1", "TV": "t1"}, "timestamp": 10}
    alone = {"topic": "OUTPUT", "key": None, "value": {"LV": "ln", "TV": None}, "timestamp": 12}
    for kind, expected in (("INNER", [found]), ("LEFT", [found, alone])):
        for on, key, name in (("L.ID = T.ID", "L.ID", "on the key"), ("L.LK = T.ID", "L.LK", "on a value column")):
            out.append({"name": f"{fmt} stream-table {kind} join {name}: null keys", "inputs": inputs,
                        "outputs": expected,
                        "statements": [left, table, f"CREATE STREAM OUTPUT AS SELECT {key}, LV, TV FROM L {kind} "
                                                    f"JOIN T ON {on};"]})
    return out


def rekey_cases() -> list[Case]:
    out = []
    for fmt in ("JSON", "DELIMITED", "AVRO", "KAFKA"):
        def k(v: int, fmt: str = fmt) -> Any:
            return str(v) if fmt == "DELIMITED" else v

        base = (f"CREATE STREAM INPUT (K1 INT KEY, V STRING, N INT) WITH (kafka_topic='input', key_format='{fmt}', "
                "value_format='JSON');")
        ins = [{"topic": "input", "key": k(1), "value": {"V": "a", "N": 5}, "timestamp": 1},
               {"topic": "input", "key": None, "value": {"V": "b", "N": 6}, "timestamp": 2}]
        kept = [{"topic": "OUTPUT", "key": 1, "value": {"V": "a", "N": 5}, "timestamp": 1},
                {"topic": "OUTPUT", "key": None, "value": {"V": "b", "N": 6}, "timestamp": 2}]
        other = "JSON" if fmt != "JSON" else "AVRO"
        out += [
            {"name": f"{fmt} PARTITION BY the key column is no re-key: a null key stays null", "inputs": ins,
             "outputs": [dict(kept[0], key=k(1)), kept[1]],
             "statements": [base, "CREATE STREAM OUTPUT AS SELECT * FROM INPUT PARTITION BY K1;"]},
            {"name": f"{fmt} PARTITION BY a value column re-keys a null-keyed record", "inputs": ins,
             "outputs": [{"topic": "OUTPUT", "key": k(5), "value": {"V": "a", "K1": 1}, "timestamp": 1},
                         {"topic": "OUTPUT", "key": k(6), "value": {"V": "b", "K1": None}, "timestamp": 2}],
             "statements": [base, "CREATE STREAM OUTPUT AS SELECT * FROM INPUT PARTITION BY N;"]},
            {"name": f"{fmt} GROUP BY the key column excludes a null key", "inputs": ins,
             "outputs": [{"topic": "OUTPUT", "key": k(1), "value": {"C": 1}, "timestamp": 1}],
             "statements": [base, "CREATE TABLE OUTPUT AS SELECT K1, COUNT(*) AS C FROM INPUT GROUP BY K1;"]},
            {"name": f"{fmt} key written as {other}: a null key stays null", "inputs": ins, "outputs": kept,
             "statements": [base, f"CREATE STREAM OUTPUT WITH (KEY_FORMAT='{other}') AS SELECT * FROM INPUT;"]},
            {"name": f"{fmt} null keys on 4 partitions", "inputs": ins, "outputs": [dict(kept[0], key=k(1)), kept[1]],
             "statements": [base.replace("value_format='JSON'", "value_format='JSON', partitions=4"),
                            "CREATE STREAM OUTPUT AS SELECT * FROM INPUT WHERE N > 0;"]},
        ]
    return out


def main(path: str) -> None:
    cases = keeping_cases() + [c for f in ("KAFKA", "JSON", "AVRO") for c in join_cases(f)] + rekey_cases()
    doc = {"comments": ["A null (absent) Kafka key against a key whose columns are all NULL, by key format, key "
                        "width and statement kind. Generated by tests/cases/null_keys_gen.py: edit that."],
           "tests": cases}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
