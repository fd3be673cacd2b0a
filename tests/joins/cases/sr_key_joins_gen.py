"""Writes tests/joins/cases/sr-key-joins.json: every join flavour with schema-registry key formats (AVRO,
JSON_SR, PROTOBUF) at 1 and 4 partitions. ksqlDB re-keys every source side of such a join through a
repartition topic (a registered key schema is never trusted to be byte-compatible with the other side's);
the results must not depend on the partition count. Run
``python tests/joins/cases/sr_key_joins_gen.py tests/joins/cases/sr-key-joins.json`` after changing it.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def k(fmt: str, col: str, v: Any) -> Any:
    return {col: v} if fmt == "PROTOBUF" and v is not None else v
def cases() -> list[dict[str, Any]]:
    out = []
    for fmt in ("AVRO", "JSON_SR", "PROTOBUF"):
        for parts in (1, 4):
            w = f"key_format='{fmt}', value_format='JSON', partitions={parts}"
            tag = f"{fmt} keys, {parts} partition{'s' if parts > 1 else ''}"
            L = f"CREATE STREAM L (ID INT KEY, LV STRING, FK INT) WITH (kafka_topic='l', {w});"
            R = f"CREATE STREAM R (ID INT KEY, RV STRING) WITH (kafka_topic='r', {w});"
            T = f"CREATE TABLE T (ID INT PRIMARY KEY, TV STRING, FK INT) WITH (kafka_topic='t', {w});"
            U = f"CREATE TABLE U (ID INT PRIMARY KEY, UV STRING) WITH (kafka_topic='u', {w});"
            ids = [1, 2, 3, 4, 5, 6]
            lin = [{"topic": "l", "key": k(fmt, "ID", i), "value": {"LV": f"l{i}", "FK": 7 - i}, "timestamp": 100 + i} for i in ids]
            rin = [{"topic": "r", "key": k(fmt, "ID", i), "value": {"RV": f"r{i}"}, "timestamp": 200 + i} for i in ids if i % 2 == 0]
            tin = [{"topic": "t", "key": k(fmt, "ID", i), "value": {"TV": f"t{i}", "FK": 7 - i}, "timestamp": 10 + i} for i in ids if i != 3]
            uin = [{"topic": "u", "key": k(fmt, "ID", i), "value": {"UV": f"u{i}"}, "timestamp": 20 + i} for i in ids if i % 2 == 1]
            def o(key: Any, value: Any, ts: int, col: str = "L_ID", fmt: str = fmt) -> dict[str, Any]:
                return {"topic": "OUTPUT", "key": k(fmt, col, key), "value": value, "timestamp": ts}
            # stream-stream inner on the key
            out.append({"name": f"{tag}: stream-stream INNER on the key", "statements": [L, R,
                "CREATE STREAM OUTPUT AS SELECT L.ID, LV, RV FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
                "inputs": lin + rin, "outputs": [o(i, {"LV": f"l{i}", "RV": f"r{i}"}, 200 + i) for i in ids if i % 2 == 0]})
            out.append({"name": f"{tag}: stream-stream LEFT on a value column", "statements": [L, R,
                "CREATE STREAM OUTPUT AS SELECT L.FK, LV, RV FROM L LEFT JOIN R WITHIN 1 MINUTE ON L.FK = R.ID;"],
                "inputs": lin + rin,
                "outputs": [o(7 - i, {"LV": f"l{i}", "RV": None}, 100 + i, "FK") for i in ids] +
                           [o(i, {"LV": f"l{7 - i}", "RV": f"r{i}"}, 200 + i, "FK") for i in ids if i % 2 == 0]})
            out.append({"name": f"{tag}: stream-table LEFT on the key", "statements": [L, T,
                "CREATE STREAM OUTPUT AS SELECT L.ID, LV, TV FROM L LEFT JOIN T ON L.ID = T.ID;"],
                "inputs": tin + lin, "outputs": [o(i, {"LV": f"l{i}", "TV": None if i == 3 else f"t{i}"}, 100 + i) for i in ids]})
            out.append({"name": f"{tag}: stream-table INNER on a value column", "statements": [L, T,
                "CREATE STREAM OUTPUT AS SELECT L.FK, LV, TV FROM L JOIN T ON L.FK = T.ID;"],
                "inputs": tin + lin, "outputs": [o(7 - i, {"LV": f"l{i}", "TV": f"t{7 - i}"}, 100 + i, "L_FK") for i in ids if 7 - i != 3]})
            out.append({"name": f"{tag}: table-table LEFT on the key", "statements": [T, U,
                "CREATE TABLE OUTPUT AS SELECT T.ID, TV, UV FROM T LEFT JOIN U ON T.ID = U.ID;"],
                "inputs": tin + uin,
                "outputs": [o(i, {"TV": f"t{i}", "UV": None}, 10 + i, "T_ID") for i in ids if i != 3] +
                           [o(i, {"TV": f"t{i}", "UV": f"u{i}"}, 20 + i, "T_ID") for i in ids if i % 2 == 1 and i != 3]})
            out.append({"name": f"{tag}: table-table FULL OUTER on the key", "statements": [T, U,
                "CREATE TABLE OUTPUT AS SELECT ROWKEY, TV, UV FROM T FULL OUTER JOIN U ON T.ID = U.ID;"],
                "inputs": tin + uin,
                "outputs": [o(i, {"TV": f"t{i}", "UV": None}, 10 + i, "ROWKEY") for i in ids if i != 3] +
                           [o(i, {"TV": None if i == 3 else f"t{i}", "UV": f"u{i}"}, 20 + i, "ROWKEY") for i in ids if i % 2 == 1]})
            out.append({"name": f"{tag}: foreign-key LEFT join", "statements": [T, U,
                "CREATE TABLE OUTPUT AS SELECT T.ID, TV, UV FROM T LEFT JOIN U ON T.FK = U.ID;"],
                "inputs": tin + uin,
                "outputs": [o(i, {"TV": f"t{i}", "UV": None}, 10 + i, "T_ID") for i in ids if i != 3] +
                           [o(7 - j, {"TV": f"t{7 - j}", "UV": f"u{j}"}, 20 + j, "T_ID") for j in ids if j % 2 == 1 and 7 - j != 3]})
            out.append({"name": f"{tag}: foreign-key INNER join", "statements": [T, U,
                "CREATE TABLE OUTPUT AS SELECT T.ID, TV, UV FROM T JOIN U ON T.FK = U.ID;"],
                "inputs": tin + uin,
                "outputs": [o(7 - j, {"TV": f"t{7 - j}", "UV": f"u{j}"}, 20 + j, "T_ID") for j in ids if j % 2 == 1 and 7 - j != 3]})
            out.append({"name": f"{tag}: stream-stream-table n-way", "statements": [L, R, U,
                "CREATE STREAM OUTPUT AS SELECT L.ID, LV, RV, UV FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID LEFT JOIN U ON L.ID = U.ID;"],
                "inputs": uin + lin + rin, "outputs": [o(i, {"LV": f"l{i}", "RV": f"r{i}", "UV": None}, 200 + i) for i in ids if i % 2 == 0]})
    return out


if __name__ == "__main__":
    doc = {"comments": ["Joins over schema-registry keys at 1 and 4 partitions; generated by sr_key_joins_gen.py."],
           "tests": cases()}
    with open(sys.argv[1], "w") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
