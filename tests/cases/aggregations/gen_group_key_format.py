"""Generates the cases of the GROUP BY internal key format rule (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_group_key_format.py`` to rewrite ``group-key-format.json``.

ksqlDB groups before it writes the sink: the repartition topic and the aggregate's changelog carry the
grouped key in the *input's* key format (``SchemaKStream.groupBy`` / ``SchemaKTable.groupBy``), whatever
KEY_FORMAT the CREATE TABLE AS SELECT names for its sink. A GROUP BY on the input's own key (no repartition)
keeps the input's format as it is; a repartitioning one takes the default key format for a keyless input
(NONE), then JSON where the format cannot hold the new key (several columns in KAFKA; a type KAFKA cannot
write; STRUCT/ARRAY in DELIMITED). The wrapping feature follows the new key's column count. Each case lists
the internal topics with their key formats in ``post.topics``; the sink names another key format than its
input's, so a plan that took the sink's format for its internal topics fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
APP = "_confluent-ksql-some.ksql.service.idquery_CTAS_OUTPUT_0"
REPARTITION = f"{APP}-Aggregate-GroupBy-repartition"
CHANGELOG = f"{APP}-Aggregate-Aggregate-Materialize-changelog"
REDUCE = f"{APP}-KsqlTopic-Reduce-changelog"  # a table source's previous rows, keyed as the source
SOURCE_KEY_FORMATS = ("KAFKA", "JSON", "DELIMITED", "AVRO", "JSON_SR", "PROTOBUF", "PROTOBUF_NOSR", "NONE")
UNWRAPPING = frozenset({"JSON", "JSON_SR", "AVRO", "PROTOBUF_NOSR"})  # a single key column written bare
KAFKA_TYPES = frozenset({"INT", "BIGINT", "DOUBLE", "STRING", "BYTES"})
RECORDS = ((1, 10, 1, 0), (2, 20, 1, 1), (3, 10, 1, 2))  # (K, A, B, timestamp): A=10 twice


# GROUP BY shape: select list, GROUP BY, key column (name, type) list, the group of a record (k, a, b)
SHAPES: dict[str, tuple[str, str, list[tuple[str, str]], Any]] = {
    "the key": ("K, COUNT(*) AS C", "K", [("K", "INT")], lambda k, a, b: (k,)),
    "a value column": ("A, COUNT(*) AS C", "A", [("A", "INT")], lambda k, a, b: (a,)),
    "two value columns": ("A, B, COUNT(*) AS C", "A, B", [("A", "INT"), ("B", "INT")], lambda k, a, b: (a, b)),
    "a BOOLEAN expression": ("(A > 15) AS G, COUNT(*) AS C", "(A > 15)", [("G", "BOOLEAN")],
                             lambda k, a, b: (a > 15,)),
    "a STRUCT": ("STRUCT(X := A) AS G, COUNT(*) AS C", "STRUCT(X := A)", [("G", "STRUCT")],
                 lambda k, a, b: ({"X": a},)),
}


def internal_format(source_format: str, key: list[tuple[str, str]], repartition: bool) -> str:
    """The model of the rule (see the module docstring)."""
    if not repartition:
        return source_format
    fmt = "KAFKA" if source_format == "NONE" else source_format
    types = [t for _, t in key]
    if fmt == "KAFKA" and (len(types) > 1 or any(t not in KAFKA_TYPES for t in types)):
        return "JSON"
    if fmt == "DELIMITED" and any(t in ("STRUCT", "ARRAY") for t in types):
        return "JSON"
    return fmt


def key_format_json(fmt: str, n_columns: int, window: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"format": fmt}
    if n_columns == 1 and fmt in UNWRAPPING:
        out["features"] = ["UNWRAP_SINGLES"]
    else:
        out["features"] = []
    if window:
        out["windowInfo"] = {"type": "TUMBLING", "size": 1.0}
    return out


def input_key(fmt: str, k: int) -> Any:
    if fmt == "NONE":
        return None
    if fmt == "DELIMITED":
        return str(k)
    if fmt in ("PROTOBUF", "PROTOBUF_NOSR"):
        return {"K": k}
    return k


def sink_key(fmt: str, key: list[tuple[str, str]], group: tuple) -> Any:
    """The grouped key as the case writes it in the sink's format (JSON or AVRO here)."""
    if len(key) == 1:
        return group[0]
    return {name: v for (name, _), v in zip(key, group, strict=True)}


def sink_format(source_format: str) -> str:
    """A key format for the sink other than the input's (and able to write every shape's key)."""
    return "AVRO" if source_format == "JSON" else "JSON"


def _counts(groups: list[tuple]) -> list[int]:
    seen: dict[str, int] = {}
    out = []
    for g in groups:
        k = json.dumps(g, sort_keys=True)
        seen[k] = seen.get(k, 0) + 1
        out.append(seen[k])
    return out


