"""Generates the GROUP BY repartition-topic cases (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_group_by_repartition.py`` to rewrite ``group-by-repartition.json``.

ksqlDB's ``SchemaKStream.groupBy`` groups by key (no internal topic) only when the GROUP BY expressions are
the input's key columns, in order, as plain column references; otherwise its plan has
``<query>-Aggregate-GroupBy-repartition``, in the input's key format (a keyless input's: the default key
format, KAFKA) and value format. A table always repartitions (``KTable.groupBy``), a windowed source too
(its records are placed by the windowed key), and a join result is keyed by its join column (either side's,
as the projection names it, or an earlier join's column equal to it) unless the key is synthetic (FULL
OUTER: ``ROWKEY``). The decision is the
plan's: the same over one partition as over four (``post.topics`` and SHOW TOPICS see it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PARTITIONS = (1, 4)
KEY_FORMATS = ("KAFKA", "JSON", "DELIMITED")
TOPIC = "_confluent-ksql-some.ksql.service.idquery_CTAS_OUTPUT_0-Aggregate-GroupBy-repartition"
RECORDS = ((1, 10, 0), (2, 20, 1), (3, 10, 2))  # (K, V, timestamp): distinct keys, so a table never updates


def _key(value: Any, key_format: str) -> Any:
    """A key as the case writes it: DELIMITED keys are their text."""
    return str(value) if key_format == "DELIMITED" else value


def _counts(groups: list[Any]) -> list[tuple[Any, int]]:
    """(group, running count) per record, in order."""
    seen: dict[str, int] = {}
    out = []
    for g in groups:
        k = json.dumps(g, sort_keys=True)
        seen[k] = seen.get(k, 0) + 1
        out.append((g, seen[k]))
    return out


def _post(repartition: bool, key_format: str) -> dict[str, Any]:
    if not repartition:
        return {"topics": {"blacklist": ".*-repartition"}}
    return {"topics": {"topics": [{"name": TOPIC, "keyFormat": {"format": key_format},
                                   "valueFormat": {"format": "JSON"}}]}}


def _case(name: str, statements: list[str], inputs: list[dict[str, Any]], outputs: list[dict[str, Any]],
          repartition: bool, key_format: str) -> dict[str, Any]:
    return {"name": name, "statements": statements, "inputs": inputs, "outputs": outputs,
            "post": _post(repartition, key_format)}


# GROUP BY shape over a one-key source: (select list, GROUP BY, group of a record (K, V), stream moves, window)
SINGLE_KEY_SHAPES: dict[str, tuple[str, str, Any, bool, bool]] = {
    "the key": ("K, COUNT(*) AS C", "K", lambda k, v: k, False, False),
    "the key, filtered": ("K, COUNT(*) AS C", "K", lambda k, v: k, False, False),
    "a value column": ("V, COUNT(*) AS C", "V", lambda k, v: v, True, False),
    "an expression of the key": ("K + 1 AS K1, COUNT(*) AS C", "K + 1", lambda k, v: k + 1, True, False),
    "the key, windowed": ("K, COUNT(*) AS C", "K", lambda k, v: k, False, True),
}


def single_key_cases() -> list[dict[str, Any]]:
    out = []
    for kind in ("STREAM", "TABLE"):
        for shape, (select, group_by, group, stream_moves, windowed) in SINGLE_KEY_SHAPES.items():
            if kind == "TABLE" and windowed:
                continue  # ksqlDB has no windowed table aggregation
            for fmt in KEY_FORMATS:
                for p in PARTITIONS:
                    key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
                    where = " WHERE V > 0" if "filtered" in shape else ""
                    window = " WINDOW TUMBLING (SIZE 1 SECOND)" if windowed else ""
                    statements = [
                        f"CREATE {kind} S (K INT {key}, V INT) WITH (kafka_topic='s', key_format='{fmt}', "
                        f"value_format='JSON', partitions={p});",
                        f"CREATE TABLE OUTPUT AS SELECT {select} FROM S{window}{where} GROUP BY {group_by};",
                    ]
                    inputs = [{"topic": "s", "key": _key(k, fmt), "value": {"V": v}, "timestamp": ts}
                              for k, v, ts in RECORDS]
                    col = select.split(",")[1].split()[-1]
                    outputs = []
                    for (g, n), (_, _, ts) in zip(_counts([group(k, v) for k, v, _ in RECORDS]), RECORDS,
                                                  strict=True):
                        o: dict[str, Any] = {"topic": "OUTPUT", "key": _key(g, fmt), "value": {col: n},
                                             "timestamp": ts}
                        if windowed:
                            o["window"] = {"start": 0, "end": 1000, "type": "time"}
                        outputs.append(o)
                    moves = stream_moves or kind == "TABLE"
                    out.append(_case(f"{kind.lower()} grouped by {shape} - {fmt} key - {p} partition(s)",
                                     statements, inputs, outputs, moves, fmt))
    return out


def keyless_cases() -> list[dict[str, Any]]:
    out = []
    for p in PARTITIONS:
        statements = [f"CREATE STREAM S (V INT) WITH (kafka_topic='s', value_format='JSON', partitions={p});",
                      "CREATE TABLE OUTPUT AS SELECT V, COUNT(*) AS C FROM S GROUP BY V;"]
        inputs = [{"topic": "s", "key": None, "value": {"V": v}, "timestamp": ts} for _, v, ts in RECORDS]
        outputs = [{"topic": "OUTPUT", "key": g, "value": {"C": n}, "timestamp": ts}
                   for (g, n), (_, _, ts) in zip(_counts([v for _, v, _ in RECORDS]), RECORDS, strict=True)]
        out.append(_case(f"keyless stream grouped by a value column (default key format) - {p} partition(s)",
                         statements, inputs, outputs, True, "KAFKA"))
    return out


MULTI_KEYS = ((1, 1, 0), (1, 2, 1), (2, 1, 2))  # (K1, K2, timestamp)
MULTI_SHAPES: dict[str, tuple[list[str], bool]] = {
    "the key columns in order": (["K1", "K2"], False),
    "the key columns in another order": (["K2", "K1"], True),
    "a subset of the key columns": (["K1"], True),
}


def multi_key_cases() -> list[dict[str, Any]]:
    out = []
    for shape, (cols, moves) in MULTI_SHAPES.items():
        for p in PARTITIONS:
            listed = ", ".join(cols)
            statements = [
                f"CREATE STREAM S (K1 INT KEY, K2 INT KEY, V INT) WITH (kafka_topic='s', key_format='JSON', "
                f"value_format='JSON', partitions={p});",
                f"CREATE TABLE OUTPUT AS SELECT {listed}, COUNT(*) AS C FROM S GROUP BY {listed};",
            ]
            inputs = [{"topic": "s", "key": {"K1": a, "K2": b}, "value": {"V": 0}, "timestamp": ts}
                      for a, b, ts in MULTI_KEYS]

            def group(a: int, b: int, cols: list[str] = cols) -> Any:
                values = {"K1": a, "K2": b}
                return values[cols[0]] if len(cols) == 1 else {c: values[c] for c in cols}

            outputs = [{"topic": "OUTPUT", "key": g, "value": {"C": n}, "timestamp": ts}
                       for (g, n), (_, _, ts) in zip(_counts([group(a, b) for a, b, _ in MULTI_KEYS]), MULTI_KEYS,
                                                     strict=True)]
            out.append(_case(f"stream of two key columns grouped by {shape} - {p} partition(s)", statements,
                             inputs, outputs, moves, "JSON"))
    return out


def windowed_source_cases() -> list[dict[str, Any]]:
    """A windowed stream's groups always move: its records are placed by key and window."""
    out = []
    for shape, select, group_by, group in (("its key", "K, COUNT(*) AS C", "K", lambda k, v: k),
                                           ("a value column", "V, COUNT(*) AS C", "V", lambda k, v: v)):
        for p in PARTITIONS:
            statements = [
                "CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', "
                f"WINDOW_TYPE='TUMBLING', WINDOW_SIZE='1 SECOND', partitions={p});",
                f"CREATE TABLE OUTPUT AS SELECT {select} FROM S GROUP BY {group_by};",
            ]
            inputs = [{"topic": "s", "key": k, "value": {"V": v}, "timestamp": ts,
                       "window": {"start": 0, "end": 1000, "type": "time"}} for k, v, ts in RECORDS]
            outputs = [{"topic": "OUTPUT", "key": g, "value": {"C": n}, "timestamp": ts}
                       for (g, n), (_, _, ts) in zip(_counts([group(k, v) for k, v, _ in RECORDS]), RECORDS,
                                                     strict=True)]
            out.append(_case(f"windowed stream grouped by {shape} - {p} partition(s)", statements, inputs,
                             outputs, True, "KAFKA"))
    return out


