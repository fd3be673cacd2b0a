"""Writes tests/cases/joins/null-keys.json: ``python tests/cases/joins/null_keys_gen.py``.

A record without a key (or whose join expression is NULL, once re-keyed) in every join kind, over every key
format - the rule of Kafka Streams' KIP-962 (3.7) as its join processors apply it:

* stream-stream (``KStreamKStreamJoin``): the *outer* side of the join (the left of a LEFT join, the right of
  a RIGHT join, both of a FULL join) forwards such a record at once, NULL-padded, under no key - before the
  window stores and before the outer store of the spurious-results fix, so ``GRACE PERIOD`` does not hold it;
  the inner side drops it, so two records without a key never join each other.
* stream-table (``KStreamKTableJoin``): a LEFT join forwards the stream record NULL-padded, an INNER join drops
  it; a table record without a key is dropped by the table source.
* A stream re-keyed by a value column (``Join-left-repartition`` / ``Join-repartition``) whose value is NULL
  is written to the repartition topic without a key and is then such a record.

The sink writes the result without a key (not a key whose column is NULL). Cases per key format of the
sources: KAFKA, JSON, DELIMITED, AVRO, PROTOBUF, JSON_SR.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

from case_keys import key

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]
tests: list[dict[str, Any]] = []


def sources(fmt: str) -> list[str]:
    w = f"key_format='{fmt}', value_format='JSON', partitions=4"
    return [f"CREATE STREAM L (ID INT KEY, X INT, V STRING) WITH (kafka_topic='l', {w});",
            f"CREATE STREAM R (ID INT KEY, Y INT, W STRING) WITH (kafka_topic='r', {w});",
            f"CREATE TABLE T (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='t', {w});"]


def case(fmt: str, name: str, query: str, inputs: list[tuple[str, Any, Any, int]],
         outputs: list[tuple[Any, dict[str, Any], int]], key_column: str) -> None:
    def k(v: Any, col: str) -> Any:
        return None if v is None else key(fmt, col, v)

    tests.append({
        "name": f"{fmt} keys: {name}",
        "statements": sources(fmt) + [query],
        "inputs": [{"topic": t, "key": k(kv, "ID"), "value": v, "timestamp": ts} for t, kv, v, ts in inputs],
        "outputs": [{"topic": "J", "key": k(kv, key_column), "value": v, "timestamp": ts} for kv, v, ts in outputs],
    })


# a right record without a key, a left one without a key, then a keyed pair that joins
SS_IN = [("r", None, {"Y": 1, "W": "r0"}, 0), ("l", None, {"X": 1, "V": "l0"}, 1),
         ("l", 1, {"X": 1, "V": "l1"}, 2), ("r", 1, {"Y": 1, "W": "r1"}, 3)]
# the same by value columns: NULL join values on both sides, then a pair that joins on 5
SV_IN = [("r", 1, {"Y": None, "W": "r0"}, 0), ("l", 2, {"X": None, "V": "l0"}, 1),
         ("l", 3, {"X": 5, "V": "l1"}, 2), ("r", 4, {"Y": 5, "W": "r1"}, 3)]
ST_IN = [("t", 1, {"W": "w"}, 0), ("t", None, {"W": "no key"}, 0), ("l", None, {"X": 1, "V": "l0"}, 1),
         ("l", 1, {"X": None, "V": "l1"}, 2)]

for f in FORMATS:
    within = "WITHIN 1 MINUTE"
    case(f, "stream-stream LEFT on the key: a left record without a key goes out at once NULL-padded under no key, "
            "a right one is dropped",
         f"CREATE STREAM J AS SELECT L.ID, V, W FROM L LEFT JOIN R {within} ON L.ID = R.ID;", SS_IN,
         [(None, {"V": "l0", "W": None}, 1), (1, {"V": "l1", "W": None}, 2), (1, {"V": "l1", "W": "r1"}, 3)], "L_ID")
    case(f, "stream-stream RIGHT on the key: the right record without a key goes out NULL-padded, the left one is "
            "dropped",
         f"CREATE STREAM J AS SELECT R.ID, V, W FROM L RIGHT JOIN R {within} ON L.ID = R.ID;", SS_IN,
         [(None, {"V": None, "W": "r0"}, 0), (1, {"V": "l1", "W": "r1"}, 3)], "R_ID")
    case(f, "stream-stream FULL on the key: records without a key on either side go out alone under no key",
         f"CREATE STREAM J AS SELECT ROWKEY AS K, V, W FROM L FULL JOIN R {within} ON L.ID = R.ID;", SS_IN,
         [(None, {"V": None, "W": "r0"}, 0), (None, {"V": "l0", "W": None}, 1), (1, {"V": "l1", "W": None}, 2),
          (1, {"V": "l1", "W": "r1"}, 3)], "K")
    case(f, "stream-stream INNER on the key: two records without a key never join each other",
         f"CREATE STREAM J AS SELECT L.ID, V, W FROM L JOIN R {within} ON L.ID = R.ID;", SS_IN,
         [(1, {"V": "l1", "W": "r1"}, 3)], "L_ID")
    case(f, "stream-stream LEFT with a GRACE PERIOD: a left record without a key is not held until its window "
            "closes, it goes out at once; a keyed one waits and joins",
         f"CREATE STREAM J AS SELECT L.ID, V, W FROM L LEFT JOIN R {within} GRACE PERIOD 1 MINUTE "
         "ON L.ID = R.ID;", SS_IN,
         [(None, {"V": "l0", "W": None}, 1), (1, {"V": "l1", "W": "r1"}, 3)], "L_ID")
    case(f, "stream-stream LEFT on value columns: a NULL left value goes out NULL-padded under no key, a NULL "
            "right value is dropped",
         f"CREATE STREAM J AS SELECT L.X, V, W FROM L LEFT JOIN R {within} ON L.X = R.Y;", SV_IN,
         [(None, {"V": "l0", "W": None}, 1), (5, {"V": "l1", "W": None}, 2), (5, {"V": "l1", "W": "r1"}, 3)], "X")
    case(f, "stream-stream FULL on value columns: NULL values on either side go out alone under no key",
         f"CREATE STREAM J AS SELECT ROWKEY AS K, V, W FROM L FULL JOIN R {within} ON L.X = R.Y;", SV_IN,
         [(None, {"V": None, "W": "r0"}, 0), (None, {"V": "l0", "W": None}, 1), (5, {"V": "l1", "W": None}, 2),
          (5, {"V": "l1", "W": "r1"}, 3)], "K")
    case(f, "stream-table LEFT on the key: a stream record without a key goes out NULL-padded under no key; a "
            "table record without a key is dropped",
         "CREATE STREAM J AS SELECT L.ID, V, T.W FROM L LEFT JOIN T ON L.ID = T.ID;", ST_IN,
         [(None, {"V": "l0", "W": None}, 1), (1, {"V": "l1", "W": "w"}, 2)], "L_ID")
    case(f, "stream-table INNER on the key: a stream record without a key is dropped",
         "CREATE STREAM J AS SELECT L.ID, V, T.W FROM L JOIN T ON L.ID = T.ID;", ST_IN,
         [(1, {"V": "l1", "W": "w"}, 2)], "L_ID")
    case(f, "stream-table LEFT on a value column: a NULL value goes out NULL-padded under no key, a value "
            "naming a row joins it",
         "CREATE STREAM J AS SELECT L.X, V, T.W FROM L LEFT JOIN T ON L.X = T.ID;",
         [("t", 1, {"W": "w"}, 0), ("l", 7, {"X": None, "V": "l0"}, 1), ("l", 8, {"X": 1, "V": "l1"}, 2)],
         [(None, {"V": "l0", "W": None}, 1), (1, {"V": "l1", "W": "w"}, 2)], "X")
    case(f, "stream-table INNER on a value column: a NULL value is dropped",
         "CREATE STREAM J AS SELECT L.X, V, T.W FROM L JOIN T ON L.X = T.ID;",
         [("t", 1, {"W": "w"}, 0), ("l", 7, {"X": None, "V": "l0"}, 1), ("l", 8, {"X": 1, "V": "l1"}, 2)],
         [(1, {"V": "l1", "W": "w"}, 2)], "X")

if __name__ == "__main__":
    doc = {"comments": [" ".join(line.strip() for line in (__doc__ or "").strip().splitlines()[2:] if line.strip())],
           "tests": tests}
    path = pathlib.Path(__file__).with_name("null-keys.json")
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
