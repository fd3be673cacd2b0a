"""Generates ``insert-into-formats.json``: INSERT INTO ... SELECT writes in its target's formats, whatever the
FROM stream's - every key format (KAFKA, JSON, DELIMITED, AVRO, JSON_SR, PROTOBUF) by every value format that
holds several columns (JSON, DELIMITED, AVRO, JSON_SR, PROTOBUF, PROTOBUF_NOSR), from a KAFKA/JSON stream and
into a KAFKA/JSON stream from each; a stream without key columns (KEY_FORMAT NONE) into another; a single value
column unwrapped (WRAP_SINGLE_VALUE=false; a PROTOBUF_NOSR STRUCT as the root message, any other type still
its one-field message), an unwrapped single value into each wrapping format, and into KAFKA. ksqlDB's INSERT INTO plans into the existing sink's
KsqlTopic (Into.existingSink: its key and value formats and serde features), and only the schemas must be
compatible (EngineExecutor.validateExistingSink), from memory. Written for ksqlpy.

Run ``python tests/cases/serde/insert_into_formats_gen.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
KEY_FORMATS = ("KAFKA", "JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF")
VALUE_FORMATS = ("JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR")


def _stream(name: str, topic: str, key_format: str, value_format: str) -> str:
    return (f"CREATE STREAM {name} (K INT KEY, A INT, B STRING) WITH (kafka_topic='{topic}', "
            f"key_format='{key_format}', value_format='{value_format}');")


def _value(value_format: str, a: int, b: str) -> Any:
    return f"{a},{b}" if value_format == "DELIMITED" else {"A": a, "B": b}


def _key(key_format: str, k: int) -> Any:
    """The key as the harness shows it: DELIMITED text, a PROTOBUF key still its one-field message."""
    return str(k) if key_format == "DELIMITED" else {"K": k} if key_format == "PROTOBUF" else k


def _case(src: tuple[str, str], dst: tuple[str, str]) -> dict[str, Any]:
    return {
        "name": f"from {src[0]} key, {src[1]} value into {dst[0]} key, {dst[1]} value",
        "statements": [_stream("SRC", "src", *src), _stream("DST", "dst", *dst),
                       "INSERT INTO DST SELECT * FROM SRC WHERE A > 0;"],
        "inputs": [{"topic": "src", "key": 1, "value": _value(src[1], 10, "x"), "timestamp": 5},
                   {"topic": "src", "key": 2, "value": _value(src[1], -1, "y"), "timestamp": 6},
                   {"topic": "src", "key": 3, "value": _value(src[1], 30, "z"), "timestamp": 7}],
        "outputs": [{"topic": "dst", "key": _key(dst[0], 1), "value": _value(dst[1], 10, "x"), "timestamp": 5},
                    {"topic": "dst", "key": _key(dst[0], 3), "value": _value(dst[1], 30, "z"), "timestamp": 7}],
    }


def cases() -> list[dict[str, Any]]:
    out = [_case(("KAFKA", "JSON"), (k, v)) for k in KEY_FORMATS for v in VALUE_FORMATS]
    out += [_case((k, v), ("KAFKA", "JSON")) for k in KEY_FORMATS for v in VALUE_FORMATS
            if (k, v) != ("KAFKA", "JSON")]
    out.append({
        "name": "from a stream without key columns into another, both KEY_FORMAT NONE",
        "statements": ["CREATE STREAM SRC (A INT, B STRING) WITH (kafka_topic='src', value_format='AVRO');",
                       "CREATE STREAM DST (A INT, B STRING) WITH (kafka_topic='dst', value_format='JSON');",
                       "INSERT INTO DST SELECT * FROM SRC;"],
        "inputs": [{"topic": "src", "key": None, "value": {"A": 1, "B": "x"}}],
        "outputs": [{"topic": "dst", "key": None, "value": {"A": 1, "B": "x"}}],
    })
    for fmt in ("JSON", "AVRO", "JSON_SR"):
        out.append({
            "name": f"a single value column into a {fmt} stream with WRAP_SINGLE_VALUE=false is written bare",
            "statements": ["CREATE STREAM SRC (K INT KEY, A INT) WITH (kafka_topic='src', format='JSON');",
                           f"CREATE STREAM DST (K INT KEY, A INT) WITH (kafka_topic='dst', key_format='KAFKA', "
                           f"value_format='{fmt}', wrap_single_value=false);",
                           "INSERT INTO DST SELECT * FROM SRC;"],
            "inputs": [{"topic": "src", "key": 1, "value": {"A": 7}}],
            "outputs": [{"topic": "dst", "key": 1, "value": 7}],
        })
    out.append({  # ProtobufNoSRConverter keeps a non-STRUCT root a one-field message: the bytes of the wrapped form
        "name": "a single INT value column into a PROTOBUF_NOSR stream with WRAP_SINGLE_VALUE=false is still a "
                "one-field message",
        "statements": ["CREATE STREAM SRC (K INT KEY, A INT) WITH (kafka_topic='src', format='JSON');",
                       "CREATE STREAM DST (K INT KEY, A INT) WITH (kafka_topic='dst', key_format='KAFKA', "
                       "value_format='PROTOBUF_NOSR', wrap_single_value=false);",
                       "INSERT INTO DST SELECT * FROM SRC;",
                       # read back after the INSERT: the harness feeds queries in the order they started
                       "CREATE STREAM BACK (K INT KEY, B INT) WITH (kafka_topic='dst', key_format='KAFKA', "
                       "value_format='PROTOBUF_NOSR');",
                       "CREATE STREAM OUT WITH (kafka_topic='out', value_format='JSON') AS SELECT * FROM BACK;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"A": 7}}],
        "outputs": [{"topic": "dst", "key": 1, "value": {"A": 7}},
                    {"topic": "out", "key": 1, "value": {"B": 7}}],
    })
    out.append({
        "name": "a single STRUCT value column into a PROTOBUF_NOSR stream with WRAP_SINGLE_VALUE=false is the root "
                "message",
        "statements": ["CREATE STREAM SRC (K INT KEY, A STRUCT<X INT, Y STRING>) WITH (kafka_topic='src', "
                       "format='JSON');",
                       "CREATE STREAM DST (K INT KEY, A STRUCT<X INT, Y STRING>) WITH (kafka_topic='dst', "
                       "key_format='KAFKA', value_format='PROTOBUF_NOSR', wrap_single_value=false);",
                       "INSERT INTO DST SELECT * FROM SRC;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"A": {"X": 7, "Y": "y"}}}],
        "outputs": [{"topic": "dst", "key": 1, "value": {"X": 7, "Y": "y"}}],
    })
    for fmt in ("JSON", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR"):
        out.append({
            "name": f"a single value column from an unwrapped JSON stream into a wrapped {fmt} one is written wrapped",
            "statements": ["CREATE STREAM SRC (K INT KEY, A INT) WITH (kafka_topic='src', format='JSON', "
                           "wrap_single_value=false);",
                           f"CREATE STREAM DST (K INT KEY, A INT) WITH (kafka_topic='dst', key_format='KAFKA', "
                           f"value_format='{fmt}');",
                           "INSERT INTO DST SELECT * FROM SRC;"],
            "inputs": [{"topic": "src", "key": 1, "value": 7}],
            "outputs": [{"topic": "dst", "key": 1, "value": {"A": 7}}],
        })
    out.append({
        "name": "a single value column into a KAFKA value stream from a wrapped JSON one",
        "statements": ["CREATE STREAM SRC (K INT KEY, A BIGINT) WITH (kafka_topic='src', format='JSON');",
                       "CREATE STREAM DST (K INT KEY, A BIGINT) WITH (kafka_topic='dst', format='KAFKA');",
                       "INSERT INTO DST SELECT * FROM SRC;"],
        "inputs": [{"topic": "src", "key": 1, "value": {"A": 9}}],
        "outputs": [{"topic": "dst", "key": 1, "value": 9}],
    })
    return out


if __name__ == "__main__":
    (HERE / "insert-into-formats.json").write_text(json.dumps({
        "comments": ["INSERT INTO ... SELECT writes in its target's key and value formats, whatever the FROM "
                     "stream's. Generated by insert_into_formats_gen.py, written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
