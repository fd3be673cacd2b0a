"""The key schema a windowed sink registers in each schema-registry key format (our own cases).

A windowed key is written by Kafka Streams' windowed serializers around the key format's serializer (ksqlDB's
GenericKeySerDe wraps the inner key serde in TimeWindowedSerde / SessionWindowedSerde, from memory): the inner
serializer registers the key's own schema under ``<topic>-key`` (TopicNameStrategy, isKey) and the window
bytes follow its output - so the window bounds are no part of the registered schema, and the schema is the one
an unwindowed key of the same columns registers:

* AVRO - one column: the bare type (``"int"``); several: a record named by KEY_SCHEMA_FULL_NAME, else
  ``io.confluent.ksql.avro_schemas.<Sink>Key`` (ksqlDB's CreateSourceProperties.getKeyFormatProperties ->
  AvroFormat.getKeySchemaName), fields optional with default null.
* PROTOBUF - a message of the key's fields whatever their count (keys are never unwrapped), ``ConnectDefault1``
  unless KEY_SCHEMA_FULL_NAME names it (its package and message).
* JSON_SR - one column: the optional bare type; several: an object of optional properties.

Every window type (TUMBLING, HOPPING, SESSION), one and two key columns, with and without KEY_SCHEMA_FULL_NAME;
a windowed table declared with columns registers the same schema at its CREATE; a CREATE over the sink's topic infers the key from that subject and reads the windows back.

Writes tests/cases/serde/windowed-key-schemas.json:
``python tests/cases/serde/windowed_key_schemas_gen.py tests/cases/serde/windowed-key-schemas.json``
"""

from __future__ import annotations

import json
import sys
from typing import Any

FORMATS = ("AVRO", "PROTOBUF", "JSON_SR")
WINDOWS = {"TUMBLING": "TUMBLING (SIZE 10 SECONDS)",
           "HOPPING": "HOPPING (SIZE 10 SECONDS, ADVANCE BY 10 SECONDS)",
           "SESSION": "SESSION (10 SECONDS)"}
SOURCE = "CREATE STREAM S (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s', value_format='JSON');"
FULL_NAME = "com.example.WinKey"
AVRO_NS = "io.confluent.ksql.avro_schemas"


def avro_key(multi: bool, full_name: str | None) -> Any:
    if not multi:
        return "int"
    name = full_name or f"{AVRO_NS}.WKey"
    space, _, short = name.rpartition(".")
    return {"type": "record", "name": short, "namespace": space, "connect.name": name,
            "fields": [{"name": "A", "type": ["null", "int"], "default": None},
                       {"name": "B", "type": ["null", "string"], "default": None}]}


def protobuf_key(multi: bool, full_name: str | None) -> str:
    package, message = "", "ConnectDefault1"
    if full_name:
        space, _, message = full_name.rpartition(".")
        package = f"package {space};\n\n"
    fields = "  int32 A = 1;\n" + ("  string B = 2;\n" if multi else "")
    return f'syntax = "proto3";\n{package}\nmessage {message} {{\n{fields}}}\n'


