"""Generates ``source-serde-options.json``: REST cases whose inputs and outputs hold only when the harness
writes and reads a topic with everything its source's statement set - not only the formats DESCRIBE names.

ksqlDB's REST harness takes a topic's serdes from the source's formats in the metastore (TopicInfoCache,
from memory): format properties (PROTOBUF's ``nullableRepresentation``) and features (WRAP_SINGLE_VALUE).
Over each, an input produced by the harness is read by a push query, and a C*AS sink's records are read
back and compared:

- PROTOBUF_NOSR with ``*_PROTOBUF_NULLABLE_REPRESENTATION`` OPTIONAL / WRAPPER, key and value: a 0 or ""
  is written present (it reads 0 or ""), a NULL absent (it reads NULL); without one, proto3's default;
- a single STRUCT value unwrapped (WRAP_SINGLE_VALUE=false, or ``ksql.persistence.wrap.single.values``
  false in the request) in PROTOBUF_NOSR, where the STRUCT is the root message itself, and in JSON, AVRO,
  JSON_SR;
- a single primitive value unwrapped in JSON, AVRO, JSON_SR, KAFKA and DELIMITED: the bare value;
- a PROTOBUF key or value schema of two messages, the source naming the second (``*_SCHEMA_FULL_NAME``).

Run: python tests/cases/rest/gen_source_serde_options.py (writes the JSON beside it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STATUS = {"admin": {"@type": "currentStatus"}}


def _push(schema: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {"query": [{"header": {"schema": schema}}, *({"row": {"columns": r}} for r in rows),
                      {"finalMessage": "Limit Reached"}]}


def nullable_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for rep in ("OPTIONAL", "WRAPPER", None):
        with_rep = f", VALUE_PROTOBUF_NULLABLE_REPRESENTATION='{rep}'" if rep else ""
        zero = [0, "", False]
        unset = [None, None, None] if rep else zero  # proto3 without a representation: NULL is the default
        out.append({
            "name": f"PROTOBUF_NOSR value, nullable representation {rep or 'none'}: zero values and NULLs "
                    "written by the harness, read by a push query and by a sink",
            "statements": [
                "CREATE STREAM S (ID INT KEY, V INT, W STRING, B BOOLEAN) WITH (kafka_topic='input', "
                f"key_format='KAFKA', value_format='PROTOBUF_NOSR'{with_rep});",
                f"CREATE STREAM O WITH (kafka_topic='output'{with_rep}) AS SELECT * FROM S;",
                "SELECT * FROM S EMIT CHANGES LIMIT 3;",
            ],
            "inputs": [
                {"topic": "input", "key": 1, "value": {"V": 0, "W": "", "B": False}, "timestamp": 0},
                {"topic": "input", "key": 2, "value": {"V": None, "W": None, "B": None}, "timestamp": 1},
                {"topic": "input", "key": 3, "value": {"V": 7, "W": "x", "B": True}, "timestamp": 2},
            ],
            "outputs": [
                {"topic": "output", "key": 1, "value": dict(zip("VWB", zero, strict=True)), "timestamp": 0},
                {"topic": "output", "key": 2, "value": dict(zip("VWB", unset, strict=True)), "timestamp": 1},
                {"topic": "output", "key": 3, "value": {"V": 7, "W": "x", "B": True}, "timestamp": 2},
            ],
            "responses": [STATUS, STATUS, _push("`ID` INTEGER, `V` INTEGER, `W` STRING, `B` BOOLEAN",
                                                [[1, *zero], [2, *unset], [3, 7, "x", True]])],
        })
    for rep in ("OPTIONAL", "WRAPPER"):
        out.append({
            "name": f"PROTOBUF_NOSR key, nullable representation {rep}: a zero key is written present",
            "statements": [
                "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='input', key_format='PROTOBUF_NOSR', "
                f"value_format='JSON', KEY_PROTOBUF_NULLABLE_REPRESENTATION='{rep}');",
                f"CREATE STREAM O WITH (kafka_topic='output', KEY_PROTOBUF_NULLABLE_REPRESENTATION='{rep}') "
                "AS SELECT * FROM S;",
                "SELECT * FROM S EMIT CHANGES LIMIT 2;",
            ],
            "inputs": [
                {"topic": "input", "key": {"ID": 0}, "value": {"V": "zero"}, "timestamp": 0},
                {"topic": "input", "key": {"ID": 5}, "value": {"V": "five"}, "timestamp": 1},
            ],
            "outputs": [
                {"topic": "output", "key": {"ID": 0}, "value": {"V": "zero"}, "timestamp": 0},
                {"topic": "output", "key": {"ID": 5}, "value": {"V": "five"}, "timestamp": 1},
            ],
            "responses": [STATUS, STATUS, _push("`ID` INTEGER, `V` STRING", [[0, "zero"], [5, "five"]])],
        })
    return out


def unwrapped_cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    struct = {"A": 3, "B": "x"}
    for fmt in ("PROTOBUF_NOSR", "JSON", "AVRO", "JSON_SR"):
        for how in ("WITH", "property"):
            wrap = ", WRAP_SINGLE_VALUE=false" if how == "WITH" else ""
            props = {} if how == "WITH" else {"ksql.persistence.wrap.single.values": "false"}
            case: dict[str, Any] = {
                "name": f"{fmt} value: a single STRUCT unwrapped by "
                        f"{'WRAP_SINGLE_VALUE=false' if how == 'WITH' else 'ksql.persistence.wrap.single.values'}"
                        " is written and read as the STRUCT itself",
                "statements": [
                    "CREATE STREAM S (ID INT KEY, V STRUCT<A INT, B STRING>) WITH (kafka_topic='input', "
                    f"key_format='KAFKA', value_format='{fmt}'{wrap});",
                    f"CREATE STREAM O WITH (kafka_topic='output'{wrap}) AS SELECT * FROM S;",
                    "SELECT * FROM S EMIT CHANGES LIMIT 1;",
                ],
                "inputs": [{"topic": "input", "key": 1, "value": struct, "timestamp": 0}],
                "outputs": [{"topic": "output", "key": 1, "value": struct, "timestamp": 0}],
                "responses": [STATUS, STATUS, _push("`ID` INTEGER, `V` STRUCT<`A` INTEGER, `B` STRING>",
                                                    [[1, struct]])],
            }
            if props:
                case["properties"] = props
            out.append(case)
    out.append({
        "name": "PROTOBUF_NOSR value: the sink of an unwrapped STRUCT wraps it again unless its WITH says not",
        "statements": [
            "CREATE STREAM S (ID INT KEY, V STRUCT<A INT, B STRING>) WITH (kafka_topic='input', "
            "key_format='KAFKA', value_format='PROTOBUF_NOSR', WRAP_SINGLE_VALUE=false);",
            "CREATE STREAM O WITH (kafka_topic='output') AS SELECT * FROM S;",
            "SELECT * FROM O EMIT CHANGES LIMIT 1;",
        ],
        "inputs": [{"topic": "input", "key": 1, "value": struct, "timestamp": 0}],
        "outputs": [{"topic": "output", "key": 1, "value": {"V": struct}, "timestamp": 0}],
        "responses": [STATUS, STATUS, _push("`ID` INTEGER, `V` STRUCT<`A` INTEGER, `B` STRING>", [[1, struct]])],
    })
    for fmt in ("JSON", "AVRO", "JSON_SR", "KAFKA", "DELIMITED"):
        wrap = ", WRAP_SINGLE_VALUE=false" if fmt not in ("KAFKA", "DELIMITED") else ""
        out.append({
            "name": f"{fmt} value: a single STRING unwrapped is the bare value",
            "statements": [
                "CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='input', "
                f"key_format='KAFKA', value_format='{fmt}'{wrap});",
                f"CREATE STREAM O WITH (kafka_topic='output'{wrap}) AS SELECT * FROM S;",
                "SELECT * FROM S EMIT CHANGES LIMIT 1;",
            ],
            "inputs": [{"topic": "input", "key": 1, "value": "a", "timestamp": 0}],
            "outputs": [{"topic": "output", "key": 1, "value": "a", "timestamp": 0}],
            "responses": [STATUS, STATUS, _push("`ID` INTEGER, `V` STRING", [[1, "a"]])],
        })
    return out


PROTO = ('syntax = "proto3";\n\nmessage First {\n  string A = 1;\n}\n\n'
         'message Second {\n  int32 N = 1;\n  string S = 2;\n}\n')


def full_name_cases() -> list[dict[str, Any]]:
    """A PROTOBUF schema of two messages: the source reads the one its ``*_SCHEMA_FULL_NAME`` names, and the
    harness writes that one too (the first would put a STRING where N is)."""
    out: list[dict[str, Any]] = []
    for side in ("VALUE", "KEY"):
        if side == "VALUE":
            create = ("CREATE STREAM S (ID INT KEY) WITH (kafka_topic='input', key_format='KAFKA', "
                      "value_format='PROTOBUF', VALUE_SCHEMA_FULL_NAME='Second');")
            topic = {"name": "input", "valueFormat": "PROTOBUF", "valueSchema": PROTO}
            record = {"topic": "input", "key": 1, "value": {"N": 5, "S": "five"}, "timestamp": 0}
            header, row = "`ID` INTEGER, `N` INTEGER, `S` STRING", [1, 5, "five"]
        else:
            create = ("CREATE STREAM S (V STRING) WITH (kafka_topic='input', key_format='PROTOBUF', "
                      "value_format='JSON', KEY_SCHEMA_FULL_NAME='Second');")
            topic = {"name": "input", "keyFormat": "PROTOBUF", "keySchema": PROTO}
            record = {"topic": "input", "key": {"N": 5, "S": "five"}, "value": {"V": "v"}, "timestamp": 0}
            header, row = "`N` INTEGER, `S` STRING, `V` STRING", [5, "five", "v"]
        out.append({
            "name": f"PROTOBUF {side.lower()} schema of two messages: the harness writes the one "
                    f"{side}_SCHEMA_FULL_NAME names",
            "statements": [create, "SELECT * FROM S EMIT CHANGES LIMIT 1;"],
            "topics": [topic],
            "inputs": [record],
            "responses": [STATUS, _push(header, [row])],
        })
    return out


def cases() -> list[dict[str, Any]]:
    return nullable_cases() + unwrapped_cases() + full_name_cases()


def main() -> None:
    doc = {"comments": ["Generated by gen_source_serde_options.py - do not edit by hand."], "tests": cases()}
    (Path(__file__).parent / "source-serde-options.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
