"""The key of a join's result over its scope (ksqlDB's ``LogicalPlanner.buildJoinKey``, ``JoinNode``): every
join kind (stream-stream, stream-table, table-table) x join type x projection of the key.

The rule: the viable keys are the sides whose join expression is a plain column, left before right; a FULL
OUTER join has none. The first viable key (in that order, not the projection's) that the projection selects
is the result's key column, named by its alias (default ``<SOURCE>_<COLUMN>``); the other side's key column,
if selected too, stays a value column. With no viable key the key is a synthetic ``ROWKEY`` that must be
selected (it may be aliased; ``SELECT *`` puts it first). A persistent join selecting no viable key fails
with ``The query used to build ... must include the join expression[s] ...``; one selecting the key column
twice fails naming that key column (``L_ID`` or ``R_ID``: the viable key chosen as above). The key's value is
always the join key, whichever side names it - also on a row padded with NULLs for the side that named it.

Each case feeds one matching pair and one unmatched record per side (key 2 on the left, 3 on the right) and
expects the rows of ksqlDB's join semantics: stream-stream without GRACE emits unmatched LEFT/FULL rows
eagerly; stream-table rows come from stream records only; table-table rows from either side.

Writes tests/cases/joins/result-keys.json: ``python tests/cases/joins/result_keys_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

# kind -> (left DDL, right DDL, join types, WITHIN clause)
KINDS: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "stream-stream": ("CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions=1);",
                      "CREATE STREAM R (ID INT KEY, B INT) WITH (kafka_topic='r', value_format='JSON', partitions=1);",
                      ("INNER", "LEFT", "RIGHT", "FULL"), " WITHIN 1 MINUTE"),
    "stream-table": ("CREATE STREAM L (ID INT KEY, A INT) WITH (kafka_topic='l', value_format='JSON', partitions=1);",
                     "CREATE TABLE R (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='r', value_format='JSON', "
                     "partitions=1);",
                     ("INNER", "LEFT"), ""),
    "table-table": ("CREATE TABLE L (ID INT PRIMARY KEY, A INT) WITH (kafka_topic='l', value_format='JSON', "
                    "partitions=1);",
                    "CREATE TABLE R (ID INT PRIMARY KEY, B INT) WITH (kafka_topic='r', value_format='JSON', "
                    "partitions=1);",
                    ("INNER", "LEFT", "RIGHT", "FULL"), ""),
}
JOIN_WORDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}

# (projection name, select list, key column's name or None when the statement fails, value columns in order)
# value columns: (name, source, column) with source "L"/"R" - read from that side's record
PLAIN_PROJECTIONS: list[tuple[str, str, str | None, list[tuple[str, str, str]]]] = [
    ("the left key", "L.ID, L.A, R.B", "L_ID", [("A", "L", "A"), ("B", "R", "B")]),
    ("the right key", "R.ID, L.A, R.B", "R_ID", [("A", "L", "A"), ("B", "R", "B")]),
    ("both keys, left first", "L.ID, R.ID, L.A", "L_ID", [("R_ID", "R", "ID"), ("A", "L", "A")]),
    ("both keys, right first: the left is still the key", "R.ID, L.ID, R.B", "L_ID",
     [("R_ID", "R", "ID"), ("B", "R", "B")]),
    ("the left key aliased", "L.ID AS K, R.B", "K", [("B", "R", "B")]),
    ("the right key aliased", "L.A, R.ID AS K", "K", [("A", "L", "A")]),
    ("select star", "*", "L_ID", [("L_A", "L", "A"), ("R_ID", "R", "ID"), ("R_B", "R", "B")]),
    ("no key", "L.A, R.B", None, []),
]
SYNTHETIC_PROJECTIONS: list[tuple[str, str, str | None, list[tuple[str, str, str]]]] = [
    ("ROWKEY", "ROWKEY, L.A, R.B", "ROWKEY", [("A", "L", "A"), ("B", "R", "B")]),
    ("ROWKEY aliased", "ROWKEY AS K, L.ID, R.ID", "K", [("L_ID", "L", "ID"), ("R_ID", "R", "ID")]),
    ("select star", "*", "ROWKEY", [("L_ID", "L", "ID"), ("L_A", "L", "A"), ("R_ID", "R", "ID"), ("R_B", "R", "B")]),
    ("both source keys but not ROWKEY", "L.ID, R.ID, L.A", None, []),
]

# input records: (side, key, value column, timestamp); the right's matching record comes first for a table
# the stream side reads (stream-table), second otherwise
LEFT_VALUES = {1: 10, 2: 20}
RIGHT_VALUES = {1: 100, 3: 300}


def inputs(kind: str) -> list[tuple[str, int, int]]:
    if kind == "stream-table":
        return [("R", 1, 0), ("R", 3, 1), ("L", 1, 2), ("L", 2, 3)]
    return [("L", 1, 0), ("R", 1, 1), ("L", 2, 2), ("R", 3, 3)]


def rows(kind: str, join: str) -> list[tuple[int, dict[str, Any] | None, dict[str, Any] | None, int]]:
    """(join key, left row or None, right row or None, ts) ksqlDB emits, record at a time."""
    seen: dict[str, dict[int, dict[str, Any]]] = {"L": {}, "R": {}}
    out: list[tuple[int, dict[str, Any] | None, dict[str, Any] | None, int]] = []
    for side, key, ts in inputs(kind):
        row = {"ID": key, "A": LEFT_VALUES[key]} if side == "L" else {"ID": key, "B": RIGHT_VALUES[key]}
        other = seen["R" if side == "L" else "L"].get(key)
        seen[side][key] = row
        left, right = (row, other) if side == "L" else (other, row)
        if kind == "stream-table" and side == "R":
            continue  # table changes only update the table
        if other is not None:
            out.append((key, left, right, ts))
        elif side == "L" and join in ("LEFT", "FULL") or side == "R" and join in ("RIGHT", "FULL"):
            out.append((key, left, right, ts))
    return out


def case(kind: str, join: str, criteria: str, what: str, select: str, key: str | None,
         values: list[tuple[str, str, str]], viable: list[str]) -> dict[str, Any]:
    left_ddl, right_ddl, _, within = KINDS[kind]
    sink = "TABLE" if kind == "table-table" else "STREAM"
    statements = [left_ddl, right_ddl,
                  f"CREATE {sink} OUT AS SELECT {select} FROM L {JOIN_WORDS[join]} R{within} ON {criteria};"]
    name = f"{kind} {join} join on {criteria}, projecting {what}"
    if key is None:
        synthetic = not viable
        shown = ["ROWKEY"] if synthetic else viable
        noun = "join expression" if len(shown) == 1 else "join expressions"
        listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
        message = (f"The query used to build `OUT` must include the {noun} {listed} in its projection "
                   f"(eg, SELECT {shown[0]}...).")
        if synthetic:
            message += "\nROWKEY was added as a synthetic key column because the join criteria did not match"
        return {"name": name, "statements": statements,
                "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException",
                                      "message": message}}
    records = [{"topic": side.lower(), "key": k,
                "value": {"A": LEFT_VALUES[k]} if side == "L" else {"B": RIGHT_VALUES[k]}, "timestamp": ts}
               for side, k, ts in inputs(kind)]
    outputs = []
    for k, left, right, ts in rows(kind, join):
        sides = {"L": left, "R": right}
        value = {name: (None if sides[src] is None else sides[src][col]) for name, src, col in values}
        outputs.append({"topic": "OUT", "key": k, "value": value, "timestamp": ts})
    schema = ", ".join([f"{key} INTEGER KEY"] + [f"{name} INTEGER" for name, _, _ in values])
    return {"name": name, "statements": statements, "inputs": records, "outputs": outputs,
            "post": {"sources": [{"name": "OUT", "type": sink.lower(), "schema": schema}]}}


KEY_TWICE = ("The projection contains a key column (`{column}`) more than once, aliased as: {a} and {b}.\nEach key "
             "column must only be in the projection once. If you intended to copy the key into the value, then "
             "consider using the AS_VALUE function to indicate which key reference should be copied.")


def refused(kind: str, join: str, select: str, message: str) -> dict[str, Any]:
    left_ddl, right_ddl, _, within = KINDS[kind]
    sink = "TABLE" if kind == "table-table" else "STREAM"
    return {"name": f"{kind} {join} join on L.ID = R.ID, projecting {select}: a key column twice",
            "statements": [left_ddl, right_ddl, f"CREATE {sink} OUT AS SELECT {select} FROM L {JOIN_WORDS[join]} "
                                                 f"R{within} ON L.ID = R.ID;"],
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": message}}


def cases() -> list[dict[str, Any]]:
    out = []
    for kind, (_, _, joins, _) in KINDS.items():
        for join in joins:
            projections = SYNTHETIC_PROJECTIONS if join == "FULL" else PLAIN_PROJECTIONS
            viable = [] if join == "FULL" else ["L.ID", "R.ID"]
            for what, select, key, values in projections:
                out.append(case(kind, join, "L.ID = R.ID", what, select, key, values, viable))
            if join != "FULL":  # written the other way round: the same left and right
                out.append(case(kind, join, "R.ID = L.ID", "both keys, right first",
                                *PLAIN_PROJECTIONS[3][1:], viable))
    # a key selected twice is refused, naming the key column after the side the projection selects first
    for kind, (_, _, joins, _) in KINDS.items():
        for join in joins:
            selects = [("ROWKEY", "ROWKEY, ROWKEY AS K2, L.A")] if join == "FULL" else [
                ("L_ID", "L.ID, L.ID AS K2, L.A"), ("R_ID", "R.ID, R.ID AS K2, L.A"),
                ("L_ID", "R.ID, L.ID AS K2, L.ID AS K3")]
            for column, select in selects:
                aliases = sorted({"K2", column} if "K3" not in select else {"K2", "K3"})
                out.append(refused(kind, join, select, KEY_TWICE.format(column=column, a=aliases[0], b=aliases[1])))
    # stream-stream joins on expressions: a side that is no plain column is no viable key
    for join in ("INNER", "LEFT", "RIGHT"):
        out.append(case("stream-stream", join, "L.ID + 0 = R.ID", "the right key", *PLAIN_PROJECTIONS[1][1:],
                        ["R.ID"]))
        out.append(case("stream-stream", join, "L.ID + 0 = R.ID", "the left key only", "L.ID, R.B", None, [],
                        ["R.ID"]))
        out.append(case("stream-stream", join, "L.ID = R.ID * 1", "the left key", *PLAIN_PROJECTIONS[0][1:],
                        ["L.ID"]))
        out.append(case("stream-stream", join, "L.ID + 0 = R.ID * 1", "ROWKEY", *SYNTHETIC_PROJECTIONS[0][1:], []))
        out.append(case("stream-stream", join, "L.ID + 0 = R.ID * 1", "both source keys but not ROWKEY",
                        *SYNTHETIC_PROJECTIONS[3][1:], []))
    return out


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("result-keys.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
