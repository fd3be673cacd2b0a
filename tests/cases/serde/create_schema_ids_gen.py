"""KEY_SCHEMA_ID / VALUE_SCHEMA_ID on CREATE STREAM / TABLE over every format (ksqlDB's
``DefaultSchemaInjector.shouldInferSchema``, run for the key, then for the value):

- the side's format is built from its WITH properties first: a format that refuses only the schema id is told
  ``<KEY|VALUE>_FORMAT should support schema inference when <KEY|VALUE>_SCHEMA_ID is provided. Current format
  is <FMT>.``; one that refuses more than the id (e.g. a full schema name too) fails with its own
  ``<FMT> does not support the following configs: [...]``;
- a schema-registry format (AVRO, JSON_SR, PROTOBUF) with the id may not list columns of that side:
  ``Table elements and <KEY|VALUE>_SCHEMA_ID cannot both exist for create statement.``;
- otherwise the side's columns come from the registered schema of that id (key: one ``ROWKEY`` column, a
  PROTOBUF key message's fields; value: the record's fields).

Writes tests/cases/serde/create-schema-ids.json: ``python tests/cases/serde/create_schema_ids_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

ERROR = "io.confluent.ksql.util.KsqlStatementException"
SR_FORMATS = ("AVRO", "JSON_SR", "PROTOBUF")
# formats without schema inference, per side (NONE holds no columns: keys only, as a key-less stream's)
NON_SR_FORMATS = {"KEY": ("KAFKA", "JSON", "DELIMITED", "PROTOBUF_NOSR", "NONE"),
                  "VALUE": ("JSON", "DELIMITED", "PROTOBUF_NOSR")}

KEY_SCHEMAS: dict[str, tuple[Any, str]] = {
    "AVRO": ({"type": "int"}, "ROWKEY INTEGER KEY"),
    "JSON_SR": ({"type": "integer", "connect.type": "int32"}, "ROWKEY INTEGER KEY"),
    "PROTOBUF": ('syntax = "proto3"; message Key { int32 ID = 1; }', "ID INTEGER KEY"),
}
VALUE_SCHEMAS: dict[str, Any] = {
    "AVRO": {"type": "record", "name": "Value", "fields": [{"name": "V", "type": ["null", "int"]},
                                                           {"name": "W", "type": ["null", "string"]}]},
    "JSON_SR": {"type": "object", "properties": {
        "V": {"connect.index": 0, "oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int32"}]},
        "W": {"connect.index": 1, "oneOf": [{"type": "null"}, {"type": "string"}]}}},
    "PROTOBUF": 'syntax = "proto3"; message Value { int32 V = 1; string W = 2; }',
}
OTHER_SIDE = {"KEY": "VALUE", "VALUE": "KEY"}


def topic(fmt: str) -> dict[str, Any]:
    return {"name": "t", "keyFormat": fmt, "keySchemaId": 41, "keySchema": KEY_SCHEMAS[fmt][0],
            "valueFormat": fmt, "valueSchemaId": 42, "valueSchema": VALUE_SCHEMAS[fmt]}


def create(kind: str, columns: str, props: str) -> str:
    cols = f" ({columns})" if columns else ""
    return f"CREATE {kind} S{cols} WITH (kafka_topic='t', partitions=1, {props});"


def refused(name: str, statement: str, message: str, topics: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    case: dict[str, Any] = {"name": name, "statements": [statement],
                            "expectedException": {"type": ERROR, "message": message}}
    if topics:
        case["topics"] = topics
    return case


def key_decl(kind: str) -> str:
    return "K INT PRIMARY KEY" if kind == "TABLE" else "K INT KEY"


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind in ("STREAM", "TABLE"):
        for side in ("KEY", "VALUE"):
            other = OTHER_SIDE[side]
            for fmt in NON_SR_FORMATS[side]:
                if kind == "TABLE" and side == "KEY" and fmt == "NONE":
                    continue  # a table needs a key
                # the other side's columns are listed, in a format without inference
                columns = "V INT" if side == "KEY" else key_decl(kind)
                props = f"{side}_FORMAT='{fmt}', {other}_FORMAT='{'JSON' if side == 'KEY' else 'KAFKA'}', " \
                        f"{side}_SCHEMA_ID=41"
                out.append(refused(
                    f"{kind} with {side}_SCHEMA_ID and {side}_FORMAT {fmt}: the format cannot infer",
                    create(kind, columns, props),
                    f"{side}_FORMAT should support schema inference when {side}_SCHEMA_ID is provided. "
                    f"Current format is {fmt}."))
                out.append(refused(
                    f"{kind} with {side}_SCHEMA_ID and {side}_SCHEMA_FULL_NAME on {fmt}: the format refuses both",
                    create(kind, columns, f"{props}, {side}_SCHEMA_FULL_NAME='a.B'"),
                    f"{fmt} does not support the following configs: [fullSchemaName, schemaId]"))
            for fmt in SR_FORMATS:
                columns = key_decl(kind) if side == "KEY" else "V INT"
                out.append(refused(
                    f"{kind} with {side}_SCHEMA_ID and {fmt} {side.lower()} columns listed",
                    create(kind, columns, f"format='{fmt}', {side}_SCHEMA_ID={41 if side == 'KEY' else 42}"),
                    f"Table elements and {side}_SCHEMA_ID cannot both exist for create statement.",
                    [topic(fmt)]))
        # the key is checked before the value, each side's two checks together
        out.append(refused(
            f"{kind}: a key format that cannot infer is reported before a value format that cannot",
            create(kind, "", "key_format='JSON', value_format='DELIMITED', KEY_SCHEMA_ID=41, VALUE_SCHEMA_ID=42"),
            "KEY_FORMAT should support schema inference when KEY_SCHEMA_ID is provided. Current format is JSON."))
        out.append(refused(
            f"{kind}: key columns beside KEY_SCHEMA_ID are reported before a value format that cannot infer",
            create(kind, key_decl(kind), "key_format='AVRO', value_format='JSON', KEY_SCHEMA_ID=41, "
                   "VALUE_SCHEMA_ID=42"),
            "Table elements and KEY_SCHEMA_ID cannot both exist for create statement.", [topic("AVRO")]))
        out.append(refused(
            f"{kind}: a value format refusing the id is reported though the key columns are listed",
            create(kind, key_decl(kind), "key_format='KAFKA', value_format='JSON', VALUE_SCHEMA_ID=42"),
            "VALUE_FORMAT should support schema inference when VALUE_SCHEMA_ID is provided. "
            "Current format is JSON."))
        for which, literal in (("KEY", "true"), ("VALUE", "false")):
            # Kafka's ConfigDef.parseType: a value that is neither an Integer nor a String, shown as Java prints it
            out.append(refused(
                f"{kind}: {which}_SCHEMA_ID={literal} is no 32-bit integer",
                create(kind, "", f"format='AVRO', {which}_SCHEMA_ID={literal}"),
                f"Failed to prepare statement: Invalid value {literal} for property {which}_SCHEMA_ID: Expected "
                "value to be a 32-bit integer, but it was a java.lang.Boolean"))
        for fmt in SR_FORMATS:
            key_col = KEY_SCHEMAS[fmt][1]
            out.append({
                "name": f"{kind} over {fmt} with both ids takes its key and value columns from the registry",
                "statements": [create(kind, "", f"format='{fmt}', KEY_SCHEMA_ID=41, VALUE_SCHEMA_ID=42")],
                "topics": [topic(fmt)],
                "post": {"sources": [{"name": "S", "type": kind.lower(),
                                      "schema": f"{key_col}, V INTEGER, W STRING"}]},
            })
    return out


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("create-schema-ids.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
