"""A GROUP BY over a join's output, over its scope: every join kind x what is grouped by (the left or the right
join expression - the join key, aggregated in the join's task - or a value column of either side, through
``Aggregate-GroupBy-repartition``) x the sources' key format. Three families, one file each:

- ``aggregate-after-join.json``: stream-stream INNER/LEFT/RIGHT/FULL (no GRACE) and stream-table INNER/LEFT.
  Each joined row is aggregated once, as the join emits it - null-padded rows of the outer kinds included.
- ``table-aggregate-after-join.json``: table-table INNER/LEFT/RIGHT/FULL. A change carries its old row beside
  the new one (Kafka Streams' KTable-KTable join processors with ``sendOldValues``, which the aggregation's
  ``groupBy`` turns on) and the old row is undone before the new one is added (``KTableRepartitionMap``: one
  update when both land in the same group, else a subtraction and an addition, old first;
  ``KTableAggregate``). INNER: nothing while the other side's row is absent; LEFT, left change: new and old
  joined or padded, nothing only when both are NULL and the right row is absent; LEFT, right change: nothing
  without a left row, else the left row with the new and with the old right row (padded when NULL - the old
  row is never NULL there); FULL: either side as LEFT's left change; RIGHT runs as ``right.leftJoin(left)``.
- ``fk-aggregate-after-join.json``: foreign-key INNER/LEFT. The result is a table keyed by the left key: each
  answer replaces that key's previous result (read from the join's materialized result), which is undone
  first. Answers follow the subscription rules of the other foreign-key files: a new left row without its
  right row gives nothing on INNER, a padded row on LEFT; a foreign-key change to a missing right row deletes
  an INNER result (pads on LEFT); a right change reaches the rows subscribed to it at its own time; a right
  delete deletes (INNER) or pads (LEFT) them; a left delete deletes its result.

A stream join's result grouped by the join column the projection names (either side's, for INNER, LEFT and RIGHT)
is grouped by its key (ksqlDB's ``LogicalPlanner.buildJoinKey`` names the key column after the first viable
join column the projection selects, ``SchemaKStream.groupBy`` finds the GROUP BY is that key column and takes
``groupByKey``, which runs no group-by mapper - from memory): a row padded on that side groups under the join
key, though the column's value is NULL in the row. FULL OUTER's key is synthetic, and a table-table or
foreign-key result is a table (``KTable.groupBy``, a mapper always): there, and for value columns, a NULL
grouping value (a padded side's column) is no group - that half of an update is skipped; ``COUNT(*)`` counts rows, ``COUNT(R.B)`` matched ones; counts that
reach 0 stay as rows; the result is keyed in the sources' key format; output time is the later of the
update's and the group's last. Table and foreign-key changes grouped by a value column can leave one group for
another, whose updates come from different tasks in no order across them: those cases read one-partition
tables (one task keeps the harness's order).

Writes the three files: ``python tests/cases/joins/aggregate_after_join_gen.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from case_keys import key

FORMATS = ["KAFKA", "JSON", "DELIMITED", "AVRO", "PROTOBUF", "JSON_SR"]

Record = tuple[str, int, Any, int]  # (topic, key, value, timestamp)
Row = tuple[Any, Any]  # (left record or None, right record or None)
Change = tuple[Row | None, Row | None, int]  # (new row, old row, timestamp)

# what is grouped by: (expression, key type, the group of a row); the left side's value column is G, the right's H
GROUPINGS: dict[str, tuple[str, str, Callable[[Row], Any]]] = {
    "the left join expression": ("L.ID", "INT", lambda row: row[0][1] if row[0] else None),
    "the right join expression": ("R.ID", "INT", lambda row: row[1][1] if row[1] else None),
    "a left value column": ("L.G", "STRING", lambda row: row[0][2]["G"] if row[0] else None),
    "a right value column": ("R.H", "STRING", lambda row: row[1][2]["H"] if row[1] else None),
}

# ---------------------------------------------------------------- stream joins: each joined row, added once
S_L1A: Record = ("l", 1, {"A": "a1", "G": "g1"}, 100)
S_L2: Record = ("l", 2, {"A": "a2", "G": "g2"}, 200)
S_L1B: Record = ("l", 1, {"A": "a1b", "G": "g1"}, 400)
S_R1A: Record = ("r", 1, {"B": "b1", "H": "h1"}, 0)
S_R3: Record = ("r", 3, {"B": "b3", "H": "h3"}, 300)
S_R1B: Record = ("r", 1, {"B": "b1b", "H": "h1"}, 500)
STREAM_RECORDS = [S_R1A, S_L1A, S_L2, S_R3, S_L1B, S_R1B]
STREAM_JOINED: dict[str, list[tuple[Any, Any, int]]] = {
    "stream-stream INNER": [(S_L1A, S_R1A, 100), (S_L1B, S_R1A, 400), (S_L1A, S_R1B, 500), (S_L1B, S_R1B, 500)],
    "stream-stream LEFT": [(S_L1A, S_R1A, 100), (S_L2, None, 200), (S_L1B, S_R1A, 400), (S_L1A, S_R1B, 500),
                           (S_L1B, S_R1B, 500)],
    "stream-stream RIGHT": [(None, S_R1A, 0), (S_L1A, S_R1A, 100), (None, S_R3, 300), (S_L1B, S_R1A, 400),
                            (S_L1A, S_R1B, 500), (S_L1B, S_R1B, 500)],
    "stream-stream FULL": [(None, S_R1A, 0), (S_L1A, S_R1A, 100), (S_L2, None, 200), (None, S_R3, 300),
                           (S_L1B, S_R1A, 400), (S_L1A, S_R1B, 500), (S_L1B, S_R1B, 500)],
    "stream-table INNER": [(S_L1A, S_R1A, 100), (S_L1B, S_R1A, 400)],
    "stream-table LEFT": [(S_L1A, S_R1A, 100), (S_L2, None, 200), (S_L1B, S_R1A, 400)],
}
STREAM_JOIN_SQL = {
    "stream-stream INNER": "JOIN R WITHIN 1 MINUTE", "stream-stream LEFT": "LEFT JOIN R WITHIN 1 MINUTE",
    "stream-stream RIGHT": "RIGHT JOIN R WITHIN 1 MINUTE", "stream-stream FULL": "FULL OUTER JOIN R WITHIN 1 MINUTE",
    "stream-table INNER": "JOIN R", "stream-table LEFT": "LEFT JOIN R",
}

# ---------------------------------------------------------------- table-table joins: (new, old) changes
T_L1A: Record = ("l", 1, {"A": "a1", "G": "g1"}, 0)
T_R1A: Record = ("r", 1, {"B": "b1", "H": "h1"}, 10)
T_L1B: Record = ("l", 1, {"A": "a1b", "G": "g2"}, 20)  # moves key 1 to another left group
T_R1B: Record = ("r", 1, {"B": "b1b", "H": "h2"}, 30)  # moves key 1 to another right group
T_L2: Record = ("l", 2, {"A": "a2", "G": "g1"}, 40)  # a left row without a right one
T_R3: Record = ("r", 3, {"B": "b3", "H": "h1"}, 50)  # a right row without a left one
T_L1X: Record = ("l", 1, None, 60)
T_R1X: Record = ("r", 1, None, 70)
TABLE_RECORDS = [T_L1A, T_R1A, T_L1B, T_R1B, T_L2, T_R3, T_L1X, T_R1X]
TABLE_CHANGES: dict[str, list[Change]] = {
    "INNER": [((T_L1A, T_R1A), None, 10), ((T_L1B, T_R1A), (T_L1A, T_R1A), 20), ((T_L1B, T_R1B), (T_L1B, T_R1A), 30),
              (None, (T_L1B, T_R1B), 60)],
    "LEFT": [((T_L1A, None), None, 0), ((T_L1A, T_R1A), (T_L1A, None), 10), ((T_L1B, T_R1A), (T_L1A, T_R1A), 20),
             ((T_L1B, T_R1B), (T_L1B, T_R1A), 30), ((T_L2, None), None, 40), (None, (T_L1B, T_R1B), 60)],
    "RIGHT": [((T_L1A, T_R1A), None, 10), ((T_L1B, T_R1A), (T_L1A, T_R1A), 20), ((T_L1B, T_R1B), (T_L1B, T_R1A), 30),
              ((None, T_R3), None, 50), ((None, T_R1B), (T_L1B, T_R1B), 60), (None, (None, T_R1B), 70)],
    "FULL": [((T_L1A, None), None, 0), ((T_L1A, T_R1A), (T_L1A, None), 10), ((T_L1B, T_R1A), (T_L1A, T_R1A), 20),
             ((T_L1B, T_R1B), (T_L1B, T_R1A), 30), ((T_L2, None), None, 40), ((None, T_R3), None, 50),
             ((None, T_R1B), (T_L1B, T_R1B), 60), (None, (None, T_R1B), 70)],
}
TABLE_JOIN_SQL = {"INNER": "JOIN R", "LEFT": "LEFT JOIN R", "RIGHT": "RIGHT JOIN R", "FULL": "FULL OUTER JOIN R"}

# ---------------------------------------------------------------- foreign-key joins: a result per left key
F_R10: Record = ("r", 10, {"B": "b10", "H": "h1"}, 0)
F_L1: Record = ("l", 1, {"FK": 10, "G": "g1"}, 10)
F_L2: Record = ("l", 2, {"FK": 12, "G": "g1"}, 20)  # its right row never comes
F_L1B: Record = ("l", 1, {"FK": 11, "G": "g2"}, 30)  # to a right row not there yet
F_R11: Record = ("r", 11, {"B": "b11", "H": "h2"}, 40)
F_R10B: Record = ("r", 10, {"B": "b10b", "H": "h2"}, 50)  # nobody subscribes to 10 any more
F_R11X: Record = ("r", 11, None, 60)
F_L1X: Record = ("l", 1, None, 70)
FK_RECORDS = [F_R10, F_L1, F_L2, F_L1B, F_R11, F_R10B, F_R11X, F_L1X]
# per kind, each answer: (left key, its new result or None, timestamp)
FK_RESULTS: dict[str, list[tuple[int, Row | None, int]]] = {
    "INNER": [(1, (F_L1, F_R10), 10), (1, None, 30), (1, (F_L1B, F_R11), 40), (1, None, 60), (1, None, 70)],
    "LEFT": [(1, (F_L1, F_R10), 10), (2, (F_L2, None), 20), (1, (F_L1B, None), 30), (1, (F_L1B, F_R11), 40),
             (1, (F_L1B, None), 60), (1, None, 70)],
}
FK_JOIN_SQL = {"INNER": "JOIN R", "LEFT": "LEFT JOIN R"}


def _fk_changes(kind: str) -> list[Change]:
    """Each answer as a change of the result table: the new result and the one it replaces."""
    current: dict[int, Row] = {}
    out: list[Change] = []
    for lkey, new, ts in FK_RESULTS[kind]:
        old = current.pop(lkey, None)
        if new is not None:
            current[lkey] = new
        out.append((new, old, ts))
    return out


def _aggregated(changes: list[Change], group_of: Callable[[Row], Any]) -> list[tuple[Any, int, int, int]]:
    """(group, COUNT(*), COUNT(R.B), time) of each update the aggregation emits."""
    state: dict[Any, tuple[int, int, int]] = {}
    out = []

    def apply(group: Any, add: Row | None, undo: Row | None, ts: int) -> None:
        c, cb, last = state.get(group, (0, 0, ts))
        for row, sign in ((undo, -1), (add, 1)):
            if row is not None:
                c, cb = c + sign, cb + sign * (row[1] is not None)
        state[group] = c, cb, max(ts, last)
        out.append((group, c, cb, max(ts, last)))

    for new, old, ts in changes:
        gnew = group_of(new) if new is not None else None
        gold = group_of(old) if old is not None else None
        if gnew is not None and gnew == gold:
            apply(gnew, new, old, ts)
            continue
        if gold is not None:
            apply(gold, None, old, ts)
        if gnew is not None:
            apply(gnew, new, None, ts)
    return out


def _join_key(row: Row) -> Any:
    """The key of a joined record: the join key, from whichever side is present."""
    return row[0][1] if row[0] else row[1][1]


def _case(name: str, fmt: str, grouping: str, sources: tuple[str, str], join: str, records: list[Record],
          changes: list[Change], one_partition: bool, by_key: bool = False) -> dict[str, Any]:
    expr, ktype, group_of = GROUPINGS[grouping]
    if by_key:
        group_of = _join_key
    parts = ", partitions=1" if one_partition else ""
    statements = [f"{s} WITH (kafka_topic='{t}', key_format='{fmt}', value_format='JSON'{parts});"
                  for s, t in zip(sources, ("l", "r"), strict=True)]
    statements.append(f"CREATE TABLE OUTPUT AS SELECT {expr} AS K, COUNT(*) AS C, COUNT(R.B) AS CB FROM L {join} "
                      f"GROUP BY {expr};")
    return {
        "name": f"{fmt} keys: {name} grouped by {grouping}",
        "statements": statements,
        "inputs": [{"topic": t, "key": key(fmt, "ID", k), "value": v, "timestamp": ts} for t, k, v, ts in records],
        "outputs": [{"topic": "OUTPUT", "key": key(fmt, "K", g), "value": {"C": c, "CB": cb}, "timestamp": ts}
                    for g, c, cb, ts in _aggregated(changes, group_of)],
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"K {ktype} KEY, C BIGINT, CB BIGINT",
                              "keyFormat": {"format": fmt}}]},
    }


def stream_cases() -> list[dict[str, Any]]:
    out = []
    for fmt in FORMATS:
        for kind, joined in STREAM_JOINED.items():
            right = "TABLE R (ID INT PRIMARY KEY" if kind.startswith("stream-table") else "STREAM R (ID INT KEY"
            sources = ("CREATE STREAM L (ID INT KEY, A STRING, G STRING)", f"CREATE {right}, B STRING, H STRING)")
            changes: list[Change] = [((lr, rr), None, ts) for lr, rr, ts in joined]
            for grouping in GROUPINGS:
                by_key = "join expression" in grouping and not kind.endswith("FULL")
                out.append(_case(f"{kind} join", fmt, grouping, sources, f"{STREAM_JOIN_SQL[kind]} ON L.ID = R.ID",
                                 STREAM_RECORDS, changes, False, by_key))
    return out


def table_cases() -> list[dict[str, Any]]:
    sources = ("CREATE TABLE L (ID INT PRIMARY KEY, A STRING, G STRING)",
               "CREATE TABLE R (ID INT PRIMARY KEY, B STRING, H STRING)")
    return [_case(f"table-table {kind} join", fmt, grouping, sources, f"{TABLE_JOIN_SQL[kind]} ON L.ID = R.ID",
                  TABLE_RECORDS, TABLE_CHANGES[kind], "value" in grouping)
            for fmt in FORMATS for kind in TABLE_CHANGES for grouping in GROUPINGS]


def fk_cases() -> list[dict[str, Any]]:
    sources = ("CREATE TABLE L (ID INT PRIMARY KEY, FK INT, G STRING)",
               "CREATE TABLE R (ID INT PRIMARY KEY, B STRING, H STRING)")
    return [_case(f"foreign-key {kind} join", fmt, grouping, sources, f"{FK_JOIN_SQL[kind]} ON L.FK = R.ID",
                  FK_RECORDS, _fk_changes(kind), "value" in grouping)
            for fmt in FORMATS for kind in FK_RESULTS for grouping in GROUPINGS]


def main() -> None:
    here = Path(__file__).parent
    for name, build in (("aggregate-after-join.json", stream_cases), ("table-aggregate-after-join.json", table_cases),
                        ("fk-aggregate-after-join.json", fk_cases)):
        (here / name).write_text(json.dumps({"tests": build()}, indent=1) + "\n")


if __name__ == "__main__":
    main()
