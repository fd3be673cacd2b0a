"""Generates probes of every built-in aggregate over its type scope (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_udaf_scope.py`` to rewrite ``udaf-scope.json`` next to it. Each
aggregate is modelled below from ksqlDB's documented rules, as a small accumulator (``init``/``add``/
``undo``/``result``), independent of the engine's code:

* stream aggregation of every accepted input type, with NULL inputs, in every value format the result type
  fits (JSON, AVRO, PROTOBUF, JSON_SR; DELIMITED only when the aggregate's state and result are primitive,
  otherwise the statement is refused for the intermediate type);
* aggregation of a TABLE (undo): inserts, an update within a group, a move to another group, a NULL value
  and tombstones down to an empty group, for every aggregate that can undo; the others are refused for a
  table source;
* session windows merging two sessions that arrived in the other order than they end (each aggregate's
  merge: COLLECT_LIST keeps the sessions' order, EARLIEST/LATEST_BY_OFFSET pick by arrival);
* the result column's type (DESCRIBE via ``post``): SUM keeps its argument's type (DECIMAL precision and
  scale too), AVG/STDDEV_*/CORRELATION are DOUBLE, COUNT/COUNT_DISTINCT BIGINT, collections ARRAY/MAP.

PROTOBUF (proto3, no wrappers) reads a NULL scalar field as its default, both in inputs and in results,
so the model sees and writes defaults there (BYTES columns are left out of PROTOBUF for that reason). DECIMAL
results are written with their scale (``10.50``), as the sink schema holds them; DELIMITED text follows the
writer's quoting (a first field not starting with a letter or digit is quoted).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

VALUE_FORMATS = ["JSON", "AVRO", "PROTOBUF", "JSON_SR", "DELIMITED"]
PRIMITIVE = ("INT", "BIGINT", "DOUBLE", "STRING", "BOOLEAN", "DECIMAL(4, 2)", "DATE", "TIME", "TIMESTAMP",
             "BYTES")
SCHEMA_TYPE = {"INT": "INTEGER", "DECIMAL(4, 2)": "DECIMAL(4, 2)"}
# proto3 scalars without wrappers: a NULL reads back as the default (DATE, TIME, TIMESTAMP and DECIMAL are
# messages and stay NULL)
PROTO_DEFAULT = {"INT": 0, "BIGINT": 0, "DOUBLE": 0.0, "STRING": "", "BOOLEAN": False}
PROTO_RESULT_DEFAULT = {"INTEGER": 0, **PROTO_DEFAULT}


def schema_type(t: str) -> str:
    return SCHEMA_TYPE.get(t, t)


@dataclass
class Acc:
    """One aggregate's model: ``add``/``undo`` of one input value (a tuple for two arguments)."""

    init: Callable[[], Any]
    add: Callable[[Any, Any], Any]
    result: Callable[[Any], Any]
    undo: Callable[[Any, Any], Any] | None = None


def _count() -> Acc:
    return Acc(lambda: 0, lambda a, v: a + (v is not None), lambda a: a, lambda a, v: a - (v is not None))


def _count_rows() -> Acc:
    return Acc(lambda: 0, lambda a, v: a + 1, lambda a: a, lambda a, v: a - 1)


def _sum(zero: Any) -> Acc:
    return Acc(lambda: zero, lambda a, v: a if v is None else a + v, lambda a: a,
               lambda a, v: a if v is None else a - v)


def _avg() -> Acc:
    def result(a: tuple[Any, int]) -> float:
        return 0.0 if a[1] == 0 else float(Fraction(a[0]) / a[1])
    return Acc(lambda: (0, 0), lambda a, v: a if v is None else (a[0] + v, a[1] + 1), result,
               lambda a, v: a if v is None else (a[0] - v, a[1] - 1))


def _variance(sqrt: bool) -> Acc:
    """The sample variance of the non-NULL values (0.0 below two of them); STDDEV_SAMPLE its square root.
    The values are picked so every step is exact in binary floating point."""
    def result(a: tuple[Any, ...]) -> float:
        vals = list(a)
        if len(vals) < 2:
            return 0.0
        mean = Fraction(sum(vals)) / len(vals)
        var = sum((Fraction(v) - mean) ** 2 for v in vals) / (len(vals) - 1)
        return float(var) ** 0.5 if sqrt else float(var)
    return Acc(lambda: (), lambda a, v: a if v is None else (*a, v), result,
               lambda a, v: a if v is None else _without_last(a, v))


