"""Writes tests/cases/joins/keyless-sources.json: ``python tests/cases/joins/keyless_sources_gen.py``.

The formats of a join's CREATE ... AS SELECT sink: the FROM source's as written, a key-less FROM stream's NONE
becoming the default key format, and the value format's inheritable properties (see the file's comment).
"""

from __future__ import annotations

import json
import pathlib

APP = "_confluent-ksql-some.ksql.service.idquery_"
def topics(qid, pairs):
    return {"topics": [{"name": APP + qid + "-" + n, "keyFormat": {"format": k}, "valueFormat": {"format": v}} for n, k, v in pairs]}
S_NONE = "CREATE STREAM S (ID INT, V INT) WITH (kafka_topic='s', key_format='NONE', value_format='JSON', partitions=1);"
T_JSON = "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', key_format='JSON', value_format='JSON', partitions=1);"
tests = []
def case(name, stmts, inputs, outputs, post=None, props=None, error=None):
    t = {"name": name}
    if props:
        t["properties"] = props
    t["statements"] = stmts
    if error:
        t["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException", "message": error}
    else:
        t["inputs"] = [dict(zip(("topic", "key", "value", "timestamp"), i, strict=True)) for i in inputs]
        t["outputs"] = [dict(zip(("topic", "key", "value", "timestamp"), o, strict=True)) for o in outputs]
        if post:
            t["post"] = post
    tests.append(t)

ST_IN = [("t", 1, {"W": 2}, 0), ("s", None, {"ID": 1, "V": 4}, 5), ("s", None, {"ID": 3, "V": 6}, 6)]
case("stream-table: a key-less FROM stream re-keyed into the table's JSON key; the sink takes the default key format, not the join's",
     [S_NONE, T_JSON, "CREATE STREAM J AS SELECT S.ID, V, W FROM S LEFT JOIN T ON S.ID = T.ID;"],
     ST_IN, [("J", 1, {"V": 4, "W": 2}, 5), ("J", 3, {"V": 6, "W": None}, 6)],
     {"sources": [{"name": "J", "type": "stream", "schema": "S_ID INT KEY, V INT, W INT", "keyFormat": {"format": "KAFKA"}, "valueFormat": "JSON"}],
      "topics": topics("CSAS_J_0", [("Join-repartition", "JSON", "JSON"), ("KafkaTopic_Right-Reduce-changelog", "JSON", "JSON")])})
case("stream-table: a key-less FROM stream, ksql.persistence.default.format.key DELIMITED: the sink takes it, the join's topics the table's JSON",
     [S_NONE, T_JSON, "CREATE STREAM J AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;"],
     ST_IN, [("J", "1", {"V": 4, "W": 2}, 5)],
     {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": "DELIMITED"}}],
      "topics": topics("CSAS_J_0", [("Join-repartition", "JSON", "JSON")])},
     props={"ksql.persistence.default.format.key": "DELIMITED"})