def source_cases() -> list[dict[str, Any]]:
    out = []
    for kind in ("STREAM", "TABLE"):
        for fmt in SOURCE_KEY_FORMATS:
            if kind == "TABLE" and fmt == "NONE":
                continue  # a table has a key
            for shape, (select, group_by, key, group) in SHAPES.items():
                if shape == "the key" and fmt == "NONE":
                    continue
                for windowed in (False, True):
                    if windowed and kind == "TABLE":
                        continue  # ksqlDB has no windowed table aggregation
                    repartition = kind == "TABLE" or shape != "the key"
                    out.append(_case(kind, fmt, shape, select, group_by, key, group, windowed, repartition))
    return out


def _case(kind: str, fmt: str, shape: str, select: str, group_by: str, key: list[tuple[str, str]], group: Any,
          windowed: bool, repartition: bool) -> dict[str, Any]:
    sink = sink_format(fmt)
    key_col = "" if fmt == "NONE" else ("K INT PRIMARY KEY, " if kind == "TABLE" else "K INT KEY, ")
    window = " WINDOW TUMBLING (SIZE 1 SECOND)" if windowed else ""
    statements = [
        f"CREATE {kind} S ({key_col}A INT, B INT) WITH (kafka_topic='s', key_format='{fmt}', "
        "value_format='JSON', partitions=1);",
        f"CREATE TABLE OUTPUT WITH (KEY_FORMAT='{sink}') AS SELECT {select} FROM S{window} GROUP BY {group_by};",
    ]
    inputs = [{"topic": "s", "key": input_key(fmt, k), "value": {"A": a, "B": b}, "timestamp": ts}
              for k, a, b, ts in RECORDS]
    groups = [group(k, a, b) for k, a, b, _ in RECORDS]
    outputs = []
    for g, n, (_, _, _, ts) in zip(groups, _counts(groups), RECORDS, strict=True):
        o: dict[str, Any] = {"topic": "OUTPUT", "key": sink_key(sink, key, g), "value": {"C": n}, "timestamp": ts}
        if windowed:
            o["window"] = {"start": 0, "end": 1000, "type": "time"}
        outputs.append(o)
    internal = internal_format(fmt, key, repartition)
    topics: list[dict[str, Any]] = [
        {"name": CHANGELOG, "keyFormat": key_format_json(internal, len(key), windowed),
         "valueFormat": {"format": "JSON"}},
        {"name": "OUTPUT", "keyFormat": key_format_json(sink, len(key), windowed), "valueFormat": {"format": "JSON"}},
    ]
    post: dict[str, Any] = {"topics": {"topics": topics}}
    if repartition:
        topics.insert(0, {"name": REPARTITION, "keyFormat": key_format_json(internal, len(key)),
                          "valueFormat": {"format": "JSON"}})
    else:
        post["topics"]["blacklist"] = ".*-repartition"
    if kind == "TABLE":
        topics.append({"name": REDUCE, "keyFormat": key_format_json(fmt, 1), "valueFormat": {"format": "JSON"}})
    name = (f"{kind.lower()} with a {fmt} key grouped by {shape}{' in a window' if windowed else ''} "
            f"into a {sink} key - internal key {internal}")
    return {"name": name, "statements": statements, "inputs": inputs, "outputs": outputs, "post": post}


def join_cases() -> list[dict[str, Any]]:
    """A join's result is grouped in the join's key format (the left source's here)."""
    out = []
    for fmt in ("KAFKA", "JSON", "DELIMITED"):
        for shape, group_by, select, moves in (("the join column", "S.K", "S.K AS K", False),
                                               ("a table column", "T.X", "T.X AS X", True)):
            sink = sink_format(fmt)
            statements = [
                f"CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', key_format='{fmt}', "
                "value_format='JSON', partitions=1);",
                f"CREATE TABLE T (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='t', key_format='{fmt}', "
                "value_format='JSON', partitions=1);",
                f"CREATE TABLE OUTPUT WITH (KEY_FORMAT='{sink}') AS SELECT {select}, COUNT(*) AS C FROM S "
                f"JOIN T ON S.K = T.ID GROUP BY {group_by};",
            ]
            k = (lambda v: str(v)) if fmt == "DELIMITED" else (lambda v: v)
            inputs = [{"topic": "t", "key": k(i), "value": {"X": i % 2}, "timestamp": 0} for i in (1, 2, 3)]
            inputs += [{"topic": "s", "key": k(i), "value": {"V": 0}, "timestamp": i} for i in (1, 2, 3)]
            groups = [(i,) if not moves else (i % 2,) for i in (1, 2, 3)]
            outputs = [{"topic": "OUTPUT", "key": g[0], "value": {"C": n}, "timestamp": ts}
                       for g, n, ts in zip(groups, _counts(groups), (1, 2, 3), strict=True)]
            topics: list[dict[str, Any]] = [{"name": CHANGELOG, "keyFormat": key_format_json(fmt, 1),
                                             "valueFormat": {"format": "JSON"}}]
            post: dict[str, Any] = {"topics": {"topics": topics}}
            if moves:
                topics.insert(0, {"name": REPARTITION, "keyFormat": key_format_json(fmt, 1),
                                  "valueFormat": {"format": "JSON"}})
            else:
                post["topics"]["blacklist"] = ".*-GroupBy-repartition"
            out.append({"name": f"stream-table join on {fmt} keys grouped by {shape} into a {sink} key",
                        "statements": statements, "inputs": inputs, "outputs": outputs, "post": post})
    return out