def json_sr_key(multi: bool) -> Any:
    a = {"oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]}
    if not multi:
        return a
    return {"type": "object", "properties": {
        "A": {**a, "connect.index": 0},
        "B": {"oneOf": [{"type": "null"}, {"type": "string"}], "connect.index": 1}}}


def key_schema(fmt: str, multi: bool, full_name: str | None) -> Any:
    if fmt == "AVRO":
        return avro_key(multi, full_name)
    if fmt == "PROTOBUF":
        return protobuf_key(multi, full_name)
    return json_sr_key(multi)


def record_key(fmt: str, multi: bool) -> Any:
    if multi:
        return {"A": 2, "B": "x"}
    return {"A": 2} if fmt == "PROTOBUF" else 2


def outputs(kind: str, fmt: str, multi: bool, topic: str = "W") -> list[dict[str, Any]]:
    """Two records 3 s apart: one time window holds both; one session grows from [1000,1000] to [1000,4000]
    (the merged session's old row deleted)."""
    key = record_key(fmt, multi)
    if kind == "SESSION":
        w1 = {"start": 1000, "end": 1000, "type": "session"}
        w2 = {"start": 1000, "end": 4000, "type": "session"}
        return [{"topic": topic, "key": key, "value": {"C": 1}, "timestamp": 1000, "window": w1},
                {"topic": topic, "key": key, "value": None, "timestamp": 1000, "window": w1},
                {"topic": topic, "key": key, "value": {"C": 2}, "timestamp": 4000, "window": w2}]
    w = {"start": 0, "end": 10000, "type": "time"}
    return [{"topic": topic, "key": key, "value": {"C": 1}, "timestamp": 1000, "window": w},
            {"topic": topic, "key": key, "value": {"C": 2}, "timestamp": 4000, "window": w}]


INPUTS = [{"topic": "s", "key": 1, "value": {"A": 2, "B": "x"}, "timestamp": 1000},
          {"topic": "s", "key": 1, "value": {"A": 2, "B": "x"}, "timestamp": 4000}]


def sink_case(fmt: str, kind: str, multi: bool, full_name: str | None) -> dict[str, Any]:
    keys = "A, B" if multi else "A"
    named = f", KEY_SCHEMA_FULL_NAME='{full_name}'" if full_name else ""
    key_format: dict[str, Any] = {"format": fmt, "windowType": kind}
    if kind != "SESSION":
        key_format["windowSize"] = 10000
    topic_format = dict(key_format)
    if full_name or (fmt == "AVRO"):
        topic_format["properties"] = {"fullSchemaName": full_name or f"{AVRO_NS}.WKey"}
    cols = "`A` INTEGER KEY, `B` STRING KEY, `C` BIGINT" if multi else "`A` INTEGER KEY, `C` BIGINT"
    name = (f"{kind} sink keyed in {fmt} by {'two columns' if multi else 'one column'}"
            f"{' with KEY_SCHEMA_FULL_NAME' if full_name else ''} registers the key's own schema")
    return {"name": name,
            "statements": [SOURCE,
                           f"CREATE TABLE W WITH (KEY_FORMAT='{fmt}'{named}) AS SELECT {keys}, COUNT(*) AS C "
                           f"FROM S WINDOW {WINDOWS[kind]} GROUP BY {keys};"],
            "inputs": INPUTS,
            "outputs": outputs(kind, fmt, multi),
            "post": {"sources": [{"name": "W", "type": "table", "schema": cols, "keyFormat": key_format}],
                     "topics": {"topics": [{"name": "W", "keyFormat": topic_format, "valueFormat": {"format": "JSON"},
                                            "keySchema": key_schema(fmt, multi, full_name)}]}}}


def inferred_case(fmt: str, kind: str) -> dict[str, Any]:
    """A stream declared over a windowed sink's topic, its value columns given and its key inferred from
    ``W-key`` (ksqlDB's DefaultSchemaInjector infers the side with no columns): one key column, ROWKEY for the
    formats that unwrap a single key, PROTOBUF's message field A; a copy of it keeps the window."""
    size = "" if kind == "SESSION" else ", WINDOW_SIZE='10 SECONDS'"
    key_col = "`A` INTEGER KEY" if fmt == "PROTOBUF" else "`ROWKEY` INTEGER KEY"
    out = [r for r in outputs(kind, fmt, False, "COPY") if r["value"] and r["value"]["C"] > 1]
    return {"name": f"{kind} sink keyed in {fmt}: a stream over its topic infers the key and reads the windows",
            "statements": [SOURCE,
                           f"CREATE TABLE W WITH (KEY_FORMAT='{fmt}') AS SELECT A, COUNT(*) AS C "
                           f"FROM S WINDOW {WINDOWS[kind]} GROUP BY A;",
                           f"CREATE STREAM R (C BIGINT) WITH (kafka_topic='W', key_format='{fmt}', value_format='JSON', "
                           f"WINDOW_TYPE='{kind}'{size});",
                           "CREATE STREAM COPY AS SELECT * FROM R WHERE C > 1;"],
            "inputs": INPUTS,
            "outputs": outputs(kind, fmt, False) + out,
            "post": {"sources": [{"name": "R", "type": "stream", "schema": f"{key_col}, `C` BIGINT"}]}}


def create_case(fmt: str, kind: str, multi: bool) -> dict[str, Any]:
    """A windowed table declared with columns registers its key schema at the CREATE (ksqlDB's
    SchemaRegisterInjector, for a subject that does not exist yet): the same key-only schema."""
    size = "" if kind == "SESSION" else ", WINDOW_SIZE='10 SECONDS'"
    keys = "A INT PRIMARY KEY, B STRING PRIMARY KEY" if multi else "A INT PRIMARY KEY"
    key_format: dict[str, Any] = {"format": fmt, "windowType": kind}
    if kind != "SESSION":
        key_format["windowSize"] = 10000
    if fmt == "AVRO":
        key_format["properties"] = {"fullSchemaName": f"{AVRO_NS}.WKey"}
    return {"name": f"{kind} table declared keyed in {fmt} by {'two columns' if multi else 'one column'} "
                    "registers the key's own schema at the CREATE",
            "statements": [f"CREATE TABLE W ({keys}, C BIGINT) WITH (kafka_topic='w', key_format='{fmt}', "
                           f"value_format='JSON', partitions=1, WINDOW_TYPE='{kind}'{size});"],
            "post": {"topics": {"topics": [{"name": "w", "keyFormat": key_format, "valueFormat": {"format": "JSON"},
                                            "keySchema": key_schema(fmt, multi, None)}]}}}


tests: list[dict[str, Any]] = []
for fmt in FORMATS:
    for kind in WINDOWS:
        for multi in (False, True):
            tests.append(sink_case(fmt, kind, multi, None))
    for multi in (False, True):
        tests.append(sink_case(fmt, "HOPPING", multi, FULL_NAME))
    for kind in WINDOWS:
        tests.append(inferred_case(fmt, kind))
    for i, kind in enumerate(WINDOWS):
        tests.append(create_case(fmt, kind, i % 2 == 1))

with open(sys.argv[1], "w") as fh:
    json.dump({"comments": ["Generated by windowed_key_schemas_gen.py - edit that, not this."], "tests": tests}, fh,
              indent=1)
    fh.write("\n")
