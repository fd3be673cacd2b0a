"""Generates ``protobuf-logical-rows.json``: table scans asked in the protobuf media type
(``testPullWithProtoFormat``) over columns whose protobuf form is a message of its own - DECIMAL
(``confluent.type.Decimal``), DATE (``google.type.Date``), TIME (``google.type.TimeOfDay``), TIMESTAMP
(``google.protobuf.Timestamp``) - alone and inside a STRUCT or an ARRAY.

The rules the expectations come from (ksqlDB's and Confluent's, written in our words):

- ``protoSchema``: ProtobufData's .proto of the columns, printed by Confluent's ProtobufSchema: the imports
  the types need, and on a DECIMAL field the ``confluent.field_meta`` option with the column's precision
  and scale as ``params``, a map option printed over several lines (``{`` / ``params: [`` / one ``{`` ... ``}``
  per param, ``key`` then ``value`` / ``]`` / ``}``), each level two spaces deeper than the field;
- a row in protobuf's text format: a message field as ``NAME {`` ... ``}``, proto3 defaults left out (so a
  TIME of midnight or the TIMESTAMP 0 is an empty message ``NAME {`` ``}``, present but with no fields);
- a DECIMAL message holds the unscaled value's two's complement bytes, the value's own precision
  (``BigDecimal.precision()``: its digits, 1 for zero - not the column's) and the column's scale;
- DATE as year/month/day, TIME as hours/minutes/seconds/nanos of the day, TIMESTAMP as seconds/nanos since
  the epoch.

Run ``python tests/cases/rest/gen_protobuf_logical_rows.py`` to rewrite the file next to it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
STATUS = {"admin": {"@type": "currentStatus"}}
IMPORTS = {"DECIMAL": ['confluent/meta.proto', 'confluent/type/decimal.proto'],
           "TIMESTAMP": ['google/protobuf/timestamp.proto'], "DATE": ['google/type/date.proto'],
           "TIME": ['google/type/timeofday.proto']}


def _option(precision: int, scale: int, indent: str) -> str:
    lines = ["params: [", "  {", '    key: "precision",', f'    value: "{precision}"', "  },", "  {",
             '    key: "scale",', f'    value: "{scale}"', "  }", "]"]
    return " [(confluent.field_meta) = {\n" + "".join(f"{indent}  {x}\n" for x in lines) + f"{indent}}}]"


def _decimal_field(label: str, name: str, num: int, precision: int, scale: int, indent: str) -> str:
    return f"{indent}{label}confluent.type.Decimal {name} = {num}{_option(precision, scale, indent)};\n"


def _schema(kinds: list[str], fields: str, nested: str = "") -> str:
    imports = sorted({i for k in kinds for i in IMPORTS[k]})
    head = 'syntax = "proto3";\n\n' + "".join(f'import "{i}";\n' for i in imports) + "\n"
    return head + "message ConnectDefault1 {\n  string K = 1;\n" + fields + (f"\n{nested}" if nested else "") + "}\n"


def _escape(data: bytes) -> str:
    special = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v", 92: "\\\\", 39: "\\'",
               34: '\\"'}
    return "".join(special.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in data)


def _decimal_text(unscaled: int, scale: int, indent: str = "  ") -> str:
    raw = unscaled.to_bytes(max(1, (unscaled.bit_length() + 8) // 8), "big", signed=True)
    lines = [f'value: "{_escape(raw)}"', f"precision: {len(str(abs(unscaled)))}"]
    if scale:
        lines.append(f"scale: {scale}")
    return "".join(f"{indent}{x}\n" for x in lines)


def _message(name: str, body: str) -> str:
    return f"{name} {{\n{body}}}\n"


# declared type, the JSON input, the schema text's fields (and nested messages), the kinds it imports,
# the row text of the value (without K), a label
CASES: list[tuple[str, Any, str, str, list[str], str, str]] = [
    ("DECIMAL(4, 2)", "DEC:1.50", _decimal_field("", "C", 2, 4, 2, "  "), "", ["DECIMAL"],
     _message("C", _decimal_text(150, 2)), "1.50: precision 3, the value's"),
    ("DECIMAL(4, 2)", "DEC:-1.50", _decimal_field("", "C", 2, 4, 2, "  "), "", ["DECIMAL"],
     _message("C", _decimal_text(-150, 2)), "-1.50: two's complement bytes"),
    ("DECIMAL(4, 2)", "DEC:0.00", _decimal_field("", "C", 2, 4, 2, "  "), "", ["DECIMAL"],
     _message("C", _decimal_text(0, 2)), "0.00: one zero byte, precision 1"),
    ("DECIMAL(10, 0)", "DEC:1234567890", _decimal_field("", "C", 2, 10, 0, "  "), "", ["DECIMAL"],
     _message("C", _decimal_text(1234567890, 0)), "1234567890: scale 0 left out"),
    ("DATE", 18262, "  google.type.Date C = 2;\n", "", ["DATE"],
     _message("C", "  year: 2020\n  month: 1\n  day: 1\n"), "2020-01-01"),
    ("DATE", 0, "  google.type.Date C = 2;\n", "", ["DATE"],
     _message("C", "  year: 1970\n  month: 1\n  day: 1\n"), "the epoch day"),
    ("TIME", 3723500, "  google.type.TimeOfDay C = 2;\n", "", ["TIME"],
     _message("C", "  hours: 1\n  minutes: 2\n  seconds: 3\n  nanos: 500000000\n"), "01:02:03.500"),
    ("TIME", 0, "  google.type.TimeOfDay C = 2;\n", "", ["TIME"], _message("C", ""),
     "midnight: an empty message"),
    ("TIMESTAMP", 1577836800001, "  google.protobuf.Timestamp C = 2;\n", "", ["TIMESTAMP"],
     _message("C", "  seconds: 1577836800\n  nanos: 1000000\n"), "2020-01-01T00:00:00.001"),
    ("TIMESTAMP", -1500, "  google.protobuf.Timestamp C = 2;\n", "", ["TIMESTAMP"],
     _message("C", "  seconds: -2\n  nanos: 500000000\n"), "before the epoch: seconds floor, nanos positive"),
    ("TIMESTAMP", 0, "  google.protobuf.Timestamp C = 2;\n", "", ["TIMESTAMP"], _message("C", ""),
     "the epoch: an empty message"),
    ("STRUCT<D DECIMAL(3, 1), T TIME>", {"D": "DEC:2.5", "T": 60000}, "  ConnectDefault2 C = 2;\n",
     "  message ConnectDefault2 {\n" + _decimal_field("", "D", 1, 3, 1, "    ")
     + "    google.type.TimeOfDay T = 2;\n  }\n", ["DECIMAL", "TIME"],
     _message("C", "  D {\n" + _decimal_text(25, 1, "    ") + "  }\n  T {\n    minutes: 1\n  }\n"),
     "a STRUCT holding a DECIMAL and a TIME"),
    ("ARRAY<DECIMAL(3, 1)>", ["DEC:2.5", "DEC:-0.1"], _decimal_field("repeated ", "C", 2, 3, 1, "  "), "",
     ["DECIMAL"], _message("C", _decimal_text(25, 1)) + _message("C", _decimal_text(-1, 1)),
     "an ARRAY of DECIMALs: repeated, the option on the field"),
]


# each case's value as the JSON media type shows it, and the header's text of its type
SHOWN: list[tuple[Any, str]] = [
    ("DEC:1.50", "DECIMAL(4, 2)"), ("DEC:-1.50", "DECIMAL(4, 2)"), ("DEC:0.00", "DECIMAL(4, 2)"),
    ("DEC:1234567890", "DECIMAL(10, 0)"), ("2020-01-01", "DATE"), ("1970-01-01", "DATE"), ("01:02:03.500", "TIME"),
    ("00:00", "TIME"), ("2020-01-01T00:00:00.001", "TIMESTAMP"), ("1969-12-31T23:59:58.500", "TIMESTAMP"),
    ("1970-01-01T00:00:00.000", "TIMESTAMP"), ({"D": "DEC:2.5", "T": "00:01"}, "STRUCT<`D` DECIMAL(3, 1), `T` TIME>"),
    (["DEC:2.5", "DEC:-0.1"], "ARRAY<DECIMAL(3, 1)>"),
]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for (declared, value, fields, nested, kinds, text, label), (shown, type_text) in zip(CASES, SHOWN, strict=True):
        source = (f"CREATE TABLE SRC (K STRING PRIMARY KEY, C {declared}) WITH (kafka_topic='input', "
                  "value_format='JSON', partitions=1);")
        out.append({
            "name": f"protobuf rows - {declared} - {label}",
            "testPullWithProtoFormat": True,
            "statements": [source, "CREATE TABLE T AS SELECT * FROM SRC;", "SELECT K, C FROM T;"],
            "inputs": [{"topic": "input", "key": "a", "value": {"C": value}, "timestamp": 1000},
                       {"topic": "input", "key": "b", "value": {"C": None}, "timestamp": 2000}],
            "responses": [STATUS, STATUS, {"query": [
                {"header": {"schema": f"`K` STRING KEY, `C` {type_text}"}},
                {"row": {"columns": ["a", shown]}}, {"row": {"columns": ["b", None]}}]}, {"queryProto": [
                {"header": {"protoSchema": _schema(kinds, fields, nested)}},
                {"row": f'K: "a"\n{text}'}, {"row": 'K: "b"\n'}]}],
        })
    return out


def _text(tests: list[dict[str, Any]]) -> str:
    """The file's text: decimals written as JSON numbers with their digits (``"DEC:1.50"`` -> ``1.50``)."""
    text = json.dumps({"comments": ["Table scans in the protobuf media type over DECIMAL, DATE, TIME and TIMESTAMP "
                                    "columns. Generated by gen_protobuf_logical_rows.py, in ksqlDB's REST test "
                                    "format, written for ksqlpy."], "tests": tests}, indent=1) + "\n"
    return re.sub(r'"DEC:(-?[0-9.]+)"', r"\1", text)


if __name__ == "__main__":
    (HERE / "protobuf-logical-rows.json").write_text(_text(cases()))