def join_cases() -> list[dict[str, Any]]:
    out = []
    for p in PARTITIONS:
        stream_table = [
            f"CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', partitions={p});",
            f"CREATE TABLE T (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='t', value_format='JSON', partitions={p});",
        ]
        table_rows = [{"topic": "t", "key": k, "value": {"X": k % 2}, "timestamp": 0} for k in (1, 2, 3)]
        stream_rows = [{"topic": "s", "key": k, "value": {"V": v}, "timestamp": ts} for k, v, ts in RECORDS]
        for shape, select, group_by, group, moves in (
                ("the stream's join column", "S.K AS K, COUNT(*) AS C", "S.K", lambda k: k, False),
                ("the table's join column", "T.ID AS ID, COUNT(*) AS C", "T.ID", lambda k: k, False),
                ("a table value column", "T.X AS X, COUNT(*) AS C", "T.X", lambda k: k % 2, True)):
            statements = [*stream_table,
                          f"CREATE TABLE OUTPUT AS SELECT {select} FROM S JOIN T ON S.K = T.ID GROUP BY {group_by};"]
            outputs = [{"topic": "OUTPUT", "key": g, "value": {"C": n}, "timestamp": ts}
                       for (g, n), (_, _, ts) in zip(_counts([group(k) for k, _, _ in RECORDS]), RECORDS,
                                                     strict=True)]
            out.append(_case(f"stream-table join grouped by {shape} - {p} partition(s)", statements,
                             table_rows + stream_rows, outputs, moves, "KAFKA"))
        three = [
            f"CREATE STREAM A (ID INT KEY, X INT) WITH (kafka_topic='a', value_format='JSON', partitions={p});",
            f"CREATE TABLE B (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='JSON', partitions={p});",
            f"CREATE TABLE C (ID INT PRIMARY KEY, Z INT) WITH (kafka_topic='c', value_format='JSON', partitions={p});",
        ]
        rows = [{"topic": "b", "key": 1, "value": {"Y": 1}, "timestamp": 0},
                {"topic": "c", "key": 1, "value": {"Z": 5}, "timestamp": 0},
                {"topic": "a", "key": 1, "value": {"X": 1}, "timestamp": 1}]
        for shape, criteria, group_by, key, moves in (
                ("the first join's right column", "A.ID = C.ID", "B.ID", 1, False),
                ("the last join's column, joined on the first join's right column", "B.ID = C.ID", "C.ID", 1, False),
                ("a value column", "B.ID = C.ID", "C.Z", 5, True)):
            statements = [*three, f"CREATE TABLE OUTPUT AS SELECT {group_by} AS G, COUNT(*) AS N FROM A "
                                  f"JOIN B ON A.ID = B.ID JOIN C ON {criteria} GROUP BY {group_by};"]
            outputs = [{"topic": "OUTPUT", "key": key, "value": {"N": 1}, "timestamp": 1}]
            out.append(_case(f"three-way join grouped by {shape} - {p} partition(s)", statements, rows, outputs,
                             moves, "KAFKA"))
        statements = [
            f"CREATE TABLE L (ID INT PRIMARY KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions={p});",
            f"CREATE TABLE R (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions={p});",
            "CREATE TABLE OUTPUT AS SELECT L.ID AS ID, COUNT(*) AS C FROM L FULL OUTER JOIN R ON L.ID = R.ID "
            "GROUP BY L.ID;",
        ]
        inputs = [{"topic": "l", "key": k, "value": {"A": k}, "timestamp": ts} for k, _, ts in RECORDS]
        outputs = [{"topic": "OUTPUT", "key": k, "value": {"C": 1}, "timestamp": ts} for k, _, ts in RECORDS]
        out.append(_case(f"full outer join (synthetic key) grouped by a join column - {p} partition(s)",
                         statements, inputs, outputs, True, "KAFKA"))
        # a table-table join's result is a table: grouped through KTable.groupBy, by its key as well
        tables = [
            f"CREATE TABLE L (ID INT PRIMARY KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions={p});",
            f"CREATE TABLE R (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions={p});",
        ]
        rows = [{"topic": "r", "key": k, "value": {"B": k}, "timestamp": 0} for k, _, _ in RECORDS]
        rows += [{"topic": "l", "key": k, "value": {"A": k}, "timestamp": ts} for k, _, ts in RECORDS]
        for kind, side in (("INNER", "L"), ("LEFT", "R")):
            join = "JOIN" if kind == "INNER" else "LEFT JOIN"
            statements = [*tables, f"CREATE TABLE OUTPUT AS SELECT {side}.ID AS ID, COUNT(*) AS C FROM L {join} R "
                                   f"ON L.ID = R.ID GROUP BY {side}.ID;"]
            outputs = [{"topic": "OUTPUT", "key": k, "value": {"C": 1}, "timestamp": ts} for k, _, ts in RECORDS]
            out.append(_case(f"table-table {kind} join grouped by the {side} join column - {p} partition(s)",
                             statements, rows, outputs, True, "KAFKA"))
        # a stream join grouped by the join column its projection names is grouped by key: a row padded on that
        # side groups under the join key (groupByKey runs no group-by mapper)
        streams = [
            f"CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions={p});",
            f"CREATE STREAM R (ID INT KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions={p});",
        ]
        rows = [{"topic": "r", "key": 1, "value": {"B": 1}, "timestamp": 0},
                {"topic": "l", "key": 1, "value": {"A": 1}, "timestamp": 10},
                {"topic": "l", "key": 2, "value": {"A": 2}, "timestamp": 20}]
        statements = [*streams, "CREATE TABLE OUTPUT AS SELECT R.ID AS ID, COUNT(*) AS C, COUNT(R.B) AS CB FROM L "
                                "LEFT JOIN R WITHIN 1 MINUTE ON L.ID = R.ID GROUP BY R.ID;"]
        outputs = [{"topic": "OUTPUT", "key": 1, "value": {"C": 1, "CB": 1}, "timestamp": 10},
                   {"topic": "OUTPUT", "key": 2, "value": {"C": 1, "CB": 0}, "timestamp": 20}]
        out.append(_case(f"stream-stream LEFT join grouped by the right join column - {p} partition(s)",
                         statements, rows, outputs, False, "KAFKA"))
        statements = [*streams, "CREATE TABLE OUTPUT AS SELECT R.ID AS ID, COUNT(*) AS C FROM L LEFT JOIN R WITHIN "
                                "1 MINUTE ON L.ID = R.ID WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY R.ID;"]
        outputs = [{"topic": "OUTPUT", "key": 1, "value": {"C": 1}, "timestamp": 10,
                    "window": {"start": 0, "end": 1000, "type": "time"}},
                   {"topic": "OUTPUT", "key": 2, "value": {"C": 1}, "timestamp": 20,
                    "window": {"start": 0, "end": 1000, "type": "time"}}]
        out.append(_case(f"stream-stream LEFT join, windowed, grouped by the right join column - {p} partition(s)",
                         statements, rows, outputs, False, "KAFKA"))
        three = [
            f"CREATE STREAM A (ID INT KEY, X INT) WITH (kafka_topic='a', value_format='JSON', partitions={p});",
            f"CREATE TABLE B (ID INT PRIMARY KEY, Y INT) WITH (kafka_topic='b', value_format='JSON', partitions={p});",
            f"CREATE TABLE C (ID INT PRIMARY KEY, Z INT) WITH (kafka_topic='c', value_format='JSON', partitions={p});",
        ]
        rows = [{"topic": "b", "key": 1, "value": {"Y": 1}, "timestamp": 0},
                {"topic": "b", "key": 2, "value": {"Y": 2}, "timestamp": 0},
                {"topic": "c", "key": 1, "value": {"Z": 5}, "timestamp": 0},
                {"topic": "a", "key": 1, "value": {"X": 1}, "timestamp": 1},
                {"topic": "a", "key": 2, "value": {"X": 2}, "timestamp": 2}]
        statements = [*three, "CREATE TABLE OUTPUT AS SELECT C.ID AS G, COUNT(*) AS N, COUNT(C.Z) AS NZ FROM A "
                              "JOIN B ON A.ID = B.ID LEFT JOIN C ON A.ID = C.ID GROUP BY C.ID;"]
        outputs = [{"topic": "OUTPUT", "key": 1, "value": {"N": 1, "NZ": 1}, "timestamp": 1},
                   {"topic": "OUTPUT", "key": 2, "value": {"N": 1, "NZ": 0}, "timestamp": 2}]
        out.append(_case(f"three-way join grouped by the padded last join's column - {p} partition(s)",
                         statements, rows, outputs, False, "KAFKA"))
    return out


