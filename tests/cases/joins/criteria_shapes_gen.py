"""Join criteria shapes over their runtime scope: each side of ``ON`` a plain key column, a value column, an
arithmetic expression, a function, a CAST or a struct field, for every join kind that admits it (stream-stream
INNER/LEFT/RIGHT/FULL, stream-table INNER/LEFT, and a stream-table step on an expression after a stream-stream
join) - the result's key column (name and type), its repartitions' effect on the rows, and NULL join keys.

The rules (ksqlDB's ``Analyzer.visitJoinedSource``, ``LogicalPlanner.buildJoinKey``, ``JoinNode``,
``PreJoinRepartitionNode``; Kafka Streams' joins, from memory):

- a side whose join expression is not its source's single key column is re-keyed by that expression (a
  stream only; a table side must be joined on its key - refused elsewhere, criteria_rejections_gen);
- the viable keys are the sides whose expression is a plain column, left before right; FULL OUTER has none;
  the first viable key the projection selects is the key column (named ``<SOURCE>_<COLUMN>`` or its alias);
  with no viable key the key is a synthetic ``ROWKEY`` of the expression's type;
- the key's value is the join key - for a row padded on the side that names it too;
- a NULL join key never joins: an INNER (and the inner side of an outer) join drops it, the outer side of a
  LEFT/RIGHT/FULL join emits it at once, NULL-padded, with a NULL key (Kafka Streams' KIP-962);
- stream-stream joins here have no GRACE (the legacy window): an unmatched outer record is emitted at
  once; the result's time is the later of the two records', a stream-table result's the stream record's.

The topics take the harness's 4 partitions: under the own cases' kafka placement the keys spread and the
re-keyed sides move between partitions.

Writes tests/cases/joins/criteria-shapes.json: ``python tests/cases/joins/criteria_shapes_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

Row = dict[str, Any]

STREAM_COLUMNS = "X INT, S STRING, ST STRUCT<F INT>, D DOUBLE"
LEFT_DDL = (f"CREATE STREAM L (ID INT KEY, {STREAM_COLUMNS}, A STRING) "
            "WITH (kafka_topic='l', format='JSON');")
RIGHT_DDL = (f"CREATE STREAM R (ID INT KEY, {STREAM_COLUMNS}, B STRING) "
             "WITH (kafka_topic='r', format='JSON');")
TABLE_DDL = {"INTEGER": "CREATE TABLE R (ID INT PRIMARY KEY, B STRING) "
                        "WITH (kafka_topic='r', format='JSON');",
             "STRING": "CREATE TABLE R (ID STRING PRIMARY KEY, B STRING) "
                       "WITH (kafka_topic='r', format='JSON');"}


def _x(r: Row) -> Any:
    return r["X"]


def _plus1(r: Row) -> Any:
    return None if r["X"] is None else r["X"] + 1


def _minus1(r: Row) -> Any:
    return None if r["X"] is None else r["X"] - 1


def _abs(r: Row) -> Any:
    return None if r["X"] is None else abs(r["X"])


def _upper(r: Row) -> Any:
    return None if r["S"] is None else r["S"].upper()


def _x_string(r: Row) -> Any:
    return None if r["X"] is None else str(r["X"])


def _field(r: Row) -> Any:
    return None if r["ST"] is None else r["ST"]["F"]


def _double_bigint(r: Row) -> Any:
    return None if r["D"] is None else int(r["D"])  # Java's (long) of a double: towards zero


# a side's expression: (SQL over alias {a}, plain column name or None, value of a row)
Side = tuple[str, str | None, Callable[[Row], Any]]
ID: Side = ("{a}.ID", "ID", lambda r: r["ID"])
X: Side = ("{a}.X", "X", _x)
S: Side = ("{a}.S", "S", lambda r: r["S"])
X_PLUS_1: Side = ("{a}.X + 1", None, _plus1)
X_MINUS_1: Side = ("{a}.X - 1", None, _minus1)
ABS_X: Side = ("ABS({a}.X)", None, _abs)
UCASE_S: Side = ("UCASE({a}.S)", None, _upper)
CAST_X: Side = ("CAST({a}.X AS STRING)", None, _x_string)
FIELD: Side = ("{a}.ST->F", None, _field)
CAST_D: Side = ("CAST({a}.D AS BIGINT)", None, _double_bigint)

# stream-stream shapes: (name, left, right, key type)
STREAM_SHAPES: list[tuple[str, Side, Side, str]] = [
    ("both keys", ID, ID, "INTEGER"),
    ("a value column on each side", X, X, "INTEGER"),
    ("arithmetic on the left", X_PLUS_1, X, "INTEGER"),
    ("arithmetic on the right", X, X_MINUS_1, "INTEGER"),
    ("arithmetic on the left against the right's key", X_PLUS_1, ID, "INTEGER"),
    ("a function on each side", ABS_X, ABS_X, "INTEGER"),
    ("a function on the left against a STRING column", UCASE_S, S, "STRING"),
    ("a CAST on the left against a STRING column", CAST_X, S, "STRING"),
    ("a struct field on the left against a value column", FIELD, X, "INTEGER"),
    ("a struct field on each side", FIELD, FIELD, "INTEGER"),
    ("a CAST of a DOUBLE to BIGINT on each side", CAST_D, CAST_D, "BIGINT"),
]
# stream-table shapes: (name, left, table key type)
TABLE_SHAPES: list[tuple[str, Side, str]] = [
    ("the stream's key", ID, "INTEGER"),
    ("a value column", X, "INTEGER"),
    ("arithmetic", X_PLUS_1, "INTEGER"),
    ("a function", UCASE_S, "STRING"),
    ("a CAST", CAST_X, "STRING"),
    ("a struct field", FIELD, "INTEGER"),
]

JOIN_WORDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN", "FULL": "FULL OUTER JOIN"}


def _row(i: int, x: int | None, s: str | None, f: int | None, d: float | None, tag: str, col: str) -> Row:
    return {"ID": i, "X": x, "S": s, "ST": None if f is None else {"F": f}, "D": d, col: tag}


# left and right records, in the order fed (timestamps ascending, all within one WITHIN 1 MINUTE window):
# for every shape one left record matches one right record, another left one matches nothing, a right one
# matches nothing, and a left one has NULL in every column the expressions read
LEFT_ROWS = [
    (_row(1, 1, "ab", 1, 1.9, "a1", "A"), 1000),
    (_row(2, 7, "zz", 7, -7.5, "a2", "A"), 3000),
    (_row(3, None, None, None, None, "a3", "A"), 5000),
]
RIGHT_ROWS = [
    (_row(2, 2, "AB", 2, -2.2, "b1", "B"), 2000),
    (_row(9, 1, "1", 1, 1.2, "b2", "B"), 4000),
    (_row(4, 40, "QQ", 40, 40.0, "b3", "B"), 6000),
]


def _wire(row: Row, side: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k != "ID"}


def stream_stream_rows(join: str, left: Side, right: Side) -> list[tuple[Any, Row | None, Row | None, int]]:
    """(key, left row, right row, time) a no-GRACE stream-stream join emits, record at a time in time order."""
    feed = sorted([("L", r, t) for r, t in LEFT_ROWS] + [("R", r, t) for r, t in RIGHT_ROWS], key=lambda e: e[2])
    seen: dict[str, list[tuple[Row, int]]] = {"L": [], "R": []}
    out: list[tuple[Any, Row | None, Row | None, int]] = []
    outer = {"L": join in ("LEFT", "FULL"), "R": join in ("RIGHT", "FULL")}
    for side, row, ts in feed:
        mine, other = (left, right) if side == "L" else (right, left)
        key = mine[2](row)
        seen[side].append((row, ts))
        matches = [] if key is None else [(o, ot) for o, ot in seen["R" if side == "L" else "L"]
                                          if other[2](o) == key and abs(ot - ts) <= 60000]
        for o, ot in matches:
            out.append((key, row, o, max(ts, ot)) if side == "L" else (key, o, row, max(ts, ot)))
        if not matches and outer[side]:
            out.append((key, row, None, ts) if side == "L" else (key, None, row, ts))
    return out


def stream_table_rows(join: str, left: Side, key_type: str) -> list[tuple[Any, Row | None, Row | None, int]]:
    """The table's rows are read first; each stream record joins the table's row of its key."""
    table = {r["ID"] if key_type == "INTEGER" else r["S"]: r for r, _ in RIGHT_ROWS}
    out: list[tuple[Any, Row | None, Row | None, int]] = []
    for row, ts in LEFT_ROWS:
        key = left[2](row)
        match = None if key is None else table.get(key)
        if match is not None or join == "LEFT":
            out.append((key, row, match, ts))
    return out


def table_records(key_type: str) -> list[dict[str, Any]]:
    return [{"topic": "r", "key": r["ID"] if key_type == "INTEGER" else r["S"], "value": {"B": r["B"]},
             "timestamp": t} for r, t in RIGHT_ROWS]


def stream_records(topic: str, rows: list[tuple[Row, int]]) -> list[dict[str, Any]]:
    return [{"topic": topic, "key": r["ID"], "value": _wire(r, topic), "timestamp": t} for r, t in rows]


def _key_column(join: str, left: Side, right: Side, shared: frozenset[str]) -> tuple[str, str]:
    """(the projection's key item, the key column's name): the first viable key, else ROWKEY aliased. A
    column both sides have is named ``<SOURCE>_<COLUMN>``, one only one side has keeps its name."""
    if join != "FULL":
        for alias, side in (("L", left), ("R", right)):
            if side[1] is not None:
                return f"{alias}.{side[1]}", f"{alias}_{side[1]}" if side[1] in shared else side[1]
    return "ROWKEY AS K", "K"


def stream_stream_case(join: str, name: str, left: Side, right: Side, key_type: str) -> dict[str, Any]:
    item, key_name = _key_column(join, left, right, frozenset({"ID", "X", "S", "ST", "D"}))
    on = f"{left[0].format(a='L')} = {right[0].format(a='R')}"
    outputs = [{"topic": "OUT", "key": key, "value": {"A": None if lr is None else lr["A"],
                                                     "B": None if rr is None else rr["B"]}, "timestamp": ts}
               for key, lr, rr, ts in stream_stream_rows(join, left, right)]
    return {
        "name": f"stream-stream {join} join on {on}: {name}",
        "statements": [LEFT_DDL, RIGHT_DDL,
                       f"CREATE STREAM OUT AS SELECT {item}, L.A, R.B FROM L {JOIN_WORDS[join]} R WITHIN 1 MINUTE "
                       f"ON {on};"],
        "inputs": sorted(stream_records("l", LEFT_ROWS) + stream_records("r", RIGHT_ROWS),
                         key=lambda r: r["timestamp"]),
        "outputs": outputs,
        "post": {"sources": [{"name": "OUT", "type": "stream",
                              "schema": f"{key_name} {key_type} KEY, A STRING, B STRING"}]},
    }


def stream_table_case(join: str, name: str, left: Side, key_type: str) -> dict[str, Any]:
    item, key_name = _key_column(join, left, ID, frozenset({"ID"}))
    on = f"{left[0].format(a='L')} = R.ID"
    outputs = [{"topic": "OUT", "key": key, "value": {"A": lr["A"], "B": None if rr is None else rr["B"]},
                "timestamp": ts} for key, lr, rr, ts in stream_table_rows(join, left, key_type)]
    return {
        "name": f"stream-table {join} join on {on}: {name}",
        "statements": [LEFT_DDL, TABLE_DDL[key_type],
                       f"CREATE STREAM OUT AS SELECT {item}, L.A, R.B FROM L {JOIN_WORDS[join]} R ON {on};"],
        "inputs": table_records(key_type) + stream_records("l", LEFT_ROWS),
        "outputs": outputs,
        "post": {"sources": [{"name": "OUT", "type": "stream",
                              "schema": f"{key_name} {key_type} KEY, A STRING, B STRING"}]},
    }


C_DDL = "CREATE TABLE C (ID INT PRIMARY KEY, VC STRING) WITH (kafka_topic='c', format='JSON');"
C_ROWS = {2: "c2", 8: "c8"}


def three_way_case(first: str, second: str) -> dict[str, Any]:
    """L and R joined on their keys, then the table C on an expression of L: the first join's rows are
    re-keyed by it - a row whose expression fails (``L.X + 1`` over a NULL X) goes on under a null key."""
    outputs = []
    for _, lr, rr, ts in stream_stream_rows(first, ID, ID):
        assert lr is not None
        key = _plus1(lr)
        vc = None if key is None else C_ROWS.get(key)
        if vc is not None or second == "LEFT":
            outputs.append({"topic": "OUT", "key": key, "value": {"A": lr["A"], "B": None if rr is None else rr["B"],
                                                               "VC": vc}, "timestamp": ts})
    on = "L.X + 1 = C.ID"
    return {
        "name": f"stream-stream {first} join on the keys, then stream-table {second} join on {on}",
        "statements": [LEFT_DDL, RIGHT_DDL, C_DDL,
                       f"CREATE STREAM OUT AS SELECT C.ID, L.A, R.B, C.VC FROM L {JOIN_WORDS[first]} R WITHIN 1 MINUTE "
                       f"ON L.ID = R.ID {JOIN_WORDS[second]} C ON {on};"],
        "inputs": [{"topic": "c", "key": k, "value": {"VC": v}, "timestamp": 0} for k, v in C_ROWS.items()]
        + sorted(stream_records("l", LEFT_ROWS) + stream_records("r", RIGHT_ROWS), key=lambda r: r["timestamp"]),
        "outputs": outputs,
        "post": {"sources": [{"name": "OUT", "type": "stream",
                              "schema": "C_ID INTEGER KEY, A STRING, B STRING, VC STRING"}]},
    }


def cases() -> list[dict[str, Any]]:
    out = [stream_stream_case(join, *shape) for join in ("INNER", "LEFT", "RIGHT", "FULL") for shape in STREAM_SHAPES]
    out += [stream_table_case(join, *shape) for join in ("INNER", "LEFT") for shape in TABLE_SHAPES]
    out += [three_way_case(first, second) for first in ("INNER", "LEFT") for second in ("INNER", "LEFT")]
    return out


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("criteria-shapes.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