case("stream-table: the sink's own KEY_FORMAT wins over the default for a key-less FROM stream",
     [S_NONE, T_JSON, "CREATE STREAM J WITH (KEY_FORMAT='DELIMITED') AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;"],
     ST_IN, [("J", "1", {"V": 4, "W": 2}, 5)],
     {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": "DELIMITED"}}]})
case("stream-table: KEY_FORMAT='NONE' on a join's sink is refused - a join's result always has a key column",
     [S_NONE, T_JSON, "CREATE STREAM J WITH (KEY_FORMAT='NONE') AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;"],
     None, None, error="The 'NONE' format can only be used when no columns are defined. Got: [`S_ID` INTEGER KEY]")
case("table-table: KEY_FORMAT='NONE' on a join's sink is refused",
     ["CREATE TABLE A (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='a', format='JSON', partitions=1);", T_JSON,
      "CREATE TABLE J WITH (KEY_FORMAT='NONE') AS SELECT * FROM A JOIN T ON A.ID = T.ID;"],
     None, None, error="The 'NONE' format can only be used when no columns are defined. Got: [`A_ID` INTEGER KEY]")
case("stream-stream: KEY_FORMAT='NONE' on a synthetic-keyed join's sink is refused",
     [S_NONE, "CREATE STREAM R (ID INT, X INT) WITH (kafka_topic='r', key_format='NONE', value_format='JSON', partitions=1);",
      "CREATE STREAM J WITH (KEY_FORMAT='NONE') AS SELECT ROWKEY AS K, V, X FROM S FULL JOIN R WITHIN 1 MINUTE ON S.ID + 1 = R.ID;"],
     None, None, error="The 'NONE' format can only be used when no columns are defined. Got: [`K` INTEGER KEY]")
SS_IN = [("r", 1, {"X": 7}, 0), ("s", None, {"ID": 1, "V": 4}, 5)]
case("stream-stream: a key-less FROM stream joined to a stream with JSON keys: the join's topics take JSON, the sink the default key format",
     [S_NONE, "CREATE STREAM R (ID INT KEY, X INT) WITH (kafka_topic='r', key_format='JSON', value_format='JSON', partitions=1);",
      "CREATE STREAM J AS SELECT S.ID, V, X FROM S JOIN R WITHIN 1 MINUTE ON S.ID = R.ID;"],
     SS_IN, [("J", 1, {"V": 4, "X": 7}, 5)],
     {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": "KAFKA"}}],
      "topics": topics("CSAS_J_0", [("Join-left-repartition", "JSON", "JSON")])})
case("stream-stream: two key-less streams, a synthetic key: the join's topics and the sink take the default key format",
     [S_NONE, "CREATE STREAM R (ID INT, X INT) WITH (kafka_topic='r', key_format='NONE', value_format='JSON', partitions=1);",
      "CREATE STREAM J AS SELECT ROWKEY AS K, V, X FROM S FULL JOIN R WITHIN 1 MINUTE ON S.ID + 1 = R.ID;"],
     [("r", None, {"ID": 2, "X": 7}, 0), ("s", None, {"ID": 1, "V": 4}, 5)],
     [("J", "2", {"V": None, "X": 7}, 0), ("J", "2", {"V": 4, "X": 7}, 5)],
     {"sources": [{"name": "J", "type": "stream", "schema": "K INT KEY, V INT, X INT", "keyFormat": {"format": "DELIMITED"}}],
      "topics": topics("CSAS_J_0", [("Join-left-repartition", "DELIMITED", "JSON"), ("Join-right-repartition", "DELIMITED", "JSON")])},
     props={"ksql.persistence.default.format.key": "DELIMITED"})
case("stream-stream: a keyed FROM stream joined to a key-less one: the right side is re-keyed into the left's key format, the sink keeps it",
     ["CREATE STREAM L (ID INT KEY, V INT) WITH (kafka_topic='l', key_format='DELIMITED', value_format='JSON', partitions=1);",
      "CREATE STREAM R (ID INT, X INT) WITH (kafka_topic='r', key_format='NONE', value_format='JSON', partitions=1);",
      "CREATE STREAM J AS SELECT L.ID, V, X FROM L JOIN R WITHIN 1 MINUTE ON L.ID = R.ID;"],
     [("r", None, {"ID": 1, "X": 7}, 0), ("l", "1", {"V": 4}, 5)], [("J", "1", {"V": 4, "X": 7}, 5)],
     {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": "DELIMITED"}}],
      "topics": topics("CSAS_J_0", [("Join-right-repartition", "DELIMITED", "JSON")])})
case("GROUP BY after a join of a key-less FROM stream: the grouping topic takes the join's key format, the sink the default",
     [S_NONE, T_JSON, "CREATE TABLE J AS SELECT W, COUNT(*) AS C FROM S JOIN T ON S.ID = T.ID GROUP BY W;"],
     ST_IN[:2], [("J", 2, {"C": 1}, 5)],
     {"sources": [{"name": "J", "type": "table", "keyFormat": {"format": "KAFKA"}}],
      "topics": topics("CTAS_J_0", [("Join-repartition", "JSON", "JSON"), ("Aggregate-GroupBy-repartition", "JSON", "JSON")])})
case("PARTITION BY after a join of a key-less FROM stream: the sink takes the default key format",
     [S_NONE, T_JSON, "CREATE STREAM J AS SELECT W, V FROM S JOIN T ON S.ID = T.ID PARTITION BY W;"],
     ST_IN[:2], [("J", 2, {"V": 4}, 5)],
     {"sources": [{"name": "J", "type": "stream", "schema": "W INT KEY, V INT", "keyFormat": {"format": "KAFKA"}}]})
case("three-way join from a key-less stream: the sink takes the default key format whichever formats the joined tables have",
     [S_NONE, T_JSON, "CREATE TABLE U (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='u', key_format='DELIMITED', value_format='JSON', partitions=1);",
      "CREATE STREAM J AS SELECT S.ID, V, W, Y FROM S JOIN T ON S.ID = T.ID JOIN U ON T.ID = U.ID;"],
     [("t", 1, {"W": 2}, 0), ("u", "1", {"Y": 3}, 1), ("s", None, {"ID": 1, "V": 4}, 5)], [("J", 1, {"V": 4, "W": 2, "Y": 3}, 5)],
     {"sources": [{"name": "J", "type": "stream", "keyFormat": {"format": "KAFKA"}}]})
# value format properties: from the FROM source as written
case("stream-table: the sink inherits the FROM stream's AVRO VALUE_SCHEMA_FULL_NAME",
     ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', format='AVRO', VALUE_SCHEMA_FULL_NAME='my.ns.Left', partitions=1);",
      "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', format='AVRO', VALUE_SCHEMA_FULL_NAME='my.ns.Right', partitions=1);",
      "CREATE STREAM J AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;"],
     [("t", 1, {"W": 2}, 0), ("s", 1, {"V": 4}, 5)], [("J", 1, {"V": 4, "W": 2}, 5)],
     {"sources": [{"name": "J", "type": "stream", "valueFormat": {"format": "AVRO", "properties": {"fullSchemaName": "my.ns.Left"}}}]})
case("table-table: the sink inherits the FROM table's PROTOBUF VALUE_SCHEMA_FULL_NAME",
     ["CREATE TABLE A (ID INT PRIMARY KEY, V INT) WITH (kafka_topic='a', key_format='KAFKA', value_format='PROTOBUF', VALUE_SCHEMA_FULL_NAME='my.ns.Left', partitions=1);",
      "CREATE TABLE B (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='b', key_format='KAFKA', value_format='PROTOBUF', partitions=1);",
      "CREATE TABLE J AS SELECT A.ID, V, W FROM A JOIN B ON A.ID = B.ID;"],
     [("b", 1, {"W": 2}, 0), ("a", 1, {"V": 4}, 5)], [("J", 1, {"V": 4, "W": 2}, 5)],
     {"sources": [{"name": "J", "type": "table", "valueFormat": {"format": "PROTOBUF", "properties": {"fullSchemaName": "my.ns.Left"}}}]})
case("a join tree rooted at the last source: the sink inherits the FROM source's VALUE_SCHEMA_FULL_NAME, not the root's",
     ["CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='a', format='AVRO', VALUE_SCHEMA_FULL_NAME='my.ns.A', partitions=1);",
      "CREATE TABLE B (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='b', format='AVRO', partitions=1);",
      "CREATE STREAM C (ID INT KEY, X INT) WITH (kafka_topic='c', format='AVRO', VALUE_SCHEMA_FULL_NAME='my.ns.C', partitions=1);",
      "CREATE STREAM J AS SELECT C.ID, V, W, X FROM A JOIN B ON B.ID = C.ID JOIN C WITHIN 1 MINUTE ON A.ID = C.ID;"],
     [("b", 1, {"W": 2}, 0), ("c", 1, {"X": 3}, 1), ("a", 1, {"V": 4}, 2)], [("J", 1, {"V": 4, "W": 2, "X": 3}, 2)],
     {"sources": [{"name": "J", "type": "stream", "valueFormat": {"format": "AVRO", "properties": {"fullSchemaName": "my.ns.A"}}}]})
case("a join sink in another value format inherits no schema name",
     ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', format='AVRO', VALUE_SCHEMA_FULL_NAME='my.ns.Left', partitions=1);",
      "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', format='AVRO', partitions=1);",
      "CREATE STREAM J WITH (VALUE_FORMAT='PROTOBUF') AS SELECT S.ID, V, W FROM S JOIN T ON S.ID = T.ID;"],
     [("t", 1, {"W": 2}, 0), ("s", 1, {"V": 4}, 5)], [("J", 1, {"V": 4, "W": 2}, 5)],
     {"sources": [{"name": "J", "type": "stream", "valueFormat": {"format": "PROTOBUF", "properties": {"fullSchemaName": "ConnectDefault1"}}}]})
doc = {"comments": ["The formats a join's CREATE ... AS SELECT sink takes when its WITH clause names none are the FROM source's as written (ksqlDB's Analyzer.analyzeNonStdOutSink reads analysis.getFrom()'s topic - from memory), with their inheritable properties (AVRO's and PROTOBUF's VALUE_SCHEMA_FULL_NAME). A key-less FROM stream (KEY_FORMAT 'NONE') leaves the sink ksql.persistence.default.format.key (LogicalPlanner's sink key format: an inherited NONE with key columns), whatever key format the join's internal topics take (JoinNode's key format: the side that needs no repartition, else the first non-NONE source's, else the default) - and GROUP BY after the join groups in the join's key format. A join's result always has a key column, so a NONE the statement names is refused as for any keyed sink."],
       "tests": tests}
(pathlib.Path(__file__).parent / "keyless-sources.json").write_text(json.dumps(doc, indent=1) + "\n")