INTERNAL_KEY_FORMATS = ("KAFKA", "DELIMITED", "JSON", "JSON_SR", "AVRO", "PROTOBUF")
WRAPPED_KEYS = ("PROTOBUF",)  # a protobuf key is a message of one field
WINDOWS = {"TUMBLING": "TUMBLING (SIZE 1 SECOND)", "HOPPING": "HOPPING (SIZE 2 SECONDS, ADVANCE BY 1 SECOND)",
           "SESSION": "SESSION (1 SECOND)"}
AVRO_NAMESPACE = "io.confluent.ksql.avro_schemas"
CHANGELOG = "_confluent-ksql-some.ksql.service.idquery_CTAS_OUTPUT_0-Aggregate-Aggregate-Materialize-changelog"


def _key_format(fmt: str, window: str | None) -> dict[str, Any]:
    """An internal topic's key format as ksqlDB's plan step has it: one key column is unwrapped by the formats
    that could do either; the store of a windowed aggregation is windowed by its WINDOW."""
    out: dict[str, Any] = {"format": fmt}
    if fmt in ("JSON", "JSON_SR", "AVRO"):
        out["features"] = ["UNWRAP_SINGLES"]
    if fmt == "AVRO":  # the property comes with the source's key format: its key schema's name
        out["properties"] = {"fullSchemaName": f"{AVRO_NAMESPACE}.SKey"}
    if window is not None:
        out["windowInfo"] = {"type": window, **({"size": 1 if window == "TUMBLING" else 2}
                                                if window != "SESSION" else {})}
    return out