def windowed_source_cases() -> list[dict[str, Any]]:
    """A windowed stream's groups always move (its records are placed by key and window); the repartition
    key is the input's format without the window."""
    out = []
    for fmt in ("KAFKA", "JSON", "DELIMITED"):
        for shape, (select, group_by, key, group) in SHAPES.items():
            if shape not in ("the key", "two value columns"):
                continue
            sink = sink_format(fmt)
            statements = [
                f"CREATE STREAM S (K INT KEY, A INT, B INT) WITH (kafka_topic='s', key_format='{fmt}', "
                "value_format='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 SECOND', partitions=1);",
                f"CREATE TABLE OUTPUT WITH (KEY_FORMAT='{sink}') AS SELECT {select} FROM S GROUP BY {group_by};",
            ]
            inputs = [{"topic": "s", "key": input_key(fmt, k), "value": {"A": a, "B": b}, "timestamp": ts,
                       "window": {"start": 0, "end": 1000, "type": "time"}} for k, a, b, ts in RECORDS]
            groups = [group(k, a, b) for k, a, b, _ in RECORDS]
            outputs = [{"topic": "OUTPUT", "key": sink_key(sink, key, g), "value": {"C": n}, "timestamp": ts}
                       for g, n, (_, _, _, ts) in zip(groups, _counts(groups), RECORDS, strict=True)]
            internal = internal_format(fmt, key, True)
            topics = [{"name": REPARTITION, "keyFormat": key_format_json(internal, len(key)),
                       "valueFormat": {"format": "JSON"}},
                      {"name": CHANGELOG, "keyFormat": key_format_json(internal, len(key)),
                       "valueFormat": {"format": "JSON"}}]
            out.append({"name": f"windowed stream with a {fmt} key grouped by {shape} into a {sink} key - "
                                f"internal key {internal}",
                        "statements": statements, "inputs": inputs, "outputs": outputs,
                        "post": {"topics": {"topics": topics}}})
    return out


def property_cases() -> list[dict[str, Any]]:
    """The grouped key keeps the input format's properties with the format: an AVRO key's schema name (the
    repartition topic's key record is named by it) and a DELIMITED key's delimiter."""
    avro_key = {"type": "record", "name": "Key", "namespace": "my", "connect.name": "my.Key",
                "fields": [{"name": c, "type": ["null", "int"], "default": None} for c in ("A", "B")]}
    out = []
    for fmt, prop, value, extra, schema in (("AVRO", "fullSchemaName", "my.Key", "KEY_SCHEMA_FULL_NAME='my.Key'",
                                             avro_key),
                                            ("DELIMITED", "delimiter", "|", "KEY_DELIMITER='|'", None)):
        key_format = {"format": fmt, "properties": {prop: value}}
        repartition: dict[str, Any] = {"name": REPARTITION, "keyFormat": key_format, "valueFormat": {"format": "JSON"}}
        if schema is not None:
            repartition["keySchema"] = schema
        out.append({
            "name": f"{fmt} input key with {prop} grouped by two value columns into a JSON key keeps it",
            "statements": [
                f"CREATE STREAM S (K INT KEY, A INT, B INT) WITH (kafka_topic='s', key_format='{fmt}', "
                f"value_format='JSON', {extra}, partitions=1);",
                "CREATE TABLE OUTPUT WITH (KEY_FORMAT='JSON') AS SELECT A, B, COUNT(*) AS C FROM S GROUP BY A, B;"],
            "inputs": [{"topic": "s", "key": input_key(fmt, 1), "value": {"A": 10, "B": 1}, "timestamp": 0}],
            "outputs": [{"topic": "OUTPUT", "key": {"A": 10, "B": 1}, "value": {"C": 1}, "timestamp": 0}],
            "post": {"topics": {"topics": [repartition, {"name": CHANGELOG, "keyFormat": key_format,
                                                         "valueFormat": {"format": "JSON"}}]}}})
    return out


def cases() -> list[dict[str, Any]]:
    return source_cases() + windowed_source_cases() + join_cases() + property_cases()


def main() -> None:
    (HERE / "group-key-format.json").write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]],
                                                            "tests": cases()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
