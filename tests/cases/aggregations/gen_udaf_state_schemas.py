"""Generates udaf-state-schemas.json: the state (aggregate) type each built-in aggregate keeps in the aggregate
store, as the schema registered for ``Aggregate-Aggregate-Materialize-changelog`` shows it (AVRO value format).

The state types are ksqlDB's UDAF aggregate schemas (from memory of ksqlDB's AverageUdaf,
StandardDeviationSampUdaf, StandardDeviationSampleUdaf, CorrelationUdaf, Earliest/LatestByOffset and the
built-in COUNT/SUM/MIN/MAX kudafs):

* COUNT: BIGINT; SUM, MIN, MAX: the argument's type;
* AVG: ``STRUCT<SUM t, COUNT BIGINT>`` - t the INT/BIGINT/DOUBLE overload's type;
* STDDEV_SAMP, STDDEV_SAMPLE: ``STRUCT<SUM t, COUNT BIGINT, M2 DOUBLE>`` - t as AVG's; a DECIMAL argument
  is cast to the DOUBLE overload;
* CORRELATION: ``STRUCT<X_SUM, Y_SUM, X_SQUARED_SUM, Y_SQUARED_SUM, XY_SUM DOUBLE, COUNT BIGINT>`` (the
  DOUBLE, DOUBLE overload whatever the numeric arguments);
* EARLIEST_BY_OFFSET, LATEST_BY_OFFSET: ``STRUCT<SEQ BIGINT, VAL t>``;
* ATTR: ``ARRAY<STRUCT<VALUE t, COUNT INTEGER>>`` - each distinct value with its count (from memory of
  ksqlDB's Attr UDAF);
* TOPK(col, k): ``ARRAY<t>``; TOPK(col, other..., k): its result type, ``ARRAY<STRUCT<sort_col t, col0 ...>>``
  (from memory of ksqlDB's TopkKudaf: lower-case field names, as in the result).

The same over a stream, a TUMBLING windowed stream aggregation and (for the aggregates that can undo) a
table source. The store's row is the required columns (``KSQL_INTERNAL_COL_<n>``: GROUP BY columns, then the
aggregate arguments' columns, each once) followed by ``KSQL_AGG_VARIABLE_<n>`` per call.

Run ``python tests/cases/aggregations/gen_udaf_state_schemas.py`` after changing this file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
APP = "_confluent-ksql-some.ksql.service.idquery_"
AVRO = {"INT": "int", "BIGINT": "long", "DOUBLE": "double", "STRING": "string", "BOOLEAN": "boolean"}
SQL = {"INT": "INTEGER"}
NUMERIC = ("INT", "BIGINT", "DOUBLE")


def avro_type(name: str, t: Any, parent: str) -> Any:
    """The nullable AVRO type of a field ``name`` of record ``parent``."""
    if isinstance(t, dict):  # an ARRAY: its elements nullable, a STRUCT element named as the field's record
        return ["null", {"type": "array", "items": avro_type(name, t["ARRAY"], parent)}]
    return avro_field(name, t, parent)["type"]


def avro_field(name: str, t: Any, parent: str) -> dict[str, Any]:
    if isinstance(t, dict):
        return {"name": name, "type": avro_type(name, t, parent), "default": None}
    if isinstance(t, list):  # a STRUCT: a nested record named after its parent and field
        inner = avro_record(t, f"{parent}_{name}")
        return {"name": name, "type": ["null", inner], "default": None}
    if isinstance(t, tuple):  # DECIMAL(p, s)
        p, s = t
        dec = {"type": "bytes", "scale": s, "precision": p, "connect.version": 1,
               "connect.parameters": {"scale": str(s), "connect.decimal.precision": str(p)},
               "connect.name": "org.apache.kafka.connect.data.Decimal", "logicalType": "decimal"}
        return {"name": name, "type": ["null", dec], "default": None}
    return {"name": name, "type": ["null", AVRO[t]], "default": None}


def avro_record(columns: list[tuple[str, Any]], name: str = "KsqlDataSourceSchema") -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": "io.confluent.ksql.avro_schemas",
            "fields": [avro_field(n, t, name) for n, t in columns],
            "connect.name": f"io.confluent.ksql.avro_schemas.{name}"}


def state(fn: str, types: list[Any]) -> Any:
    """The aggregate's state type (list = STRUCT fields) for its column arguments' types."""
    t = types[0] if types else None
    overload = t if t in ("INT", "BIGINT") else "DOUBLE"
    if fn == "COUNT":
        return "BIGINT"
    if fn in ("SUM", "MIN", "MAX"):
        return t
    if fn == "AVG":
        return [("SUM", overload), ("COUNT", "BIGINT")]
    if fn in ("STDDEV_SAMP", "STDDEV_SAMPLE"):
        return [("SUM", overload), ("COUNT", "BIGINT"), ("M2", "DOUBLE")]
    if fn == "CORRELATION":
        sums = ["X_SUM", "Y_SUM", "X_SQUARED_SUM", "Y_SQUARED_SUM", "XY_SUM"]
        return [(s, "DOUBLE") for s in sums] + [("COUNT", "BIGINT")]
    if fn in ("EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET"):
        return [("SEQ", "BIGINT"), ("VAL", t)]
    if fn == "ATTR":
        return {"ARRAY": [("VALUE", t), ("COUNT", "INT")]}
    if fn == "TOPK":
        return result_state(fn, types)
    raise ValueError(fn)


def result_state(fn: str, types: list[Any]) -> Any:
    """TOPK's result (and state) type: ARRAY<t>, or ARRAY<STRUCT<sort_col t, col0 ...>> with other columns."""
    if len(types) == 1:
        return {"ARRAY": types[0]}
    return {"ARRAY": [("sort_col", types[0])] + [(f"col{i}", t) for i, t in enumerate(types[1:])]}


