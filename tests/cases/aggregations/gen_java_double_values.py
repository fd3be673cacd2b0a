"""Writes tests/cases/aggregations/java-double-values.json: aggregates tell DOUBLEs apart and order them as Java
does (ksqlpy/functions/aggregates/java_values.py).

ksqlDB's UDAFs hold Java objects (from memory of its sources): MIN/MAX, TOPK and TOPKDISTINCT order by
``compareTo``; COLLECT_SET and TOPKDISTINCT drop a value ``List.contains`` finds; ATTR asks ``equals``;
COUNT_DISTINCT hashes the value; COLLECT_LIST's undo removes ``lastIndexOf`` the value. For ``Double`` all of these
go by the value's bits: -0.0 is below and unequal to 0.0, NaN is equal to NaN and above +Infinity. The values
come from ``D / Z`` (Java's division: 0.0 / 0.0 is NaN, 1.0 / 0.0 Infinity) and are shown as
``CAST(x AS STRING)`` (Double.toString: ``-0.0``, ``NaN``, ``Infinity``) so a sign is seen, not compared within
1e-6; a negative zero is ``0.0 / -1.0``, never a ``-0.0`` in the input (the JSON reader reads that number as a
BigDecimal, which has no sign at zero: ``0.0``); DOUBLEs nested in an ARRAY, a STRUCT or a MAP count as their elements do.

Run ``python tests/cases/aggregations/gen_java_double_values.py`` after changing it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

Case = dict[str, Any]
NAN = float("nan")
INF = float("inf")
FORMATS = ["JSON", "AVRO"]

# (what, [(D, Z)]): each row's value is D / Z
SEQUENCES: list[tuple[str, list[tuple[float, float]]]] = [
    ("signed zeros", [(0.0, 1.0), (0.0, -1.0), (0.0, 1.0)]),
    ("negative zero first", [(0.0, -1.0), (0.0, 1.0), (0.0, -1.0)]),
    ("NaN and infinities", [(0.0, 0.0), (1.0, 0.0), (0.0, 0.0), (-1.0, 0.0)]),
    ("NaN among numbers and zeros", [(2.0, 1.0), (0.0, 0.0), (5.0, 1.0), (0.0, 0.0), (0.0, -1.0), (0.0, 1.0)]),
]


def _div(d: float, z: float) -> float:
    if z == 0.0:
        return NAN if d == 0.0 or math.isnan(d) else math.copysign(INF, d) * math.copysign(1.0, z)
    return d / z


def _key(x: float) -> Any:
    """Double.equals / compareTo: by bits (NaN one value, above everything)."""
    return (1, 0.0, 0.0) if math.isnan(x) else (0, x, math.copysign(1.0, x))


def _text(x: float) -> str:
    """Double.toString for the values here."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(float(x))


def _distinct(xs: list[float]) -> list[float]:
    seen: dict[Any, float] = {}
    for x in xs:
        seen.setdefault(_key(x), x)
    return list(seen.values())


def _joined(xs: list[float]) -> str:
    return ",".join(_text(x) for x in xs)


JOIN = "ARRAY_JOIN(TRANSFORM({a}, v => CAST(v AS STRING)), ',')"  # {x}: the aggregated expression
# (label, select expression over {x}, result of the rows so far)
AGGREGATES: list[tuple[str, str, Callable[[list[float]], Any]]] = [
    ("COUNT_DISTINCT", "COUNT_DISTINCT({x})", lambda xs: len(_distinct(xs))),
    ("COLLECT_SET", JOIN.format(a="COLLECT_SET({x})"), lambda xs: _joined(_distinct(xs))),
    ("TOPKDISTINCT", JOIN.format(a="TOPKDISTINCT({x}, 3)"),
     lambda xs: _joined(sorted(_distinct(xs), key=_key, reverse=True)[:3])),
    ("TOPK", JOIN.format(a="TOPK({x}, 3)"), lambda xs: _joined(sorted(xs, key=_key, reverse=True)[:3])),
    ("MIN", "CAST(MIN({x}) AS STRING)", lambda xs: _text(min(xs, key=_key))),
    ("MAX", "CAST(MAX({x}) AS STRING)", lambda xs: _text(max(xs, key=_key))),
    ("ATTR", "CAST(ATTR({x}) AS STRING)", lambda xs: _text(xs[0]) if len(_distinct(xs)) == 1 else None),
    ("COUNT_DISTINCT of an ARRAY", "COUNT_DISTINCT(ARRAY[{x}])", lambda xs: len(_distinct(xs))),
    ("COUNT_DISTINCT of a MAP", "COUNT_DISTINCT(MAP('k' := {x}))", lambda xs: len(_distinct(xs))),
    ("COLLECT_SET of a STRUCT", "ARRAY_LENGTH(COLLECT_SET(STRUCT(V := {x})))", lambda xs: len(_distinct(xs))),
    ("TOPK with another column", "ARRAY_JOIN(TRANSFORM(TOPK({x}, K, 3), e => CAST(e->`sort_col` AS STRING)), ',')",
     lambda xs: _joined(sorted(xs, key=_key, reverse=True)[:3])),
]


