"""Joins inside other statement kinds: each stream-producing join (stream-stream INNER/LEFT, stream-table
INNER/LEFT) as a plain CSAS, as INSERT INTO an existing stream, with PARTITION BY a value column or an
expression of either side, with a table function (EXPLODE) over the joined rows and with a WHERE on the
padded side, projecting each side's ROWTIME - and the sinks an INSERT INTO a join may not write.

The rules (ksqlDB, from memory): a join's rows go through the statement's later steps like any source's -
WHERE after the join (a padded row's missing side reads NULL), PARTITION BY re-keys the joined rows (a NULL
key stays NULL, the key column named as the expression's projection alias or the column's name), a table
function emits one row per element (none for an empty or NULL array); INSERT INTO needs the sink's schema,
key included, to equal the query's (``Incompatible schema between results and sink.``) and a stream sink
(``INSERT INTO can only be used to insert into a stream. <SINK> is a table.``; a table-table join's query
``Incompatible data sink and query result. Data sink (<SINK>) type is KSTREAM but select query result is
KTABLE.``, EngineExecutor.validateExistingSink).

The topics take the harness's 4 partitions: under the own cases' kafka placement the keys spread and the
re-keyed sides move between partitions.

Writes tests/cases/joins/join-statements.json: ``python tests/cases/joins/join_statements_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

Row = dict[str, Any]
LEFT_DDL = ("CREATE STREAM L (ID INT KEY, X INT, ARR ARRAY<INT>, A STRING) "
            "WITH (kafka_topic='l', format='JSON');")
RIGHT_DDL = {"stream": "CREATE STREAM R (ID INT KEY, Y INT, B STRING) WITH (kafka_topic='r', format='JSON');",
             "table": "CREATE TABLE R (ID INT PRIMARY KEY, Y INT, B STRING) WITH (kafka_topic='r', format='JSON');"}
JOINS = {("stream", "INNER"): "JOIN R WITHIN 1 MINUTE", ("stream", "LEFT"): "LEFT JOIN R WITHIN 1 MINUTE",
         ("table", "INNER"): "JOIN R", ("table", "LEFT"): "LEFT JOIN R"}

# (left row, time); the right rows come before the stream's for a table, in time order for a stream
LEFT_ROWS: list[tuple[Row, int]] = [
    ({"ID": 1, "X": 10, "ARR": [1, 2], "A": "a1"}, 1000),
    ({"ID": 2, "X": 20, "ARR": [], "A": "a2"}, 3000),
    ({"ID": 3, "X": None, "ARR": None, "A": None}, 4000),
    ({"ID": 1, "X": 11, "ARR": [3], "A": "a4"}, 5000),
]
RIGHT_ROWS: list[tuple[Row, int]] = [({"ID": 1, "Y": 7, "B": "b1"}, 2000), ({"ID": 3, "Y": None, "B": "b3"}, 2500)]


def joined(right: str, join: str) -> list[tuple[Row, Row | None, int]]:
    """(left row, right row or None, time) of the join, record at a time (no GRACE: a LEFT stream-stream
    join's unmatched left record is emitted at once). Each row carries its record's time as ROWTIME."""
    out: list[tuple[Row, Row | None, int]] = []
    lefts = [(dict(r, ROWTIME=t), t) for r, t in LEFT_ROWS]
    rights = [(dict(r, ROWTIME=t), t) for r, t in RIGHT_ROWS]
    if right == "table":
        table = {r["ID"]: r for r, _ in rights}
        for row, ts in lefts:
            match = table.get(row["ID"])
            if match is not None or join == "LEFT":
                out.append((row, match, ts))
        return out
    feed = sorted([("L", r, t) for r, t in lefts] + [("R", r, t) for r, t in rights], key=lambda e: e[2])
    seen: dict[str, list[tuple[Row, int]]] = {"L": [], "R": []}
    for side, row, ts in feed:
        other = seen["R" if side == "L" else "L"]
        matches = [(o, ot) for o, ot in other if o["ID"] == row["ID"] and abs(ot - ts) <= 60000]
        seen[side].append((row, ts))
        for o, ot in matches:
            out.append((row, o, max(ts, ot)) if side == "L" else (o, row, max(ts, ot)))
        if not matches and side == "L" and join == "LEFT":
            out.append((row, None, ts))
    return out


def _b(r: Row | None) -> Any:
    return None if r is None else r["B"]


def _y(r: Row | None) -> Any:
    return None if r is None else r["Y"]


# a statement: (name, statements after the sources, sink topic, sink schema, records of one joined row as
# (key, value) pairs)
Records = Callable[[Row, Row | None], list[tuple[Any, Any]]]
Statement = tuple[str, list[str], str, str, Records]


def statements(on: str) -> list[Statement]:
    return [
        ("a CSAS", [f"CREATE STREAM OUT AS SELECT L.ID, L.A, R.B FROM L {on} ON L.ID = R.ID;"], "OUT",
         "L_ID INT KEY, A STRING, B STRING", lambda lr, rr: [(lr["ID"], {"A": lr["A"], "B": _b(rr)})]),
        ("INSERT INTO an existing stream",
         ["CREATE STREAM OUT (L_ID INT KEY, A STRING, B STRING) WITH (kafka_topic='OUT', format='JSON');",
          f"INSERT INTO OUT SELECT L.ID, L.A, R.B FROM L {on} ON L.ID = R.ID;"], "OUT",
         "L_ID INT KEY, A STRING, B STRING", lambda lr, rr: [(lr["ID"], {"A": lr["A"], "B": _b(rr)})]),
        ("PARTITION BY a left value column",
         [f"CREATE STREAM OUT AS SELECT L.X, L.ID, R.B FROM L {on} ON L.ID = R.ID PARTITION BY L.X;"], "OUT",
         "X INT KEY, L_ID INT, B STRING", lambda lr, rr: [(lr["X"], {"L_ID": lr["ID"], "B": _b(rr)})]),
        ("PARTITION BY a right value column",
         [f"CREATE STREAM OUT AS SELECT R.Y, L.ID, L.A FROM L {on} ON L.ID = R.ID PARTITION BY R.Y;"], "OUT",
         "Y INT KEY, L_ID INT, A STRING", lambda lr, rr: [(_y(rr), {"L_ID": lr["ID"], "A": lr["A"]})]),
        ("PARTITION BY an expression of both sides",
         [f"CREATE STREAM OUT AS SELECT CONCAT(L.A, R.B) AS K, L.ID FROM L {on} ON L.ID = R.ID "
          "PARTITION BY CONCAT(L.A, R.B);"], "OUT", "K STRING KEY, L_ID INT",
         lambda lr, rr: [(_concat(lr["A"], _b(rr)), {"L_ID": lr["ID"]})]),
        ("EXPLODE over the joined rows",
         [f"CREATE STREAM OUT AS SELECT L.ID, EXPLODE(L.ARR) AS E, R.B FROM L {on} ON L.ID = R.ID;"], "OUT",
         "L_ID INT KEY, E INT, B STRING",
         lambda lr, rr: [(lr["ID"], {"E": e, "B": _b(rr)}) for e in (lr["ARR"] or [])]),
        ("each side's ROWTIME (a stream-stream result has the later one's time, a stream-table result the "
         "stream record's)",
         [f"CREATE STREAM OUT AS SELECT L.ID, L.ROWTIME AS LT, R.ROWTIME AS RT FROM L {on} ON L.ID = R.ID;"], "OUT",
         "L_ID INT KEY, LT BIGINT, RT BIGINT",
         lambda lr, rr: [(lr["ID"], {"LT": lr["ROWTIME"], "RT": None if rr is None else rr["ROWTIME"]})]),
        ("a WHERE on the right side's column",
         [f"CREATE STREAM OUT AS SELECT L.ID, L.A, R.B FROM L {on} ON L.ID = R.ID WHERE R.B IS NULL;"], "OUT",
         "L_ID INT KEY, A STRING, B STRING",
         lambda lr, rr: [(lr["ID"], {"A": lr["A"], "B": None})] if _b(rr) is None else []),
    ]


def _concat(*parts: str | None) -> str:
    """ksqlDB's CONCAT: NULL arguments are skipped."""
    return "".join(p for p in parts if p is not None)


def inputs(right: str) -> list[dict[str, Any]]:
    def rec(topic: str, row: Row, ts: int) -> dict[str, Any]:
        return {"topic": topic, "key": row["ID"], "value": {k: v for k, v in row.items() if k != "ID"},
                "timestamp": ts}
    rights = [rec("r", r, t) for r, t in RIGHT_ROWS]
    lefts = [rec("l", r, t) for r, t in LEFT_ROWS]
    if right == "table":
        return rights + lefts
    return sorted(rights + lefts, key=lambda r: r["timestamp"])


def case(right: str, join: str, st: Statement) -> dict[str, Any]:
    name, sqls, topic, schema, records = st
    outputs = [{"topic": topic, "key": k, "value": v, "timestamp": ts}
               for lr, rr, ts in joined(right, join) for k, v in records(lr, rr)]
    return {"name": f"stream-{right} {join} join: {name}",
            "statements": [LEFT_DDL, RIGHT_DDL[right], *sqls],
            "inputs": inputs(right), "outputs": outputs,
            "post": {"sources": [{"name": "OUT", "type": "stream", "schema": schema}]}}


def refused(name: str, sqls: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": sqls,
            "expectedException": {"type": "io.confluent.ksql.util.KsqlStatementException", "message": message}}


TABLES = ["CREATE TABLE T (ID INT PRIMARY KEY, A STRING) WITH (kafka_topic='t', format='JSON');",
          "CREATE TABLE U (ID INT PRIMARY KEY, B STRING) WITH (kafka_topic='u', format='JSON');"]


def refusals() -> list[dict[str, Any]]:
    out = [
        refused("INSERT INTO a table from a table-table join is refused", TABLES + [
            "CREATE TABLE OUT (T_ID INT PRIMARY KEY, A STRING, B STRING) WITH (kafka_topic='OUT', format='JSON');",
            "INSERT INTO OUT SELECT T.ID, A, B FROM T JOIN U ON T.ID = U.ID;"],
            "INSERT INTO can only be used to insert into a stream. OUT is a table."),
        refused("INSERT INTO a stream from a table-table join is refused", TABLES + [
            "CREATE STREAM OUT (T_ID INT KEY, A STRING, B STRING) WITH (kafka_topic='OUT', format='JSON');",
            "INSERT INTO OUT SELECT T.ID, A, B FROM T JOIN U ON T.ID = U.ID;"],
            "Incompatible data sink and query result. Data sink (OUT) type is KSTREAM but select query result is "
            "KTABLE."),
    ]
    for right, join in JOINS:
        on = JOINS[(right, join)]
        out.append(refused(f"an unqualified ROWTIME in a stream-{right} {join} join is ambiguous",
                           [LEFT_DDL, RIGHT_DDL[right],
                            f"CREATE STREAM OUT AS SELECT L.ID, ROWTIME AS T FROM L {on} ON L.ID = R.ID;"],
                           "Column 'ROWTIME' is ambiguous. Could be L.ROWTIME or R.ROWTIME."))
        for key, shown, why in (("K INT KEY", "`K` INTEGER KEY", "a key named otherwise"),
                                ("L_ID BIGINT KEY", "`L_ID` BIGINT KEY", "a key of another type")):
            out.append(refused(
                f"INSERT INTO a stream with {why} from a stream-{right} {join} join is refused",
                [LEFT_DDL, RIGHT_DDL[right],
                 f"CREATE STREAM OUT ({key}, A STRING, B STRING) WITH (kafka_topic='OUT', format='JSON');",
                 f"INSERT INTO OUT SELECT L.ID, L.A, R.B FROM L {on} ON L.ID = R.ID;"],
                "Incompatible schema between results and sink.\nResult schema is `L_ID` INTEGER KEY, `A` STRING, "
                f"`B` STRING\nSink schema is {shown}, `A` STRING, `B` STRING"))
    return out


def cases() -> list[dict[str, Any]]:
    out = [case(right, join, st) for (right, join), on in JOINS.items() for st in statements(f"{on}")]
    return out + refusals()


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("join-statements.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
