"""Foreign-key joins whose right table is keyed in a schema-registry format (AVRO, PROTOBUF, JSON_SR): with a
STRUCT primary key the right table is re-keyed first (``RightSourceKeyed-SelectKey-repartition``, as many
partitions as its topic, and its rows materialized in ``RightSourceKeyed-Materialize``): the key's schema
in the topic is the producer's, whose bytes need not be the ones the join writes for the foreign key.
A primitive key is taken as written (no repartition topic, ``KafkaTopic_Right-Reduce``). Either way the
left table is never re-keyed and the joined rows are the same: INNER and LEFT, right tables of 1 and 4
partitions, and a right topic whose key schema a producer registered under its own record name.

Writes tests/cases/joins/foreign-key-struct-keys.json:
``python tests/cases/joins/foreign_key_struct_keys_gen.py tests/cases/joins/foreign-key-struct-keys.json``.
Run them also with ``--partitioning kafka`` (records where their keys hash).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from case_keys import key

APP = "_confluent-ksql-some.ksql.service.idquery_CTAS_OUTPUT_0-"
FORMATS = ["AVRO", "PROTOBUF", "JSON_SR"]
KEYS = {  # key type: (SQL type, two foreign keys)
    "STRUCT": ("STRUCT<A INT>", ({"A": 1}, {"A": 2})),
    "INT": ("INT", (1, 2)),
}
# a producer's own key schema for the right topic (another record name than ksqlDB's RKey)
PRODUCER_KEY_SCHEMAS = {
    "AVRO": {"type": "record", "name": "CustomerKey", "namespace": "com.example",
             "fields": [{"name": "A", "type": ["null", "int"], "default": None}]},
    "JSON_SR": {"type": "object", "title": "com.example.CustomerKey",
                "properties": {"A": {"type": "integer"}}},
}


def inp(topic: str, k: Any, v: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": k, "value": v, "timestamp": ts}


def case(fmt: str, ktype: str, kind: str, right_partitions: int, producer_schema: bool) -> dict[str, Any]:
    sql_type, (f1, f2) = KEYS[ktype]
    words = "JOIN" if kind == "INNER" else "LEFT JOIN"
    stmts = [f"CREATE TABLE L (ID INT PRIMARY KEY, FK {sql_type}, V INT) WITH (kafka_topic='l', partitions=4, "
             f"key_format='{fmt}', value_format='JSON');",
             f"CREATE TABLE R (RID {sql_type} PRIMARY KEY, W STRING) WITH (kafka_topic='r', "
             f"partitions={right_partitions}, key_format='{fmt}', value_format='JSON');",
             f"CREATE TABLE OUTPUT AS SELECT L.ID AS ID, V, W FROM L {words} R ON L.FK = R.RID;"]
    r1, r2 = key(fmt, "RID", f1), key(fmt, "RID", f2)
    k1, k2, k3 = key(fmt, "ID", 1), key(fmt, "ID", 2), key(fmt, "ID", 3)
    ins = [inp("r", r1, {"W": "w1"}, 0),
           inp("l", k1, {"FK": f1, "V": 10}, 1000),
           inp("l", k2, {"FK": f2, "V": 20}, 2000),
           inp("r", r2, {"W": "w2"}, 3000),
           inp("l", k3, {"FK": f1, "V": 30}, 4000),
           inp("r", r1, {"W": "w1b"}, 5000),
           inp("r", r2, None, 6000),
           inp("l", k1, {"FK": f2, "V": 11}, 7000)]
    if kind == "INNER":
        outs = [(k1, {"V": 10, "W": "w1"}, 1000), (k2, {"V": 20, "W": "w2"}, 3000),
                (k3, {"V": 30, "W": "w1"}, 4000), (k1, {"V": 10, "W": "w1b"}, 5000),
                (k3, {"V": 30, "W": "w1b"}, 5000), (k2, None, 6000), (k1, None, 7000)]
    else:
        outs = [(k1, {"V": 10, "W": "w1"}, 1000), (k2, {"V": 20, "W": None}, 2000),
                (k2, {"V": 20, "W": "w2"}, 3000), (k3, {"V": 30, "W": "w1"}, 4000),
                (k1, {"V": 10, "W": "w1b"}, 5000), (k3, {"V": 30, "W": "w1b"}, 5000),
                (k2, {"V": 20, "W": None}, 6000), (k1, {"V": 11, "W": None}, 7000)]
    rekeyed = ktype == "STRUCT"
    repartition = f"{APP}RightSourceKeyed-SelectKey-repartition"
    if rekeyed:
        post_topics: dict[str, Any] = {"topics": [
            {"name": repartition, "partitions": right_partitions},
            {"name": f"{APP}RightSourceKeyed-Materialize-changelog", "partitions": right_partitions}],
            "blacklist": ".*(KafkaTopic_Right-Reduce|LeftSourceKeyed|FkJoin).*"}
    else:
        post_topics = {"topics": [{"name": f"{APP}KafkaTopic_Right-Reduce-changelog",
                                   "partitions": right_partitions}],
                       "blacklist": ".*(SourceKeyed|FkJoin).*"}
    topics: list[dict[str, Any]] = [{"name": "r", "partitions": right_partitions}, {"name": "l", "partitions": 4}]
    name = f"{fmt} {ktype} right key, {right_partitions} right partition(s), {kind}"
    if producer_schema:
        topics[0].update({"format": fmt, "keySchema": PRODUCER_KEY_SCHEMAS[fmt]})
        name += ", the producer's key schema"
    return {"name": name, "statements": stmts, "topics": topics, "inputs": ins,
            "outputs": [{"topic": "OUTPUT", "key": k, "value": v, "timestamp": t} for k, v, t in outs],
            "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": "ID INT KEY, V INT, W STRING",
                                  "keyFormat": {"format": fmt}}],
                     "topics": post_topics}}


def main() -> None:
    tests = []
    for fmt in FORMATS:
        for ktype in KEYS:
            for kind in ("INNER", "LEFT"):
                for partitions in (1, 4):
                    tests.append(case(fmt, ktype, kind, partitions, False))
        if fmt in PRODUCER_KEY_SCHEMAS:
            for kind in ("INNER", "LEFT"):
                tests.append(case(fmt, "STRUCT", kind, 4, True))
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
