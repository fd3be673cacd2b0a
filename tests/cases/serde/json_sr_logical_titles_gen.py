"""Generates ``json-sr-logical-titles.json``: which SQL type a JSON_SR schema's Connect logical title makes,
by the Connect type under it. Confluent's JsonSchemaData builds a number's Connect type from ``connect.type``
(none: an ``integer`` is int64, a ``number`` float64; a ``string`` is STRING unless ``connect.type: bytes``)
and names it by its ``title``; ksqlDB's Connect-to-SQL conversion then reads DATE and TIME only from an
INT32, TIMESTAMP only from an INT64, DECIMAL only from BYTES - any other pairing is the plain type. Over
value fields and a key schema, read and written back through a query. From memory of Confluent's
JsonSchemaData.toConnectSchema and ksqlDB's ConnectToSqlTypeConverter. Written for ksqlpy.

Run ``python tests/cases/serde/json_sr_logical_titles_gen.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CONNECT = "org.apache.kafka.connect.data."
DEC = {"connect.parameters": {"scale": "2", "connect.decimal.precision": "5"}}

# (description, schema, SQL type, value)
VARIANTS: list[tuple[str, dict[str, Any], str, Any]] = [
    ("integer titled Date without connect.type (int64)", {"type": "integer", "title": CONNECT + "Date"},
     "BIGINT", 19000),
    ("integer titled Date with connect.type int64", {"type": "integer", "title": CONNECT + "Date",
                                                     "connect.type": "int64"}, "BIGINT", 19000),
    ("integer titled Date with connect.type int32", {"type": "integer", "title": CONNECT + "Date",
                                                     "connect.type": "int32"}, "DATE", 19000),
    ("integer titled Date with connect.type int16", {"type": "integer", "title": CONNECT + "Date",
                                                     "connect.type": "int16"}, "INTEGER", 19000),
    ("integer titled Time without connect.type (int64)", {"type": "integer", "title": CONNECT + "Time"},
     "BIGINT", 3600000),
    ("integer titled Time with connect.type int32", {"type": "integer", "title": CONNECT + "Time",
                                                     "connect.type": "int32"}, "TIME", 3600000),
    ("integer titled Timestamp without connect.type (int64)", {"type": "integer", "title": CONNECT + "Timestamp"},
     "TIMESTAMP", 1600000000123),
    ("integer titled Timestamp with connect.type int32", {"type": "integer", "title": CONNECT + "Timestamp",
                                                          "connect.type": "int32"}, "INTEGER", 1600000),
    ("number titled Date without connect.type (float64)", {"type": "number", "title": CONNECT + "Date"},
     "DOUBLE", 1.5),
    ("number titled Decimal without connect.type (float64)", {"type": "number", "title": CONNECT + "Decimal", **DEC},
     "DOUBLE", 1.5),
    ("number titled Decimal with connect.type bytes", {"type": "number", "title": CONNECT + "Decimal",
                                                       "connect.type": "bytes", **DEC}, "DECIMAL(5, 2)", 12.34),
    ("string titled Date", {"type": "string", "title": CONNECT + "Date"}, "STRING", "2022-01-01"),
    ("string titled Timestamp", {"type": "string", "title": CONNECT + "Timestamp"}, "STRING", "x"),
]


def _post_type(sql: str) -> str:
    return sql.replace(", ", ",")


def _value_case(desc: str, schema: dict[str, Any], sql: str, value: Any) -> dict[str, Any]:
    fields = {"id": {"type": "integer", "connect.type": "int32", "connect.index": 0},
              "x": {**schema, "connect.index": 1}}
    return {
        "name": f"JSON_SR value field: {desc} is {sql}",
        "statements": ["CREATE STREAM S (K STRING KEY) WITH (kafka_topic='s', value_format='JSON_SR');",
                       "CREATE STREAM O AS SELECT * FROM S;"],
        "topics": [{"name": "s", "valueFormat": "JSON_SR", "partitions": 1,
                    "valueSchema": {"type": "object", "properties": fields}}],
        "inputs": [{"topic": "s", "key": "k", "value": {"id": 1, "x": value}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": "k", "value": {"ID": 1, "X": value}, "timestamp": 0}],
        "post": {"sources": [{"name": "S", "type": "stream",
                              "schema": f"K STRING KEY, ID INTEGER, X {_post_type(sql)}"}]},
    }


def _key_case(desc: str, schema: dict[str, Any], sql: str, value: Any) -> dict[str, Any]:
    return {
        "name": f"JSON_SR key schema: {desc} is one ROWKEY {sql} column",
        "statements": ["CREATE STREAM S (V INT) WITH (kafka_topic='s', key_format='JSON_SR', value_format='JSON');",
                       "CREATE STREAM O AS SELECT * FROM S;"],
        "topics": [{"name": "s", "keySchema": schema, "keyFormat": "JSON_SR", "valueFormat": "JSON",
                    "partitions": 1}],
        "inputs": [{"topic": "s", "key": value, "value": {"V": 1}, "timestamp": 0}],
        "outputs": [{"topic": "O", "key": value, "value": {"V": 1}, "timestamp": 0}],
        "post": {"sources": [{"name": "S", "type": "stream", "schema": f"ROWKEY {_post_type(sql)} KEY, V INTEGER"}]},
    }


def cases() -> list[dict[str, Any]]:
    return [_value_case(*v) for v in VARIANTS] + [_key_case(*v) for v in VARIANTS]


if __name__ == "__main__":
    (HERE / "json-sr-logical-titles.json").write_text(json.dumps({
        "comments": ["A JSON_SR Connect logical title makes its type only over the Connect type it is defined on. "
                     "Generated by json_sr_logical_titles_gen.py, written for ksqlpy."],
        "tests": cases()}, indent=1) + "\n")