def _value(v: int, fmt: str, name: str) -> Any:
    return str(v) if fmt == "DELIMITED" else {name: v}


def internal_format_cases() -> list[dict[str, Any]]:
    """The repartition and changelog topics of a GROUP BY, their key and value formats listed in full."""
    out = []
    shapes = [(k, "JSON", None) for k in INTERNAL_KEY_FORMATS]
    shapes += [(k, "JSON", w) for k in ("KAFKA", "JSON", "PROTOBUF") for w in WINDOWS]
    shapes += [("KAFKA", v, None) for v in ("DELIMITED", "AVRO")]
    for key_format, value_format, window in shapes:
        clause = f" WINDOW {WINDOWS[window]}" if window else ""
        statements = [
            f"CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', key_format='{key_format}', "
            f"value_format='{value_format}');",
            f"CREATE TABLE OUTPUT AS SELECT V, COUNT(*) AS C FROM S{clause} GROUP BY V;",
        ]
        records = ((1, 10, 0), (2, 20, 1), (3, 30, 2))  # a group each: no session merges

        def key(v: int, key_format: str = key_format) -> Any:
            wrapped = {"K": v} if key_format in WRAPPED_KEYS else v
            return _key(wrapped, key_format)

        def out_key(v: int, key_format: str = key_format) -> Any:
            return _key({"V": v} if key_format in WRAPPED_KEYS else v, key_format)

        inputs = [{"topic": "s", "key": key(k), "value": _value(v, value_format, "V"), "timestamp": ts}
                  for k, v, ts in records]
        outputs = []
        for _, v, ts in records:
            o: dict[str, Any] = {"topic": "OUTPUT", "key": out_key(v), "value": _value(1, value_format, "C"),
                                 "timestamp": ts}
            if window == "SESSION":
                o["window"] = {"start": ts, "end": ts, "type": "session"}
            elif window is not None:
                o["window"] = {"start": 0, "end": 1000 if window == "TUMBLING" else 2000, "type": "time"}
            outputs.append(o)
        topics = [{"name": TOPIC, "keyFormat": _key_format(key_format, None), "valueFormat": {"format": value_format}},
                  {"name": CHANGELOG, "keyFormat": _key_format(key_format, window),
                   "valueFormat": {"format": value_format}}]
        name = f"internal topics' formats - {key_format} key, {value_format} value" + (f", {window}" if window else "")
        out.append({"name": name, "statements": statements, "inputs": inputs, "outputs": outputs,
                    "post": {"topics": {"topics": topics}}})
    return out


