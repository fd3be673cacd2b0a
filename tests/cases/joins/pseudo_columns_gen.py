"""Each side's pseudo columns (ROWTIME, ROWPARTITION, ROWOFFSET) in a join's projection and WHERE.

The rule (from memory of ksqlDB's SourceBuilder, which copies a source record's ROWTIME, ROWPARTITION and
ROWOFFSET into its value before anything else, and of JoinNode, which carries each side's value under
``<ALIAS>_<COLUMN>``): ``L.ROWTIME`` is the time of the left record (or stored left row) the joined row was
made from, ``R.ROWOFFSET`` the offset of the right one - not the output record's time. A stream record
joins a table's row as it was stored, with that row's own time and offset; a table-table join pairs each
side's latest row whichever side changed; a foreign-key join's right row is the one the response carried.
The output record's time stays the join's: the later of the two for stream-stream and table-table, the
stream record's for stream-table, the later of the left change and the right row for a left change of a
foreign-key join. One partition per source, so ROWPARTITION is 0 under any placement.
Writes tests/cases/joins/pseudo-columns.json: ``python tests/cases/joins/pseudo_columns_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

LS = "CREATE STREAM L (K INT KEY, A STRING) WITH (kafka_topic='l', value_format='JSON', partitions=1);"
RS = "CREATE STREAM R (K INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', partitions=1);"
LT = "CREATE TABLE LT (K INT PRIMARY KEY, A STRING, FK INT) WITH (kafka_topic='lt', value_format='JSON', partitions=1);"
RT = "CREATE TABLE RT (K INT PRIMARY KEY, B STRING) WITH (kafka_topic='rt', value_format='JSON', partitions=1);"

CASES: list[tuple[str, list[str], str, list[tuple[str, int, dict[str, Any] | None, int]],
                  list[tuple[int, dict[str, Any] | None, int]]]] = [
    ("stream-stream join: each side's record", [LS, RS],
     "CREATE STREAM OUT AS SELECT L.K, L.ROWTIME AS LT, R.ROWTIME AS RT, L.ROWOFFSET AS LO, R.ROWOFFSET AS RO, "
     "L.ROWPARTITION AS LP, R.ROWPARTITION AS RP, A, B FROM L JOIN R WITHIN 1 SECOND ON L.K = R.K;",
     [("r", 1, {"B": "b"}, 300), ("r", 1, {"B": "c"}, 310), ("l", 1, {"A": "x"}, 250)],
     [(1, {"LT": 250, "RT": 300, "LO": 0, "RO": 0, "LP": 0, "RP": 0, "A": "x", "B": "b"}, 300),
      (1, {"LT": 250, "RT": 310, "LO": 0, "RO": 1, "LP": 0, "RP": 0, "A": "x", "B": "c"}, 310)]),
    ("stream-stream join: a WHERE on the right side's ROWTIME", [LS, RS],
     "CREATE STREAM OUT AS SELECT L.K, A, B FROM L JOIN R WITHIN 1 SECOND ON L.K = R.K WHERE R.ROWTIME > 305;",
     [("r", 1, {"B": "b"}, 300), ("r", 1, {"B": "c"}, 310), ("l", 1, {"A": "x"}, 250)],
     [(1, {"A": "x", "B": "c"}, 310)]),
    ("stream-table join: the table row as stored, the stream record's time", [LS, RT],
     "CREATE STREAM OUT AS SELECT L.K, L.ROWTIME AS LT, RT.ROWTIME AS RT, L.ROWOFFSET AS LO, RT.ROWOFFSET AS RO, "
     "A, B FROM L LEFT JOIN RT ON L.K = RT.K;",
     [("rt", 1, {"B": "b"}, 300), ("rt", 1, {"B": "c"}, 310), ("l", 1, {"A": "x"}, 250),
      ("l", 2, {"A": "y"}, 260)],
     [(1, {"LT": 250, "RT": 310, "LO": 0, "RO": 1, "A": "x", "B": "c"}, 250),
      (2, {"LT": 260, "RT": None, "LO": 1, "RO": None, "A": "y", "B": None}, 260)]),
    ("table-table join: each side's latest row whichever side changed", [LT, RT],
     "CREATE TABLE OUT AS SELECT LT.K, LT.ROWTIME AS LT, RT.ROWTIME AS RT, LT.ROWOFFSET AS LO, "
     "RT.ROWOFFSET AS RO, A, B FROM LT JOIN RT ON LT.K = RT.K;",
     [("rt", 1, {"B": "b"}, 300), ("rt", 1, {"B": "c"}, 310), ("lt", 1, {"A": "x", "FK": 0}, 250),
      ("rt", 1, {"B": "d"}, 200), ("lt", 1, {"A": "z", "FK": 0}, 150)],
     [(1, {"LT": 250, "RT": 310, "LO": 0, "RO": 1, "A": "x", "B": "c"}, 310),
      (1, {"LT": 250, "RT": 200, "LO": 0, "RO": 2, "A": "x", "B": "d"}, 250),
      (1, {"LT": 150, "RT": 200, "LO": 1, "RO": 2, "A": "z", "B": "d"}, 200)]),
    ("foreign-key join: the right row the answer carried", [LT, RT],
     "CREATE TABLE OUT AS SELECT LT.K, LT.ROWTIME AS LT, RT.ROWTIME AS RT, LT.ROWOFFSET AS LO, "
     "RT.ROWOFFSET AS RO, A, B FROM LT LEFT JOIN RT ON LT.FK = RT.K;",
     [("rt", 7, {"B": "b"}, 300), ("lt", 1, {"A": "x", "FK": 7}, 250), ("rt", 7, {"B": "c"}, 200),
      ("lt", 2, {"A": "y", "FK": 8}, 260)],
     [(1, {"LT": 250, "RT": 300, "LO": 0, "RO": 0, "A": "x", "B": "b"}, 300),
      (1, {"LT": 250, "RT": 200, "LO": 0, "RO": 1, "A": "x", "B": "c"}, 200),
      (2, {"LT": 260, "RT": None, "LO": 1, "RO": None, "A": "y", "B": None}, 260)]),
]


def main() -> None:
    tests = [{
        "name": name,
        "statements": sources + [sql],
        "inputs": [{"topic": t, "key": k, "value": v, "timestamp": ts} for t, k, v, ts in inputs],
        "outputs": [{"topic": "OUT", "key": k, "value": v, "timestamp": ts} for k, v, ts in outputs],
    } for name, sources, sql, inputs, outputs in CASES]
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}
    path = pathlib.Path(__file__).with_name("pseudo-columns.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
