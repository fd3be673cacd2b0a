"""The name a join gives its synthetic key column when a source already has a column starting ``ROWKEY``.

ksqlDB's rule (from memory of ColumnNames.generateSyntheticJoinKey; reference ksqldb-rules 6.6 "numbered if
taken"): the name is ``ROWKEY`` unless a column of a joined source has that name; then it is ``ROWKEY_<n+1>``
where ``n`` is the largest numeric suffix of any ``ROWKEY_<digits>`` column (0 when there is none) - not the
first free number, so ROWKEY and ROWKEY_3 give ROWKEY_4. Suffixes that are not ``_<digits>`` (ROWKEYX,
ROWKEY_A) are names only; ``_02`` reads as 2. Key and value columns of every source count, on either side; source
aliases and SELECT aliases do not; header columns do. The scope: every join whose key no source column carries - FULL OUTER
(stream-stream, table-table) and joins on expressions on both sides - in persistent and transient queries.

Writes tests/cases/joins/synthetic-key-numbering.json: ``python tests/cases/joins/synthetic_key_numbering_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

Case = dict[str, Any]
EXCEPTION = "io.confluent.ksql.util.KsqlStatementException"


def stream(name: str, cols: str) -> str:
    return f"CREATE STREAM {name} ({cols}) WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=4);"


def table(name: str, cols: str) -> str:
    return f"CREATE TABLE {name} ({cols}) WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=4);"


def rec(topic: str, key: Any, value: dict[str, Any] | None, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


# (left columns, right columns, expected synthetic name); the left joins on its first column, the right on its
# first; the other columns are INT values named as given
SHAPES: list[tuple[str, list[str], list[str], str]] = [
    ("no ROWKEY column: ROWKEY", ["ID", "V"], ["ID", "W"], "ROWKEY"),
    ("only ROWKEY_1 and ROWKEY_X: ROWKEY is free", ["ID", "ROWKEY_1"], ["ID", "ROWKEY_X"], "ROWKEY"),
    ("ROWKEY on the left: ROWKEY_1", ["ROWKEY", "V"], ["ID", "W"], "ROWKEY_1"),
    ("ROWKEY on the right, as a value: ROWKEY_1", ["ID", "V"], ["ID", "ROWKEY"], "ROWKEY_1"),
    ("ROWKEY and ROWKEY_3: one past the highest, ROWKEY_4", ["ROWKEY", "ROWKEY_3"], ["ID", "W"], "ROWKEY_4"),
    ("ROWKEY left, ROWKEY_1 and ROWKEY_3 right: ROWKEY_4", ["ROWKEY", "V"], ["ROWKEY_1", "ROWKEY_3"], "ROWKEY_4"),
    ("ROWKEY_2 left key, ROWKEY right value: ROWKEY_3", ["ROWKEY_2", "V"], ["ID", "ROWKEY"], "ROWKEY_3"),
    ("ROWKEY, ROWKEYX and ROWKEY_A: not numbers, ROWKEY_1", ["ROWKEY", "ROWKEYX"], ["ID", "ROWKEY_A"], "ROWKEY_1"),
    ("ROWKEY and ROWKEY_02: the suffix reads as 2, ROWKEY_3", ["ROWKEY", "ROWKEY_02"], ["ID", "W"], "ROWKEY_3"),
    ("ROWKEY and ROWKEY_10 on both sides: ROWKEY_11", ["ROWKEY", "ROWKEY_10"], ["ROWKEY", "ROWKEY_10"], "ROWKEY_11"),
]


def cols(names: list[str], key_word: str) -> str:
    return ", ".join(f"{n} INT {key_word}" if i == 0 else f"{n} INT" for i, n in enumerate(names))


def value_of(names: list[str], base: int) -> dict[str, Any]:
    return {n: base + i for i, n in enumerate(names[1:], start=1)}


def joined(alias: str, names: list[str], key: Any, values: dict[str, Any] | None) -> dict[str, Any]:
    """``SELECT *``'s columns of one side: ``<ALIAS>_<COL>`` for its key and values."""
    out = {f"{alias}_{names[0]}": key if values is not None else None}
    for n in names[1:]:
        out[f"{alias}_{n}"] = values.get(n) if values is not None else None
    return out


def schema(key: str, left: list[str], right: list[str]) -> str:
    return ", ".join([f"{key} INTEGER KEY", *(f"L_{n} INTEGER" for n in left), *(f"R_{n} INTEGER" for n in right)])


