"""Foreign-key joins from a left table keyed by two columns, in every key format that holds two columns
(JSON, DELIMITED, AVRO, PROTOBUF, JSON_SR) x the right table's key format (KAFKA, JSON, AVRO) x INNER/LEFT x
the tables at 4 and 1 partitions (a foreign-key join needs no co-partitioning).

The result is keyed by both left key columns, in the left table's key format; the projection names both
(ksqlDB refuses one missing: ``foreign-key-rules.json``). The records follow Kafka Streams' subscription
instructions (SubscriptionSendProcessorSupplier): a new left row subscribes without an answer unless the
right row exists (INNER) or padded (LEFT); a foreign-key change unsubscribes the old right row and is
answered at the later of its time and the new right row's; a right change reaches its subscribers at its
own time; a left delete is answered with a delete at the later of its time and the right row's.

Writes tests/cases/joins/foreign-key-multi-column.json: ``python tests/cases/joins/foreign_key_multi_column_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

LEFT_FORMATS = ["JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]
RIGHT_FORMATS = ["KAFKA", "JSON", "AVRO"]


def left_key(fmt: str, id1: int, id2: str) -> Any:
    return f"{id1},{id2}" if fmt == "DELIMITED" else {"ID1": id1, "ID2": id2}


def right_key(fmt: str, v: str) -> Any:
    return v


def rec(topic: str, key: Any, value: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def cases() -> list[dict[str, Any]]:
    tests = []
    for lf in LEFT_FORMATS:
        for rf in RIGHT_FORMATS:
            for kind, join in (("INNER", "JOIN"), ("LEFT", "LEFT JOIN")):
                k1, k2 = left_key(lf, 1, "x"), left_key(lf, 2, "y")
                a, b = right_key(rf, "a"), right_key(rf, "b")
                inputs = [
                    rec("r", a, {"W": 1}, 1),
                    rec("l", k1, {"FK": "a", "V": 10}, 2),
                    rec("l", k2, {"FK": "b", "V": 20}, 3),  # no right row yet
                    rec("r", b, {"W": 2}, 4),
                    rec("l", k1, {"FK": "b", "V": 11}, 5),  # moves from a to b
                    rec("r", a, None, 6),  # no subscriber left
                    rec("l", k2, None, 7),
                ]
                outputs = [rec("J", k1, {"V": 10, "W": 1}, 2)]
                if kind == "LEFT":
                    outputs.append(rec("J", k2, {"V": 20, "W": None}, 3))
                outputs += [rec("J", k2, {"V": 20, "W": 2}, 4), rec("J", k1, {"V": 11, "W": 2}, 5),
                            rec("J", k2, None, 7)]
                tests.append({
                    "name": f"{kind} foreign-key join from a {lf} two-column key to a {rf} key",
                    "statements": [
                        "CREATE TABLE L (ID1 INT PRIMARY KEY, ID2 STRING PRIMARY KEY, FK STRING, V INT) WITH "
                        f"(kafka_topic='l', partitions=4, key_format='{lf}', value_format='JSON');",
                        "CREATE TABLE R (ID STRING PRIMARY KEY, W INT) WITH "
                        f"(kafka_topic='r', partitions=1, key_format='{rf}', value_format='JSON');",
                        f"CREATE TABLE J AS SELECT L.ID1, L.ID2, V, W FROM L {join} R ON L.FK = R.ID;"],
                    "inputs": inputs,
                    "outputs": outputs,
                    "post": {"sources": [{"name": "J", "type": "table", "keyFormat": {"format": lf},
                                          "schema": "ID1 INT KEY, ID2 STRING KEY, V INT, W INT"}]},
                })
    return tests


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("foreign-key-multi-column.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
