"""Generates ``query-types.json``: every SQL type through every query shape of ``/query`` - a push query over a
stream, a pull query over a stream, a table scan and a key lookup over a materialized table - with the header's
schema text and the row values as ksqlDB's StreamedRow JSON writes them (reference: the REST API's JSON
conventions), and, for the types whose protobuf text form is plain, the same pull queries in the protobuf
media type (``testPullWithProtoFormat``: the header's ``protoSchema`` as Connect's ProtobufData prints it,
each row as protobuf text).

The rules the expectations come from (ksqlDB's, written in our words):

- schema text: `` `NAME` TYPE `` joined by ``, ``; INT is ``INTEGER``, ``DECIMAL(p, s)``, ``ARRAY<T>``,
  ``MAP<K, V>``, ``STRUCT<`F` T, ...>``; a pull query over a table marks its key columns `` KEY``, a push
  query and a stream's pull query do not;
- values: DECIMAL as a plain number with the column's scale, BYTES base64, DATE ``yyyy-MM-dd``, TIME as ISO
  local time (``HH:mm``, ``HH:mm:ss`` or with milliseconds), TIMESTAMP ``yyyy-MM-dd'T'HH:mm:ss.SSS`` in UTC,
  ARRAY/MAP/STRUCT as JSON arrays/objects, NULL as ``null``;
- endings: a push query with LIMIT ends ``Limit Reached``, a stream's pull query ``Query Completed``, a
  table's pull query with its last row.

Run ``python tests/cases/rest/gen_query_types.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

# the declared type, the header's text of it, a JSON input value, the value the response carries (a str
# starting with DEC: is a decimal written with its scale), the protobuf field type (None: not in the
# protobuf cases) and the protobuf text of the value
TYPES: list[tuple[str, str, Any, Any, str | None, str | None]] = [
    ("BOOLEAN", "BOOLEAN", True, True, "bool", "true"),
    ("INT", "INTEGER", -7, -7, "int32", "-7"),
    ("BIGINT", "BIGINT", 9000000000, 9000000000, "int64", "9000000000"),
    ("DOUBLE", "DOUBLE", 1.25, 1.25, "double", "1.25"),
    ("STRING", "STRING", "x y", "x y", "string", '"x y"'),
    ("BYTES", "BYTES", "AQI=", "AQI=", "bytes", '"\\001\\002"'),
    ("DECIMAL(4, 2)", "DECIMAL(4, 2)", 1.5, "DEC:1.50", None, None),
    ("DECIMAL(10, 0)", "DECIMAL(10, 0)", 1234567890, "DEC:1234567890", None, None),
    ("DATE", "DATE", 18262, "2020-01-01", None, None),
    ("TIME", "TIME", 3723000, "01:02:03", None, None),
    ("TIME", "TIME", 1500, "00:00:01.500", None, None),
    ("TIMESTAMP", "TIMESTAMP", 1577836800001, "2020-01-01T00:00:00.001", None, None),
    ("ARRAY<INT>", "ARRAY<INTEGER>", [1, None, 3], [1, None, 3], None, None),
    ("ARRAY<STRING>", "ARRAY<STRING>", ["a"], ["a"], "repeated string", 'C: "a"'),
    ("MAP<STRING, INT>", "MAP<STRING, INTEGER>", {"k": 1, "n": None}, {"k": 1, "n": None}, None, None),
    ("STRUCT<A INT, B STRING>", "STRUCT<`A` INTEGER, `B` STRING>", {"A": 1, "B": "b"}, {"A": 1, "B": "b"},
     None, None),
    ("ARRAY<STRUCT<A INT>>", "ARRAY<STRUCT<`A` INTEGER>>", [{"A": 1}, {"A": None}], [{"A": 1}, {"A": None}],
     None, None),
    ("MAP<STRING, ARRAY<DOUBLE>>", "MAP<STRING, ARRAY<DOUBLE>>", {"m": [0.5]}, {"m": [0.5]}, None, None),
    ("STRUCT<S STRUCT<D DATE>>", "STRUCT<`S` STRUCT<`D` DATE>>", {"S": {"D": 1}}, {"S": {"D": "1970-01-02"}},
     None, None),
]

STATUS = {"admin": {"@type": "currentStatus"}}


def _inputs(value: Any) -> list[dict[str, Any]]:
    return [{"topic": "input", "key": "a", "value": {"C": value}, "timestamp": 1000},
            {"topic": "input", "key": "b", "value": {"C": None}, "timestamp": 2000}]


def _rows(out: Any) -> list[dict[str, Any]]:
    return [{"row": {"columns": ["a", out]}}, {"row": {"columns": ["b", None]}}]


def _label(sql_type: str, out: Any) -> str:
    return f"{sql_type} ({out[4:] if isinstance(out, str) and out.startswith('DEC:') else json.dumps(out)})"


def _proto(field: str, text: str) -> dict[str, Any]:
    """The protobuf media type's answer to the table scan: ConnectDefault1 with the key and the column."""
    schema = f'syntax = "proto3";\n\nmessage ConnectDefault1 {{\n  string K = 1;\n  {field} C = 2;\n}}\n'
    value = text if text.startswith("C:") else f"C: {text}"
    return {"queryProto": [{"header": {"protoSchema": schema}},
                           {"row": f'K: "a"\n{value}\n'}, {"row": 'K: "b"\n'}]}


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for declared, text, value, shown, proto_field, proto_text in TYPES:
        label = _label(declared, shown)
        stream = (f"CREATE STREAM S (K STRING KEY, C {declared}) WITH (kafka_topic='input', value_format='JSON', "
                  "partitions=1);")
        source = (f"CREATE TABLE SRC (K STRING PRIMARY KEY, C {declared}) WITH (kafka_topic='input', "
                  "value_format='JSON', partitions=1);")
        table = "CREATE TABLE T AS SELECT * FROM SRC;"
        out.append({
            "name": f"a push query over a stream - {label}",
            "statements": [stream, "SELECT * FROM S EMIT CHANGES LIMIT 2;"],
            "inputs": _inputs(value),
            "responses": [STATUS, {"query": [{"header": {"schema": f"`K` STRING, `C` {text}"}}, *_rows(shown),
                                             {"finalMessage": "Limit Reached"}]}],
        })
        out.append({
            "name": f"a pull query over a stream - {label}",
            "statements": [stream, "SELECT * FROM S;"],
            "inputs": _inputs(value),
            "responses": [STATUS, {"query": [{"header": {"schema": f"`K` STRING, `C` {text}"}}, *_rows(shown),
                                             {"finalMessage": "Query Completed"}]}],
        })
        scan: dict[str, Any] = {
            "name": f"a table scan over a materialized table - {label}",
            "statements": [source, table, "SELECT * FROM T;"],
            "inputs": _inputs(value),
            "responses": [STATUS, STATUS, {"query": [{"header": {"schema": f"`K` STRING KEY, `C` {text}"}},
                                                     *_rows(shown)]}],
        }
        if proto_field is not None and proto_text is not None:
            scan["testPullWithProtoFormat"] = True
            scan["responses"].append(_proto(proto_field, proto_text))
        out.append(scan)
        out.append({
            "name": f"a key lookup projecting the column - {label}",
            "statements": [source, table, "SELECT C, K FROM T WHERE K = 'a';"],
            "inputs": _inputs(value),
            "responses": [STATUS, STATUS, {"query": [{"header": {"schema": f"`C` {text}, `K` STRING KEY"}},
                                                     {"row": {"columns": [shown, "a"]}}]}],
        })
    return out


def _text(tests: list[dict[str, Any]]) -> str:
    """The file's text: decimals written with their scale (JSON numbers, not the floats they would parse to)."""
    text = json.dumps({"comments": ["Every SQL type through push, stream pull, table scan and key lookup queries "
                                    "on /query. Generated by gen_query_types.py, in ksqlDB's REST test format, "
                                    "written for ksqlpy."], "tests": tests}, indent=1) + "\n"
    for _, _, _, shown, _, _ in TYPES:
        if isinstance(shown, str) and shown.startswith("DEC:"):
            text = text.replace(json.dumps(shown), shown[4:])
    return text


if __name__ == "__main__":
    (HERE / "query-types.json").write_text(_text(cases()))