def _source(fmt: str, kind: str = "STREAM") -> str:
    key = "K STRING KEY" if kind == "STREAM" else "ID STRING PRIMARY KEY, K STRING"
    return (f"CREATE {kind} S ({key}, D DOUBLE, Z DOUBLE) "
            f"WITH (kafka_topic='s', value_format='{fmt}', partitions=1);")


def stream_cases() -> list[Case]:
    out: list[Case] = []
    for fmt in FORMATS:
        for what, rows in SEQUENCES:
            xs = [_div(d, z) for d, z in rows]
            for label, expr, model in AGGREGATES:
                sql = expr.format(x="D / Z")
                out.append({
                    "name": f"{label} of {what} in {fmt}",
                    "statements": [_source(fmt), f"CREATE TABLE T AS SELECT K, {sql} AS R FROM S GROUP BY K;"],
                    "inputs": [{"topic": "s", "key": "a", "value": {"D": d, "Z": z}} for d, z in rows],
                    "outputs": [{"topic": "T", "key": "a", "value": {"R": model(xs[:i + 1])}}
                                for i in range(len(xs))],
                })
    return out


# a source table's rows: (row key, (D, Z) or None for a delete); all in one group
TABLE_EVENTS: list[tuple[str, list[tuple[str, tuple[float, float] | None]]]] = [
    ("a signed zero updated and deleted", [("r1", (0.0, 1.0)), ("r2", (0.0, -1.0)), ("r3", (0.0, 1.0)),
                                           ("r2", None), ("r1", (0.0, -1.0))]),
    ("NaN updated and deleted", [("r1", (0.0, 0.0)), ("r2", (1.0, 0.0)), ("r3", (0.0, 0.0)), ("r1", (-1.0, 0.0)),
                                 ("r3", None)]),
]
TABLE_AGGREGATES: list[tuple[str, str]] = [
    ("COLLECT_LIST", JOIN.format(a="COLLECT_LIST(D / Z)")),
    ("ATTR", "CAST(ATTR(D / Z) AS STRING)"),
]


def _table_outputs(label: str, events: list[tuple[str, tuple[float, float] | None]]) -> list[Any]:
    """An update undoes the old value (the last equal element: List.lastIndexOf) and adds the new one in one
    change; a delete undoes and emits."""
    items: list[float] = []
    rows: dict[str, float] = {}
    out: list[Any] = []
    for key, row in events:
        old = rows.pop(key, None)
        if old is not None:
            for i in range(len(items) - 1, -1, -1):
                if _key(items[i]) == _key(old):
                    del items[i]
                    break
        if row is not None:
            rows[key] = _div(*row)
            items.append(rows[key])
        if label == "COLLECT_LIST":
            out.append(_joined(items))
        else:
            out.append(_text(items[0]) if items and len(_distinct(items)) == 1 else None)
    return out


def table_cases() -> list[Case]:
    out: list[Case] = []
    for fmt in FORMATS:
        for what, events in TABLE_EVENTS:
            for label, expr in TABLE_AGGREGATES:
                inputs = [{"topic": "s", "key": key, "value": None if row is None else {"K": "a", "D": row[0],
                                                                                       "Z": row[1]}}
                          for key, row in events]
                out.append({
                    "name": f"table {label} undo: {what} in {fmt}",
                    "statements": [_source(fmt, "TABLE"),
                                   f"CREATE TABLE T AS SELECT K, {expr} AS R FROM S GROUP BY K;"],
                    "inputs": inputs,
                    "outputs": [{"topic": "T", "key": "a", "value": {"R": r}} for r in _table_outputs(label, events)],
                })
    return out


def cases() -> list[Case]:
    return stream_cases() + table_cases()


def main() -> None:
    doc = {"comments": ["Generated by gen_java_double_values.py: aggregates tell DOUBLEs apart and order them as "
                        "Java does (-0.0 below and unequal to 0.0, NaN equal to NaN and above everything)."],
           "tests": cases()}
    path = Path(__file__).with_name("java-double-values.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path} ({len(doc['tests'])} cases)")


if __name__ == "__main__":
    main()