def internal_avro_record_key_cases() -> list[dict[str, Any]]:
    """An internal topic's AVRO key of several columns is a record named by the key format's fullSchemaName,
    the source's ``<Source>Key`` (registered when the query creates the topic)."""
    out = []
    for shape, group_by in (("two value columns", "V, W"), ("a struct", "STRUCT(V := V, W := W)")):
        select = "V, W" if "," in group_by and "STRUCT" not in group_by else f"{group_by} AS G"
        statements = [
            "CREATE STREAM S (K INT KEY, V INT, W INT) WITH (kafka_topic='s', key_format='AVRO', value_format='JSON');",
            f"CREATE TABLE OUTPUT AS SELECT {select}, COUNT(*) AS C FROM S GROUP BY {group_by};",
        ]
        fields = [{"name": n, "type": ["null", "int"], "default": None} for n in ("V", "W")]
        record = {"type": "record", "name": "SKey", "namespace": AVRO_NAMESPACE, "fields": fields,
                  "connect.name": f"{AVRO_NAMESPACE}.SKey"}
        # one STRUCT column is unwrapped (the record is the struct); two columns make the record
        key_format: dict[str, Any] = {"format": "AVRO", "properties": {"fullSchemaName": f"{AVRO_NAMESPACE}.SKey"},
                                      **({"features": ["UNWRAP_SINGLES"]} if "STRUCT" in group_by else {})}
        out.append({
            "name": f"internal AVRO key of {shape} is a record named after the source",
            "statements": statements,
            "inputs": [{"topic": "s", "key": 1, "value": {"V": 1, "W": 2}, "timestamp": 0}],
            "outputs": [{"topic": "OUTPUT", "key": {"V": 1, "W": 2}, "value": {"C": 1}, "timestamp": 0}],
            "post": {"topics": {"topics": [
                {"name": name, "keyFormat": key_format, "keySchema": record, "valueFormat": {"format": "JSON"}}
                for name in (TOPIC, CHANGELOG)]}},
        })
    return out


def cases() -> list[dict[str, Any]]:
    return (single_key_cases() + keyless_cases() + multi_key_cases() + windowed_source_cases() + join_cases()
            + internal_format_cases() + internal_avro_record_key_cases())


if __name__ == "__main__":
    (HERE / "group-by-repartition.json").write_text(json.dumps({"tests": cases()}, indent=1) + "\n")
