"""Writes tests/cases/functions/cast-to-string.json (CAST(container AS STRING) for every element type) and
array-join-elements.json (ARRAY_JOIN over every element type).

The rule (ksqlDB's ``CastEvaluator``: a container is cast with ``Objects.toString``): the text is what the
Java objects ksqlDB holds print - a java.util.List ``[a, null]``, a java.util.HashMap ``{k=v}`` in its hash
order, a Kafka Connect ``Struct{F=v}`` without its NULL fields - at any depth; the elements print as their
Java classes do: a DOUBLE as ``Double.toString``, a DECIMAL as ``BigDecimal.toString`` (exponent below 1E-6),
a DATE/TIME/TIMESTAMP as java.sql.Date/Time/Timestamp (``2022-01-08``, ``10:11:12``, ``2023-11-14
22:13:20.123``, in UTC), BYTES as its ``java.nio.HeapByteBuffer``. (Top-level CAST of those types to STRING is
another rule - ISO text, ``toPlainString`` - and is not tested here.)

The element texts below are Java's, written out by hand; the generator only nests them.
Run ``python tests/cases/functions/gen_cast_to_string.py`` after changing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Case = dict[str, Any]

# (label, SQL type, JSON value, the text Java's toString gives that value inside a container)
ELEMENTS: list[tuple[str, str, Any, str]] = [
    ("INT", "INT", 7, "7"),
    ("BIGINT", "BIGINT", 10000000000, "10000000000"),
    ("DOUBLE", "DOUBLE", 0.0001, "1.0E-4"),
    ("DOUBLE whole", "DOUBLE", 25.0, "25.0"),
    ("DECIMAL", "DECIMAL(4, 2)", 1.5, "1.50"),
    ("DECIMAL small", "DECIMAL(10, 8)", 0.0000001, "1.0E-7"),
    ("BOOLEAN", "BOOLEAN", True, "true"),
    ("STRING", "STRING", "a b", "a b"),
    ("DATE", "DATE", 19000, "2022-01-08"),
    ("TIME", "TIME", 36672123, "10:11:12"),
    ("TIMESTAMP", "TIMESTAMP", 1700000000123, "2023-11-14 22:13:20.123"),
    ("TIMESTAMP whole second", "TIMESTAMP", 1700000000000, "2023-11-14 22:13:20.0"),
    ("BYTES", "BYTES", "AQI=", "java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]"),
]


def _containers(sql_type: str, value: Any, text: str) -> list[tuple[str, str, Any, str]]:
    """(column, type, JSON value, expected text) for the element in each container shape."""
    return [
        ("A", f"ARRAY<{sql_type}>", [value, None], f"[{text}, null]"),
        ("M", f"MAP<STRING, {sql_type}>", {"k": value}, f"{{k={text}}}"),
        ("S", f"STRUCT<F {sql_type}, G INT>", {"F": value, "G": None}, f"Struct{{F={text}}}"),
        ("AST", f"ARRAY<STRUCT<F {sql_type}>>", [{"F": value}], f"[Struct{{F={text}}}]"),
        ("SS", f"STRUCT<T STRUCT<F {sql_type}>>", {"T": {"F": value}}, f"Struct{{T=Struct{{F={text}}}}}"),
        ("MA", f"MAP<STRING, ARRAY<{sql_type}>>", {"k": [value]}, f"{{k=[{text}]}}"),
    ]


def _case(label: str, columns: list[tuple[str, str, Any, str]]) -> Case:
    ddl = ", ".join(f"{c} {t}" for c, t, _, _ in columns)
    select = ", ".join(f"CAST({c} AS STRING) AS {c}" for c, _, _, _ in columns)
    return {
        "name": f"CAST to STRING inside containers - {label}",
        "statements": [
            f"CREATE STREAM INPUT (ID INT KEY, {ddl}) WITH (kafka_topic='input', value_format='JSON', partitions=1);",
            f"CREATE STREAM OUTPUT AS SELECT ID, {select} FROM INPUT;",
        ],
        "inputs": [{"topic": "input", "key": 1, "value": {c: v for c, _, v, _ in columns}}],
        "outputs": [{"topic": "OUTPUT", "key": 1, "value": {c: text for c, _, _, text in columns}}],
    }


def cases() -> list[Case]:
    out = [_case(label, _containers(t, v, text)) for label, t, v, text in ELEMENTS]
    # a HashMap walks its buckets (String.hashCode: a=97, b=98, c=99), not the order the keys came in
    out.append(_case("map keys in hash order", [
        ("M", "MAP<STRING, INT>", {"b": 1, "c": 3, "a": 2}, "{a=2, b=1, c=3}"),
        ("N", "MAP<STRING, STRUCT<F INT>>", {"c": {"F": 3}, "a": None}, "{a=null, c=Struct{F=3}}"),
    ]))
    return out


# ARRAY_JOIN prints its elements the same way, but only those of ksqlDB's KSQL_PRIMITIVES classes (Boolean,
# Integer, Long, Double, BigDecimal, String): any other non-null element fails the call (NULL, logged)
JOINABLE = {"INT", "BIGINT", "DOUBLE", "DECIMAL(4, 2)", "DECIMAL(10, 8)", "BOOLEAN", "STRING"}


def array_join_cases() -> list[Case]:
    out = []
    for label, sql_type, value, text in ELEMENTS:
        joined = f"{text}|null" if sql_type in JOINABLE else None
        out.append({
            "name": f"ARRAY_JOIN over an array of {label}",
            "statements": [
                f"CREATE STREAM INPUT (ID INT KEY, A ARRAY<{sql_type}>, N ARRAY<{sql_type}>) WITH "
                "(kafka_topic='input', value_format='JSON', partitions=1);",
                "CREATE STREAM OUTPUT AS SELECT ID, ARRAY_JOIN(A, '|') AS J, ARRAY_JOIN(N) AS N FROM INPUT;",
            ],
            # an array of NULLs joins whatever its element type
            "inputs": [{"topic": "input", "key": 1, "value": {"A": [value, None], "N": [None, None]}}],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"J": joined, "N": "null,null"}}],
        })
    for label, sql_type, value in (("STRUCT", "STRUCT<F INT>", {"F": 1}), ("ARRAY", "ARRAY<INT>", [1]),
                                   ("MAP", "MAP<STRING, INT>", {"k": 1})):
        out.append({
            "name": f"ARRAY_JOIN over an array of {label}",
            "statements": [
                f"CREATE STREAM INPUT (ID INT KEY, A ARRAY<{sql_type}>) WITH (kafka_topic='input', "
                "value_format='JSON', partitions=1);",
                "CREATE STREAM OUTPUT AS SELECT ID, ARRAY_JOIN(A) AS J FROM INPUT;",
            ],
            "inputs": [{"topic": "input", "key": 1, "value": {"A": [value]}}],
            "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"J": None}}],
        })
    return out


if __name__ == "__main__":
    for name, built in (("cast-to-string.json", cases()), ("array-join-elements.json", array_join_cases())):
        path = Path(__file__).with_name(name)
        path.write_text(json.dumps({"comments": ["Generated by gen_cast_to_string.py - do not edit."],
                                    "tests": built}, indent=2) + "\n")
        print(f"{len(built)} cases -> {path}")