def _without_last(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
    """A tuple without the last occurrence of ``v`` (unchanged if absent)."""
    items = list(a)
    for i in range(len(items) - 1, -1, -1):
        if items[i] == v:
            del items[i]
            break
    return tuple(items)


def _collect_list() -> Acc:
    # NULLs are collected; an undo removes the value's last occurrence
    return Acc(lambda: (), lambda a, v: (*a, v), list, _without_last)


def _histogram() -> Acc:
    def add(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
        return a if v is None else (*a, v)

    def result(a: tuple[Any, ...]) -> dict[str, int]:
        out: dict[str, int] = {}
        for v in a:
            out[v] = out.get(v, 0) + 1
        return out
    return Acc(lambda: (), add, result, lambda a, v: a if v is None else _without_last(a, v))


def _attr() -> Acc:
    """The one value every row of the group holds (NULL counts as a value), else NULL."""
    def result(a: tuple[Any, ...]) -> Any:
        distinct = {repr(v) for v in a}
        return a[0] if len(distinct) == 1 else None
    return Acc(lambda: (), lambda a, v: (*a, v), result, _without_last)


def _sum_list(zero: Any) -> Acc:
    def total(v: list[Any] | None) -> Any:
        return sum((x for x in (v or []) if x is not None), zero)
    return Acc(lambda: zero, lambda a, v: a + total(v), lambda a: a, lambda a, v: a - total(v))


def _min_max(pick: Callable[..., Any]) -> Acc:
    def add(a: Any, v: Any) -> Any:
        return a if v is None else v if a is None else pick(a, v)
    return Acc(lambda: None, add, lambda a: a)


def _count_distinct() -> Acc:
    return Acc(lambda: (), lambda a, v: a if v is None or v in a else (*a, v), len)


def _collect_set() -> Acc:
    return Acc(lambda: (), lambda a, v: a if v in a else (*a, v), list)


def _by_offset(earliest: bool, n: int | None, ignore_nulls: bool) -> Acc:
    def add(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
        if v is None and ignore_nulls:
            return a
        if n is None:
            return a if earliest and a else (v,)
        if earliest:
            return a if len(a) >= n else (*a, v)
        return (*a, v)[-n:]

    def result(a: tuple[Any, ...]) -> Any:
        if n is None:
            return a[0] if a else None
        return list(a)
    return Acc(lambda: (), add, result)


def _topk(k: int, distinct: bool) -> Acc:
    def add(a: tuple[Any, ...], v: Any) -> tuple[Any, ...]:
        if v is None or (distinct and v in a):
            return a
        return tuple(sorted((*a, v), reverse=True)[:k])
    return Acc(lambda: (), add, list)


@dataclass
class Agg:
    """An aggregate call over one column type: the SQL, the result type and the model."""

    label: str
    sql: str
    col_type: str
    out_type: str
    values: list[Any]  # the stream's V values (NULLs included), in the case's JSON spelling
    model: Callable[[], Acc]
    primitive_state: bool  # DELIMITED can hold the state and the result
    to_model: Callable[[Any], Any] = field(default=lambda v: v)  # a JSON spelling -> the model's value
    formats: list[str] = field(default_factory=lambda: list(VALUE_FORMATS))


def _dec(v: Any) -> Any:
    return None if v is None else Decimal(str(v))


def _dec_out(v: Any) -> Any:
    return None if v is None else float(v) if isinstance(v, Decimal) else v


def stream_aggs() -> list[Agg]:
    ints, bigs, dbls = [5, None, 3, 7], [5000000000, None, 3, 7], [1.5, None, -2.25, 4.0]
    decs = [1.25, None, 10.5, -3.75]
    strs, bools = ["m", None, "c", "m"], [True, None, False, True]
    dates, times, tss = [19000, None, 18000, 19500], [5000, None, 1000, 9000], [1600000000000, None, 1500000000000,
                                                                              1700000000000]
    blobs = ["AQI=", None, "Aw==", "AQI="]
    typed = {"INT": ints, "BIGINT": bigs, "DOUBLE": dbls, "DECIMAL(4, 2)": decs, "STRING": strs,
             "BOOLEAN": bools, "DATE": dates, "TIME": times, "TIMESTAMP": tss, "BYTES": blobs}
    aggs: list[Agg] = []
    for t, vals in typed.items():
        conv = _dec if t.startswith("DECIMAL") else (lambda v: v)
        aggs.append(Agg(f"COUNT of {t}", "COUNT(V)", t, "BIGINT", vals, _count, True, conv))
        aggs.append(Agg(f"COUNT(*) beside {t}", "COUNT(*)", t, "BIGINT", vals, _count_rows, True, conv))
        aggs.append(Agg(f"COUNT_DISTINCT of {t}", "COUNT_DISTINCT(V)", t, "BIGINT", vals, _count_distinct, False,
                        conv))
        aggs.append(Agg(f"COLLECT_LIST of {t}", "COLLECT_LIST(V)", t, f"ARRAY<{schema_type(t)}>", vals,
                        _collect_list, False, conv))
        aggs.append(Agg(f"COLLECT_SET of {t}", "COLLECT_SET(V)", t, f"ARRAY<{schema_type(t)}>", vals,
                        _collect_set, False, conv))
        aggs.append(Agg(f"ATTR of {t}", "ATTR(V)", t, schema_type(t), vals, _attr, False, conv))
        for earliest in (True, False):
            fn = "EARLIEST_BY_OFFSET" if earliest else "LATEST_BY_OFFSET"
            aggs.append(Agg(f"{fn} of {t}", f"{fn}(V)", t, schema_type(t), vals,
                            lambda e=earliest: _by_offset(e, None, True), False, conv))
            aggs.append(Agg(f"{fn} of {t} keeping NULLs", f"{fn}(V, false)", t, schema_type(t), vals,
                            lambda e=earliest: _by_offset(e, None, False), False, conv))
            aggs.append(Agg(f"{fn} of {t}, 2 of them", f"{fn}(V, 2)", t, f"ARRAY<{schema_type(t)}>", vals,
                            lambda e=earliest: _by_offset(e, 2, True), False, conv))
            aggs.append(Agg(f"{fn} of {t}, 2 of them keeping NULLs", f"{fn}(V, 2, false)", t,
                            f"ARRAY<{schema_type(t)}>", vals, lambda e=earliest: _by_offset(e, 2, False), False,
                            conv))
        if t != "BOOLEAN":
            aggs.append(Agg(f"MIN of {t}", "MIN(V)", t, schema_type(t), vals, lambda: _min_max(min), True, conv))
            aggs.append(Agg(f"MAX of {t}", "MAX(V)", t, schema_type(t), vals, lambda: _min_max(max), True, conv))
        if t in ("INT", "BIGINT", "DOUBLE", "DECIMAL(4, 2)"):
            zero: Any = Decimal("0") if t.startswith("DECIMAL") else 0.0 if t == "DOUBLE" else 0
            aggs.append(Agg(f"SUM of {t}", "SUM(V)", t, schema_type(t), vals, lambda z=zero: _sum(z), True, conv))
            aggs.append(Agg(f"AVG of {t}", "AVG(V)", t, "DOUBLE", vals, _avg, False, conv))
        if t in ("INT", "BIGINT", "DOUBLE", "STRING", "DECIMAL(4, 2)"):
            aggs.append(Agg(f"TOPK of {t}", "TOPK(V, 2)", t, f"ARRAY<{schema_type(t)}>", vals,
                            lambda: _topk(2, False), False, conv))
            aggs.append(Agg(f"TOPKDISTINCT of {t}", "TOPKDISTINCT(V, 2)", t, f"ARRAY<{schema_type(t)}>", vals,
                            lambda: _topk(2, True), False, conv))
    aggs.append(Agg("HISTOGRAM of STRING", "HISTOGRAM(V)", "STRING", "MAP<STRING, BIGINT>", strs, _histogram,
                    False))
    # values whose sample variance is exact in binary floating point at every step (see _variance)
    for t, vals in (("INT", [5, None, 3, 7]), ("BIGINT", [5, None, 3, 7]), ("DOUBLE", [5.0, None, 3.0, 7.0])):
        aggs.append(Agg(f"STDDEV_SAMP of {t}", "STDDEV_SAMP(V)", t, "DOUBLE", vals, lambda: _variance(False),
                        False))
        aggs.append(Agg(f"STDDEV_SAMPLE of {t}", "STDDEV_SAMPLE(V)", t, "DOUBLE", vals, lambda: _variance(True),
                        False))
    # a PROTOBUF array holds no NULL element (protobuf's builder refuses one: the harness cannot even write
    # such an input), so PROTOBUF gets the arrays without one
    for label, t, vals, formats in (
            ("", "ARRAY<INT>", [[1, 2], None, [], [3, None]], ["JSON", "AVRO", "JSON_SR"]),
            (" without NULL elements", "ARRAY<INT>", [[1, 2], None, [], [3, 4]], ["PROTOBUF"]),
            ("", "ARRAY<DOUBLE>", [[1.5], None, [0.25], []], ["JSON", "AVRO", "PROTOBUF", "JSON_SR"])):
        zero = 0.0 if "DOUBLE" in t else 0
        aggs.append(Agg(f"SUM_LIST of {t}{label}", "SUM_LIST(V)", t, t[6:-1].replace("INT", "INTEGER"), vals,
                        lambda z=zero: _sum_list(z), True, formats=formats))
    return aggs


def _value_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str) and v.startswith(_DEC):
        return v[len(_DEC):]
    return str(v)


def _first_field(text: str) -> str:
    """A DELIMITED record's first field as written: quoted unless it starts with a letter or digit."""
    return text if text == "" or text[0].isalnum() else f'"{text}"'


_DEC = "\u0000DEC"


def _out(v: Any) -> Any:
    """A model value in the case's JSON spelling (a DECIMAL as a marker ``_dump`` writes as a number)."""
    if isinstance(v, Decimal):
        return _DEC + str(v.quantize(Decimal("0.01")))
    if isinstance(v, list):
        return [_out(x) for x in v]
    if isinstance(v, dict):
        return {k: _out(x) for k, x in v.items()}
    return v


def _proto_read(agg: Agg, v: Any) -> Any:
    """How PROTOBUF reads a value back: a NULL primitive is its default, inside an array too."""
    if agg.col_type in PROTO_DEFAULT:
        return PROTO_DEFAULT[agg.col_type] if v is None else v
    return v


def _proto_result(agg: Agg | TableAgg, v: Any) -> Any:
    if v is None and agg.out_type in PROTO_RESULT_DEFAULT:
        return PROTO_RESULT_DEFAULT[agg.out_type]
    if v is None and agg.out_type.startswith("ARRAY"):
        return []
    if v is None and agg.out_type.startswith("MAP"):
        return {}
    return v


def _representable(agg: Agg, fmt: str) -> bool:
    """Whether the case can be written in this value format at all (a refusal is a case of its own)."""
    if fmt in ("JSON_SR", "PROTOBUF") and "BYTES" in agg.col_type:
        return False  # JSON_SR has no BYTES; a NULL BYTES in PROTOBUF (see the module docstring)
    if fmt == "PROTOBUF" and agg.out_type.startswith("ARRAY<ARRAY"):
        return False
    return fmt in agg.formats


def _delimited_refused(agg: Agg) -> bool:
    return not agg.primitive_state or agg.out_type.startswith(("ARRAY", "MAP", "STRUCT"))


INTERMEDIATE = ("One of the functions used in the statement has an intermediate type that the value format can "
                "not handle. Please remove the function or change the format.")


def stream_cases() -> list[dict[str, Any]]:
    cases = []
    for agg in stream_aggs():
        for fmt in VALUE_FORMATS:
            if not _representable(agg, fmt):
                continue
            if fmt == "DELIMITED" and agg.col_type.startswith("ARRAY"):
                continue
            statements = [
                f"CREATE STREAM INPUT (ID INT KEY, V {agg.col_type}) WITH (kafka_topic='input', "
                f"value_format='{fmt}');",
                f"CREATE TABLE OUTPUT AS SELECT ID, {agg.sql} AS R FROM INPUT GROUP BY ID;",
            ]
            name = f"{agg.label} into {fmt}"
            if fmt == "DELIMITED" and _delimited_refused(agg):
                cases.append({"name": name + " is refused for its intermediate type", "statements": statements,
                              "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                                    "message": INTERMEDIATE}})
                continue
            acc = agg.model()
            state = acc.init()
            inputs, outputs = [], []
            values = agg.values
            if fmt == "PROTOBUF" and agg.col_type not in PROTO_DEFAULT and agg.out_type.startswith("ARRAY"):
                # a repeated field holds no NULL element (what a NULL element does is left out)
                values = [v for v in values if v is not None]
            for i, v in enumerate(values):
                if fmt == "DELIMITED" and v is None:
                    # the zero bytes a lone NULL column writes are no CSV record ('No fields in record'):
                    # the record is dropped, the aggregate unchanged
                    inputs.append({"topic": "input", "key": 1, "value": "", "timestamp": i})
                    continue
                seen = _proto_read(agg, v) if fmt == "PROTOBUF" else v
                state = acc.add(state, agg.to_model(seen))
                res = _out(acc.result(state))
                if fmt == "PROTOBUF":
                    res = _proto_result(agg, res)
                value: Any = {"V": v}
                out: Any = {"R": res}
                if fmt == "DELIMITED":
                    value, out = _first_field(_value_text(v)), _first_field(_value_text(res))
                inputs.append({"topic": "input", "key": 1, "value": value, "timestamp": i})
                outputs.append({"topic": "OUTPUT", "key": 1, "value": out, "timestamp": i})
            cases.append({
                "name": name, "statements": statements, "inputs": inputs, "outputs": outputs,
                "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                      "schema": f"ID INTEGER KEY, R {agg.out_type}"}]},
            })
    return cases


# a source table's rows (key, (group, value) or None for a tombstone): two inserts, an update within the
# group, a move to another group, a NULL value, tombstones down to empty groups, a tombstone of no row
_TABLE_EVENTS: list[tuple[str, tuple[str, int | None] | None]] = [
    ("r1", ("a", 0)), ("r2", ("a", 1)), ("r1", ("a", 2)), ("r2", ("b", 1)), ("r3", ("b", None)), ("r1", None),
    ("r2", None), ("r3", None), ("r9", None)]


@dataclass
class TableAgg:
    label: str
    sql: str
    col_type: str
    out_type: str
    values: list[Any]  # the value a row's index (0, 1, 2 in _TABLE_EVENTS) stands for
    model: Callable[[], Acc]
    primitive_state: bool
    to_model: Callable[[Any], Any] = field(default=lambda v: v)
    formats: list[str] | None = None  # None: every value format


def table_aggs() -> list[TableAgg]:
    return [
        TableAgg("COUNT", "COUNT(V)", "INT", "BIGINT", [5, 3, 7], _count, True),
        TableAgg("COUNT(*)", "COUNT(*)", "INT", "BIGINT", [5, 3, 7], _count_rows, True),
        TableAgg("SUM of INT", "SUM(V)", "INT", "INTEGER", [5, 3, 7], lambda: _sum(0), True),
        TableAgg("SUM of BIGINT", "SUM(V)", "BIGINT", "BIGINT", [5000000000, 3, 7], lambda: _sum(0), True),
        TableAgg("SUM of DOUBLE", "SUM(V)", "DOUBLE", "DOUBLE", [1.5, 0.25, 4.0], lambda: _sum(0.0), True),
        TableAgg("SUM of DECIMAL", "SUM(V)", "DECIMAL(4, 2)", "DECIMAL(4, 2)", [1.25, 10.5, -3.75],
                 lambda: _sum(Decimal("0")), True, _dec),
        TableAgg("AVG of INT", "AVG(V)", "INT", "DOUBLE", [5, 3, 7], _avg, False),
        TableAgg("AVG of DOUBLE", "AVG(V)", "DOUBLE", "DOUBLE", [1.5, 0.25, 4.0], _avg, False),
        TableAgg("COLLECT_LIST of INT", "COLLECT_LIST(V)", "INT", "ARRAY<INTEGER>", [5, 3, 5], _collect_list,
                 False),
        TableAgg("COLLECT_LIST of STRING", "COLLECT_LIST(V)", "STRING", "ARRAY<STRING>", ["x", "y", "x"],
                 _collect_list, False),
        TableAgg("HISTOGRAM", "HISTOGRAM(V)", "STRING", "MAP<STRING, BIGINT>", ["x", "y", "x"], _histogram, False),
        TableAgg("ATTR of INT", "ATTR(V)", "INT", "INTEGER", [5, 5, 7], _attr, False),
        TableAgg("ATTR of STRING", "ATTR(V)", "STRING", "STRING", ["x", "x", "y"], _attr, False),
        TableAgg("STDDEV_SAMP", "STDDEV_SAMP(V)", "INT", "DOUBLE", [5, 3, 7], lambda: _variance(False), False),
        TableAgg("STDDEV_SAMPLE", "STDDEV_SAMPLE(V)", "DOUBLE", "DOUBLE", [5.0, 3.0, 7.0], lambda: _variance(True),
                 False),
        TableAgg("SUM_LIST", "SUM_LIST(V)", "ARRAY<INT>", "INTEGER", [[1, 2], [4], [None, 8]],
                 lambda: _sum_list(0), True, formats=["JSON", "AVRO", "JSON_SR", "DELIMITED"]),
        # a PROTOBUF array holds no NULL element (see agg_cases)
        TableAgg("SUM_LIST without NULL elements", "SUM_LIST(V)", "ARRAY<INT>", "INTEGER", [[1, 2], [4], [6, 8]],
                 lambda: _sum_list(0), True, formats=["PROTOBUF"]),
    ]


def _table_outputs(agg: TableAgg, null_as: Any) -> list[tuple[str, Any]]:
    """Outputs of ``SELECT G, <agg> ... GROUP BY G`` over ``_TABLE_EVENTS``: a row updated within its
    group is undone and added in one change; a move or delete undoes from the old group first; a tombstone
    of an unknown row gives nothing. An emptied group keeps a row (the aggregate of nothing)."""
    acc = agg.model()
    rows: dict[str, tuple[str, Any]] = {}
    state: dict[str, Any] = {}
    out: list[tuple[str, Any]] = []

    def val(i: int | None) -> Any:
        return agg.to_model(null_as if i is None else agg.values[i])

    for key, new in _TABLE_EVENTS:
        old = rows.get(key)
        if new is None:
            rows.pop(key, None)
        else:
            rows[key] = new
        if old is not None:
            assert acc.undo is not None
            state[old[0]] = acc.undo(state[old[0]], val(old[1]))
            if new is None or new[0] != old[0]:
                out.append((old[0], _out(acc.result(state[old[0]]))))
        if new is not None:
            state[new[0]] = acc.add(state.get(new[0], acc.init()), val(new[1]))
            out.append((new[0], _out(acc.result(state[new[0]]))))
    return out


def table_cases() -> list[dict[str, Any]]:
    cases = []
    for agg in table_aggs():
        for fmt in agg.formats or VALUE_FORMATS:
            if fmt == "DELIMITED" and agg.col_type.startswith("ARRAY"):
                continue
            statements = [
                f"CREATE TABLE INPUT (ID STRING PRIMARY KEY, G STRING, V {agg.col_type}) WITH (kafka_topic='input', "
                f"value_format='{fmt}');",
                f"CREATE TABLE OUTPUT AS SELECT G, {agg.sql} AS R FROM INPUT GROUP BY G;",
            ]
            name = f"table aggregation undo: {agg.label} into {fmt}"
            if fmt == "DELIMITED" and (not agg.primitive_state or agg.out_type.startswith(("ARRAY", "MAP"))):
                cases.append({"name": name + " is refused for its intermediate type", "statements": statements,
                              "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                                    "message": INTERMEDIATE}})
                continue
            null_as = PROTO_DEFAULT.get(agg.col_type) if fmt == "PROTOBUF" else None
            inputs = []
            for key, row in _TABLE_EVENTS:
                value: Any = None
                if row is not None:
                    v = None if row[1] is None else agg.values[row[1]]
                    value = f"{row[0]},{_value_text(v)}" if fmt == "DELIMITED" else {"G": row[0], "V": v}
                inputs.append({"topic": "input", "key": key, "value": value})
            outputs = []
            for g, res in _table_outputs(agg, null_as):
                if fmt == "PROTOBUF":
                    res = _proto_result(agg, res)
                outputs.append({"topic": "OUTPUT", "key": g,
                                "value": _first_field(_value_text(res)) if fmt == "DELIMITED" else {"R": res}})
            cases.append({
                "name": name, "statements": statements, "inputs": inputs, "outputs": outputs,
                "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                      "schema": f"G STRING KEY, R {agg.out_type}"}]},
            })
    return cases


# aggregates that cannot undo, each refused over a table source; named in the order the query calls them
_NO_UNDO = [("MIN(V)", "MIN"), ("MAX(V)", "MAX"), ("TOPK(V, 2)", "TOPK"), ("TOPKDISTINCT(V, 2)", "TOPKDISTINCT"),
            ("COLLECT_SET(V)", "COLLECT_SET"), ("COUNT_DISTINCT(V)", "COUNT_DISTINCT"),
            ("EARLIEST_BY_OFFSET(V)", "EARLIEST_BY_OFFSET"), ("LATEST_BY_OFFSET(V)", "LATEST_BY_OFFSET")]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def table_refusals() -> list[dict[str, Any]]:
    table = ("CREATE TABLE INPUT (ID STRING PRIMARY KEY, G STRING, V INT) WITH (kafka_topic='input', "
             "value_format='JSON');")
    cases = []
    calls = [[c] for c in _NO_UNDO] + [[_NO_UNDO[2], ("COUNT(*)", "COUNT"), _NO_UNDO[0]],
                                       [_NO_UNDO[7], ("SUM(V)", "SUM"), _NO_UNDO[5], _NO_UNDO[7]]]
    for group in calls:
        names = list(dict.fromkeys(n for _, n in group if n not in ("COUNT", "SUM")))
        select = ", ".join(f"{sql} AS R{i}" for i, (sql, _) in enumerate(group))
        noun = "function" if len(names) == 1 else "functions"
        cases.append({
            "name": f"table aggregation refuses {', '.join(n for _, n in group)}",
            "statements": [table, f"CREATE TABLE OUTPUT AS SELECT G, {select} FROM INPUT GROUP BY G;"],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                  "message": f"The aggregation {noun} {_and(names)} cannot be applied to a table "
                                             "source, only to a stream source."},
        })
    return cases


def topk_other_columns_cases() -> list[dict[str, Any]]:
    """TOPK(col, otherCols..., k): the k largest values of col, each with the other columns of its row, as
    ARRAY<STRUCT<sort_col, col0, col1...>> in every value format (DELIMITED refused for its state)."""
    rows = [(5, "a", 1.5), (None, "b", 2.5), (3, "c", None), (7, None, 4.0), (1, "e", 0.5)]
    cases = []
    for fmt in VALUE_FORMATS:
        statements = [
            f"CREATE STREAM INPUT (ID INT KEY, V INT, W STRING, X DOUBLE) WITH (kafka_topic='input', "
            f"value_format='{fmt}');",
            "CREATE TABLE OUTPUT AS SELECT ID, TOPK(V, W, X, 2) AS R FROM INPUT GROUP BY ID;",
        ]
        name = f"TOPK with other columns into {fmt}"
        if fmt == "DELIMITED":
            cases.append({"name": name + " is refused for its intermediate type", "statements": statements,
                          "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                                "message": INTERMEDIATE}})
            continue
        seen: list[tuple[int, Any, Any]] = []
        inputs, outputs = [], []
        for i, (v, w, x) in enumerate(rows):
            if fmt == "PROTOBUF":  # scalars without wrappers: a NULL reads back as the default
                v, w, x = (0 if v is None else v), ("" if w is None else w), (0.0 if x is None else x)
            if v is not None:
                seen.append((v, w, x))
            top = sorted(seen, key=lambda r: r[0], reverse=True)[:2]
            inputs.append({"topic": "input", "key": 1, "value": {"V": rows[i][0], "W": rows[i][1], "X": rows[i][2]},
                           "timestamp": i})
            outputs.append({"topic": "OUTPUT", "key": 1, "timestamp": i,
                            "value": {"R": [{"sort_col": r[0], "col0": r[1], "col1": r[2]} for r in top]}})
        cases.append({"name": name, "statements": statements, "inputs": inputs, "outputs": outputs,
                      "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema":
                                            "ID INTEGER KEY, R ARRAY<STRUCT<`sort_col` INTEGER, `col0` STRING, "
                                            "`col1` DOUBLE>>"}]}})
    return cases


# session merges: the last record bridges two sessions that arrived in the other order than they end
_SESSION_EVENTS = [(0, 10), (1, 0), (2, 5)]  # (index of the non-NULL value, timestamp); gap 5 ms
_BY_OFFSET = ("EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET")


def _session_result(agg: Agg, entries: list[tuple[int, Any]]) -> Any:
    """An aggregate over a session's values: ``entries`` (arrival number, value) in the order merges leave
    them - each merged session's values in end order, then the bridging record's. The by-offset aggregates
    pick by arrival (ksqlDB keeps each value's sequence number to merge them); the others fold in that
    order (only COLLECT_LIST and COLLECT_SET show it)."""
    acc = agg.model()
    ordered = sorted(entries) if agg.sql.startswith(_BY_OFFSET) else entries
    state = acc.init()
    for _, v in ordered:
        state = acc.add(state, agg.to_model(v))
    return _out(acc.result(state))


def session_merge_cases() -> list[dict[str, Any]]:
    cases = []
    for agg in stream_aggs():
        if agg.col_type.startswith("ARRAY") or "keeping NULLs" in agg.label or agg.label.startswith("COUNT(*)"):
            continue
        vals = [v for v in agg.values if v is not None]
        sessions: list[tuple[int, int, list[tuple[int, Any]]]] = []  # (start, end, entries)
        outputs = []
        for seq, (i, ts) in enumerate(_SESSION_EVENTS):
            near = sorted((x for x in sessions if x[1] >= ts - 5 and x[0] <= ts + 5), key=lambda x: x[1])
            entries = [e for x in near for e in x[2]] + [(seq, vals[i])]
            start, end = min([ts] + [x[0] for x in near]), max([ts] + [x[1] for x in near])
            for x in near:
                sessions.remove(x)
                outputs.append({"topic": "OUTPUT", "key": "k", "value": None, "timestamp": x[1],
                                "window": {"start": x[0], "end": x[1], "type": "session"}})
            sessions.append((start, end, entries))
            outputs.append({"topic": "OUTPUT", "key": "k", "value": {"R": _session_result(agg, entries)},
                            "timestamp": end, "window": {"start": start, "end": end, "type": "session"}})
        cases.append({
            "name": f"{agg.label} merged by a session window",
            "statements": [
                f"CREATE STREAM INPUT (K STRING KEY, V {agg.col_type}) WITH (kafka_topic='input', "
                "value_format='JSON');",
                f"CREATE TABLE OUTPUT AS SELECT K, {agg.sql} AS R FROM INPUT WINDOW SESSION (5 MILLISECONDS) "
                "GROUP BY K;",
            ],
            "inputs": [{"topic": "input", "key": "k", "value": {"V": vals[i]}, "timestamp": ts}
                       for i, ts in _SESSION_EVENTS],
            "outputs": outputs,
            "topics": [{"name": "input", "partitions": 1}],
            "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                  "keyFormat": {"format": "KAFKA", "windowType": "SESSION"},
                                  "schema": f"K STRING KEY, R {agg.out_type}"}]},
        })
    return cases


def _dump(doc: Any) -> str:
    """JSON text with every DECIMAL marker written as the number it spells (``10.50``, scale kept)."""
    return re.sub(r'"\\u0000DEC(-?[0-9.]+)"', r"\1", json.dumps(doc, indent=1))


def cases() -> list[dict[str, Any]]:
    """The cases as the file holds them (read back: DECIMALs become numbers)."""
    return json.loads(_dump(stream_cases() + topk_other_columns_cases() + table_cases() + table_refusals() + session_merge_cases()))


def write() -> None:
    raw = stream_cases() + topk_other_columns_cases() + table_cases() + table_refusals() + session_merge_cases()
    (HERE / "udaf-scope.json").write_text(_dump({"comment": "generated by gen_udaf_scope.py", "tests": raw}) + "\n")


if __name__ == "__main__":
    write()