def sql_type(t: Any) -> str:
    if isinstance(t, tuple):
        return f"DECIMAL({t[0]}, {t[1]})"
    return t


def col_type(t: Any) -> str:
    """The type as DESCRIBE writes it (post.sources schema)."""
    if isinstance(t, tuple):
        return f"DECIMAL({t[0]}, {t[1]})"
    return SQL.get(t, t)


def variance(xs: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    m = sum(xs) / n
    return sum((x - m) ** 2 for x in xs) / (n - 1)


def result(fn: str, xs: list[Any], ys: list[Any], n_args: int = 1) -> Any:
    """The result after the values ``xs`` (and ``ys``) of one group, or None to leave outputs unchecked."""
    if fn == "STDDEV_SAMP":
        return variance([float(x) for x in xs])
    if fn == "STDDEV_SAMPLE":
        return math.sqrt(variance([float(x) for x in xs]))
    if fn == "AVG":
        return sum(xs) / len(xs)
    if fn == "SUM":
        return sum(xs)
    if fn == "COUNT":
        return len(xs)
    if fn == "EARLIEST_BY_OFFSET":
        return xs[0]
    if fn == "LATEST_BY_OFFSET":
        return xs[-1]
    if fn == "MIN":
        return min(xs)
    if fn == "MAX":
        return max(xs)
    if fn == "ATTR":
        return xs[0] if len(set(xs)) == 1 else None
    if fn == "TOPK":
        rows = sorted(zip(xs, ys, strict=True), reverse=True)[:2]
        return [x for x, _ in rows] if n_args == 1 else [{"sort_col": x, "col0": y} for x, y in rows]
    return NAN  # CORRELATION of one pair is NaN: only its schema is checked


NAN = object()


def result_type(fn: str, t: Any) -> str:
    if fn in ("AVG", "STDDEV_SAMP", "STDDEV_SAMPLE", "CORRELATION"):
        return "DOUBLE"
    if fn == "COUNT":
        return "BIGINT"
    if fn == "TOPK":
        return "ARRAY<" + col_type(t) + ">"
    return col_type(t)


CALLS: list[tuple[str, list[Any]]] = (
    [(fn, [t]) for fn in ("STDDEV_SAMP", "STDDEV_SAMPLE", "AVG") for t in (*NUMERIC, (4, 1))]
    + [("CORRELATION", [a, b]) for a, b in (("DOUBLE", "DOUBLE"), ("INT", "BIGINT"), ((4, 1), "INT"))]
    + [(fn, [t]) for fn in ("SUM", "MIN", "EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET") for t in ("INT", "DOUBLE")]
    + [("COUNT", ["STRING"])]
    + [("ATTR", [t]) for t in ("INT", "BIGINT", "DOUBLE", "STRING", "BOOLEAN")]
    + [("TOPK", ["INT"]), ("TOPK", ["DOUBLE", "STRING"])]
)
UNDO = {"STDDEV_SAMP", "STDDEV_SAMPLE", "AVG", "CORRELATION", "SUM", "COUNT", "ATTR"}
VALUES = {"INT": [1, 3], "BIGINT": [10, 40], "DOUBLE": [1.5, 4.5], "STRING": ["a", "b"], "BOOLEAN": [True, False]}
LITERALS = {"TOPK": ", 2"}


def values(t: Any) -> list[Any]:
    return [1.5, 2.5] if isinstance(t, tuple) else VALUES[t]


def case(fn: str, types: list[Any], shape: str) -> dict[str, Any]:
    names = ["X", "Y"][: len(types)]
    cols = ", ".join(f"{n} {sql_type(t)}" for n, t in zip(names, types, strict=True))
    label = ", ".join(col_type(t) for t in types)
    table = shape == "table"
    window = " WINDOW TUMBLING (SIZE 10 SECONDS)" if shape == "windowed" else ""
    if table:
        src = (f"CREATE TABLE S (ID BIGINT PRIMARY KEY, G INT, {cols}) "
               "WITH (kafka_topic='s', format='AVRO', partitions=1);")
    else:
        src = f"CREATE STREAM S (G INT KEY, {cols}) WITH (kafka_topic='s', format='AVRO', partitions=1);"
    args = ", ".join(names) + LITERALS.get(fn, "")
    stmt = f"CREATE TABLE T AS SELECT G, {fn}({args}) AS R FROM S{window} GROUP BY G;"
    xs, ys = values(types[0]), values(types[-1])
    inputs, outputs = [], []
    for i, x in enumerate(xs):
        value: dict[str, Any] = {"X": x}
        if len(types) > 1:
            value["Y"] = ys[i]
        rec: dict[str, Any] = {"topic": "s", "key": i + 1 if table else 7, "timestamp": 1000 * (i + 1)}
        if table:
            value["G"] = 7
        rec["value"] = value
        inputs.append(rec)
        r = result(fn, xs[: i + 1], ys[: i + 1], len(types))
        if r is not NAN:
            out: dict[str, Any] = {"topic": "T", "key": 7, "value": {"R": r}, "timestamp": 1000 * (i + 1)}
            if window:
                out["window"] = {"start": 0, "end": 10000, "type": "time"}
            outputs.append(out)
    # required columns: the GROUP BY column, then the arguments' columns (a table's key is not read)
    required: list[tuple[str, Any]] = [("G", "INT")] + list(zip(names, types, strict=True))
    store = [(f"KSQL_INTERNAL_COL_{i}", t) for i, (_, t) in enumerate(required)]
    store.append(("KSQL_AGG_VARIABLE_0", state(fn, types)))
    topic = f"{APP}CTAS_T_0-Aggregate-Aggregate-Materialize-changelog"
    schema = "G INTEGER KEY, R " + result_type(fn, types[0] if fn != "CORRELATION" else "DOUBLE")
    if fn == "TOPK" and len(types) > 1:
        schema = ("G INTEGER KEY, R ARRAY<STRUCT<`sort_col` " + col_type(types[0]) + ", "
                  + ", ".join(f"`col{i}` {col_type(t)}" for i, t in enumerate(types[1:])) + ">>")
    return {
        "name": f"{fn}({label}) over a {shape}: its state in the aggregate store",
        "statements": [src, stmt],
        "inputs": inputs,
        "outputs": outputs,
        "post": {
            "sources": [{"name": "T", "type": "table", "schema": schema}],
            "topics": {"topics": [{"name": topic, "valueFormat": {"format": "AVRO"},
                                   "valueSchema": avro_record(store)}]},
        },
    }


def refused(fn: str, types: list[Any]) -> dict[str, Any]:
    names = ["X", "Y"][: len(types)]
    cols = ", ".join(f"{n} {sql_type(t)}" for n, t in zip(names, types, strict=True))
    return {
        "name": f"{fn} over a table is refused (no undo)",
        "statements": [f"CREATE TABLE S (ID BIGINT PRIMARY KEY, G INT, {cols}) "
                       "WITH (kafka_topic='s', format='AVRO', partitions=1);",
                       f"CREATE TABLE T AS SELECT G, {fn}({', '.join(names)}{LITERALS.get(fn, '')}) AS R "
                       "FROM S GROUP BY G;"],
        "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                              "message": f"The aggregation function {fn} cannot be applied to a table source, "
                                         "only to a stream source."},
    }


def main() -> None:
    tests = []
    for fn, types in CALLS:
        for shape in ("stream", "windowed", "table"):
            if shape == "table" and fn not in UNDO:
                continue
            tests.append(case(fn, types, shape))
    for fn in ("MIN", "EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET", "TOPK"):
        tests.append(refused(fn, ["INT"]))
    doc = {"comments": ["Generated by gen_udaf_state_schemas.py - edit that file, not this one."],
           "tests": tests}
    (HERE / "udaf-state-schemas.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