def cases() -> list[Case]:
    out: list[Case] = []
    for label, left, right, key in SHAPES:
        lv, rv = value_of(left, 10), value_of(right, 20)
        # table-table FULL OUTER: the key no side carries
        out.append({
            "name": f"table-table FULL OUTER - {label}",
            "statements": [table("L", cols(left, "PRIMARY KEY")), table("R", cols(right, "PRIMARY KEY")),
                           f"CREATE TABLE OUT AS SELECT * FROM L FULL OUTER JOIN R ON L.{left[0]} = R.{right[0]};"],
            "inputs": [rec("l", 1, lv, 0), rec("r", 1, rv, 5), rec("r", 2, rv, 6)],
            "outputs": [
                rec("OUT", 1, {**joined("L", left, 1, lv), **joined("R", right, None, None)}, 0),
                rec("OUT", 1, {**joined("L", left, 1, lv), **joined("R", right, 1, rv)}, 5),
                rec("OUT", 2, {**joined("L", left, None, None), **joined("R", right, 2, rv)}, 6),
            ],
            "post": {"sources": [{"name": "OUT", "type": "table", "schema": schema(key, left, right)}]},
        })
        # stream-stream FULL OUTER selecting the key by its name, aliased
        out.append({
            "name": f"stream-stream FULL OUTER, the key selected by name - {label}",
            "statements": [stream("L", cols(left, "KEY")), stream("R", cols(right, "KEY")),
                           f"CREATE STREAM OUT AS SELECT {key} AS K, L.{left[1]} AS LV, R.{right[1]} AS RV FROM L "
                           f"FULL OUTER JOIN R WITHIN 1 MINUTE ON L.{left[0]} = R.{right[0]};"],
            "inputs": [rec("l", 3, lv, 0), rec("r", 3, rv, 1)],
            "outputs": [rec("OUT", 3, {"LV": 11, "RV": None}, 0), rec("OUT", 3, {"LV": 11, "RV": 21}, 1)],
            "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "K INTEGER KEY, LV INTEGER, RV INTEGER"}]},
        })
        # an inner join on expressions on both sides: synthetic too
        out.append({
            "name": f"stream-stream INNER on expressions - {label}",
            "statements": [stream("L", cols(left, "KEY")), stream("R", cols(right, "KEY")),
                           f"CREATE STREAM OUT AS SELECT {key}, L.{left[1]} AS LV FROM L JOIN R WITHIN 1 MINUTE "
                           f"ON L.{left[1]} + 1 = R.{right[1]} - 9;"],
            "inputs": [rec("l", 3, lv, 0), rec("r", 4, rv, 1)],
            "outputs": [rec("OUT", 12, {"LV": 11}, 1)],
            "post": {"sources": [{"name": "OUT", "type": "stream", "schema": f"{key} INTEGER KEY, LV INTEGER"}]},
        })
        # the missing-key refusal names the synthetic column it added
        out.append({
            "name": f"the synthetic key left out of the projection: named in the refusal - {label}",
            "statements": [table("L", cols(left, "PRIMARY KEY")), table("R", cols(right, "PRIMARY KEY")),
                           f"CREATE TABLE OUT AS SELECT L.{left[1]} AS LV FROM L FULL OUTER JOIN R "
                           f"ON L.{left[0]} = R.{right[0]};"],
            "expectedException": {"type": EXCEPTION, "message": (
                f"The query used to build `OUT` must include the join expression {key} in its projection "
                f"(eg, SELECT {key}...).\n{key} was added as a synthetic key column because the join criteria "
                "did not match any source column. This expression must be included in the projection and may be "
                "aliased. ")},
        })
    # names that are not the key: still unknown once planned
    out.append({
        "name": "ROWKEY and ROWKEY_3: the first free number ROWKEY_1 is not the key, unknown",
        "statements": [table("L", "ROWKEY INT PRIMARY KEY, ROWKEY_3 INT"), table("R", "ID INT PRIMARY KEY, W INT"),
                       "CREATE TABLE OUT AS SELECT ROWKEY_1, L.ROWKEY_3 FROM L FULL OUTER JOIN R ON L.ROWKEY = R.ID;"],
        "expectedException": {"type": EXCEPTION, "message": "SELECT column 'ROWKEY_1' cannot be resolved."},
    })
    # header columns are columns of the source's schema too
    for label, header in (("all headers", "ARRAY<STRUCT<KEY STRING, VALUE BYTES>> HEADERS"),
                          ("one header key", "BYTES HEADER('x')")):
        out.append({
            "name": f"a header column ROWKEY_7 ({label}) counts: ROWKEY_8",
            "statements": [stream("L", f"ROWKEY INT KEY, V INT, ROWKEY_7 {header}"), stream("R", "ID INT KEY, W INT"),
                           "CREATE STREAM OUT AS SELECT ROWKEY_8, L.V AS V FROM L FULL OUTER JOIN R WITHIN 1 MINUTE "
                           "ON L.ROWKEY = R.ID;"],
            "inputs": [rec("l", 4, {"V": 1}, 0)],
            "outputs": [rec("OUT", 4, {"V": 1}, 0)],
            "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "ROWKEY_8 INTEGER KEY, V INTEGER"}]},
        })
    # aliases play no part: a source aliased ROWKEY_5, a SELECT alias ROWKEY_8
    out.append({
        "name": "source aliases and SELECT aliases are not columns: ROWKEY_1 after a source ROWKEY",
        "statements": [table("L", "ROWKEY INT PRIMARY KEY, V INT"), table("R", "ID INT PRIMARY KEY, W INT"),
                       "CREATE TABLE OUT AS SELECT ROWKEY_1, ROWKEY_5.V AS ROWKEY_8 FROM L AS ROWKEY_5 FULL OUTER "
                       "JOIN R ON ROWKEY_5.ROWKEY = R.ID;"],
        "inputs": [rec("l", 1, {"V": 4}, 0)],
        "outputs": [rec("OUT", 1, {"ROWKEY_8": 4}, 0)],
        "post": {"sources": [{"name": "OUT", "type": "table", "schema": "ROWKEY_1 INTEGER KEY, ROWKEY_8 INTEGER"}]},
    })
    return out


def main() -> None:
    path = pathlib.Path(__file__).with_name("synthetic-key-numbering.json")
    path.write_text(json.dumps({"tests": cases()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
