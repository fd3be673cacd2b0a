"""Pull and push queries over windowed tables keyed in a schema-registry format (our own cases, ksqlDB's REST
test format).

A windowed CTAS keyed in AVRO, PROTOBUF or JSON_SR writes the key's own schema under ``<topic>-key`` and the
window after it (tests/cases/serde/windowed-key-schemas.json); its state store is read by pull queries by key
(one column, two columns) with and without window bounds, and with protobuf output, and push queries stream its changes with
WINDOWSTART/WINDOWEND after the key - in every window type. A push query's WHERE over a windowed table keeps
each key's previous row by key and window (ksqlDB's table filter over the materialized source), in any key
format. A stream declared over the sink's topic with its
key inferred from the registry reads the windows back by push query.

Run ``python tests/cases/rest/gen_windowed_sr_key_reads.py`` to rewrite ``windowed-sr-key-reads.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FORMATS = ("AVRO", "PROTOBUF", "JSON_SR")
PUSH_FORMATS = (*FORMATS, "KAFKA", "JSON")  # a push query's WHERE over a windowed table is no SR matter
WINDOWS = {"TUMBLING": "TUMBLING (SIZE 10 SECONDS)",
           "HOPPING": "HOPPING (SIZE 10 SECONDS, ADVANCE BY 5 SECONDS)",
           "SESSION": "SESSION (10 SECONDS)"}
SOURCE = "CREATE STREAM S (ID INT KEY, A INT, B STRING) WITH (kafka_topic='s', value_format='JSON');"
INPUTS = [{"topic": "s", "key": 1, "value": {"A": 2, "B": "x"}, "timestamp": 1000},
          {"topic": "s", "key": 1, "value": {"A": 3, "B": "y"}, "timestamp": 2000},
          {"topic": "s", "key": 1, "value": {"A": 2, "B": "x"}, "timestamp": 7000}]
OK = {"admin": {"@type": "currentStatus"}}


def windows(kind: str, a: int) -> list[tuple[int, int, int]]:
    """(start, end, count) of the final rows of key A=a (B follows A in the inputs)."""
    if kind == "TUMBLING":
        return [(0, 10000, 2)] if a == 2 else [(0, 10000, 1)]
    if kind == "HOPPING":
        return [(0, 10000, 2), (5000, 15000, 1)] if a == 2 else [(0, 10000, 1)]
    return [(1000, 7000, 2)] if a == 2 else [(2000, 2000, 1)]


def ctas(fmt: str, kind: str, keys: str) -> str:
    return (f"CREATE TABLE W WITH (KEY_FORMAT='{fmt}') AS SELECT {keys}, COUNT(*) AS C FROM S "
            f"WINDOW {WINDOWS[kind]} GROUP BY {keys};")


def pull_case(fmt: str, kind: str, multi: bool) -> dict[str, Any]:
    keys = "A, B" if multi else "A"
    where = "A = 2 AND B = 'x'" if multi else "A = 2"
    header = ("`A` INTEGER KEY, `B` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT"
              if multi else "`A` INTEGER KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, `C` BIGINT")
    key_vals = [2, "x"] if multi else [2]
    rows = [{"row": {"columns": [*key_vals, s, e, c]}} for s, e, c in windows(kind, 2)]
    bounded = [{"row": {"columns": [*key_vals, s, e, c]}} for s, e, c in windows(kind, 2) if s >= 1000]
    return {"name": f"pull query by {'two key columns' if multi else 'key'} of a {kind} table keyed in {fmt}",
            "statements": [SOURCE, ctas(fmt, kind, keys),
                           f"SELECT * FROM W WHERE {where};",
                           f"SELECT * FROM W WHERE {where} AND WINDOWSTART >= 1000;"],
            "inputs": INPUTS,
            "responses": [OK, OK,
                          {"query": [{"header": {"schema": header}}, *rows]},
                          {"query": [{"header": {"schema": header}}, *bounded]}]}


def proto_pull_case(fmt: str, kind: str) -> dict[str, Any]:
    """The pull query again with protobuf output: the result's columns as one message, window bounds int64
    fields after the key, a field at its default (a window start of 0) absent from the text form."""
    case = pull_case(fmt, kind, True)
    case["name"] = f"pull query with protobuf output by two key columns of a {kind} table keyed in {fmt}"
    case["testPullWithProtoFormat"] = True
    case["statements"] = case["statements"][:3]
    case["responses"] = case["responses"][:3]
    schema = ('syntax = "proto3";\n\nmessage ConnectDefault1 {\n  int32 A = 1;\n  string B = 2;\n'
              '  int64 WINDOWSTART = 3;\n  int64 WINDOWEND = 4;\n  int64 C = 5;\n}\n')
    rows = [{"row": f'A: 2\nB: "x"\n{f"WINDOWSTART: {s}" + chr(10) if s else ""}WINDOWEND: {e}\nC: {c}\n'}
            for s, e, c in windows(kind, 2)]
    case["responses"].append({"queryProto": [{"header": {"protoSchema": schema}}, *rows]})
    return case


def push_case(fmt: str, kind: str) -> dict[str, Any]:
    header = "`A` INTEGER, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `C` BIGINT"
    rows = [{"row": {"columns": [2, s, e, c]}} for s, e, c in windows(kind, 2) if c == 2]
    return {"name": f"push query with a WHERE over a {kind} table keyed in {fmt}",
            "statements": [SOURCE, ctas(fmt, kind, "A"),
                           "SELECT * FROM W WHERE C > 1 EMIT CHANGES LIMIT 1;"],
            "inputs": INPUTS,
            "responses": [OK, OK, {"query": [{"header": {"schema": header}}, *rows,
                                             {"finalMessage": "Limit Reached"}]}]}


def readback_case(fmt: str, kind: str) -> dict[str, Any]:
    size = "" if kind == "SESSION" else ", WINDOW_SIZE='10 SECONDS'"
    key = "A" if fmt == "PROTOBUF" else "ROWKEY"
    header = f"`{key}` INTEGER, `WINDOWSTART` BIGINT, `WINDOWEND` BIGINT, `C` BIGINT"
    rows = [{"row": {"columns": [2, s, e, c]}} for s, e, c in windows(kind, 2) if c == 2]
    return {"name": f"push query over a stream reading a {kind} sink keyed in {fmt}, its key inferred",
            "statements": [SOURCE, ctas(fmt, kind, "A"),
                           f"CREATE STREAM R (C BIGINT) WITH (kafka_topic='W', key_format='{fmt}', "
                           f"value_format='JSON', WINDOW_TYPE='{kind}'{size});",
                           "SELECT * FROM R WHERE C > 1 EMIT CHANGES LIMIT 1;"],
            "inputs": INPUTS,
            "responses": [OK, OK, OK, {"query": [{"header": {"schema": header}}, *rows,
                                                  {"finalMessage": "Limit Reached"}]}]}


def main() -> None:
    tests: list[dict[str, Any]] = []
    for fmt in FORMATS:
        for kind in WINDOWS:
            tests.append(pull_case(fmt, kind, False))
            tests.append(pull_case(fmt, kind, True))
            tests.append(readback_case(fmt, kind))
        tests.append(proto_pull_case(fmt, tuple(WINDOWS)[FORMATS.index(fmt)]))
    for fmt in PUSH_FORMATS:
        for kind in WINDOWS:
            tests.append(push_case(fmt, kind))
    doc = {"comments": ["Generated by gen_windowed_sr_key_reads.py, in ksqlDB's REST test format, written for "
                        "ksqlpy."], "tests": tests}
    (HERE / "windowed-sr-key-reads.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
