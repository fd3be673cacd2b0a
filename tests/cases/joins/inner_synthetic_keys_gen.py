"""An inner join step's synthetic key, read after later steps re-key the result.

ksqlDB's rule (from memory of JoinParamsFactory.createSchema and KsqlValueJoiner): a join step whose key no
source column carries - a FULL OUTER join, or expressions on both sides of the criteria - names its key
``ROWKEY`` (``ROWKEY_n`` when a source has that column) and, as no side holds it, appends it to the value
schema too, "so it's accessible during projection"; the joiner writes the step's key there. A later step
that re-keys the result (a stream joined on a source column: ``S1 FULL JOIN S2 ... LEFT JOIN T ON S1.ID =
T.ID``) keeps that value column, so an unqualified ``ROWKEY`` in the SELECT of the whole query reads it: the
inner step's key - the right side's join expression where the right source took part, else the left's,
NULL where neither side of that step did (a row only a later source made). When the top step's key is
itself the synthetic ``ROWKEY`` the name is that key; the innermost inner step's value is the one carried
(a later step whose input has the column appends none). ``SELECT *`` never lists it (JoinNode's star lists
only the final join's synthetic key), and only SELECT of a join without GROUP BY reads it (the analyzer
resolves every other clause against the sources).

Writes tests/cases/joins/inner-synthetic-keys.json: ``python tests/cases/joins/inner_synthetic_keys_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

Case = dict[str, Any]


def stream(name: str, cols: str) -> str:
    return f"CREATE STREAM {name} ({cols}) WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=1);"


def table(name: str, cols: str) -> str:
    return f"CREATE TABLE {name} ({cols}) WITH (kafka_topic='{name.lower()}', value_format='JSON', partitions=1);"


def rec(topic: str, key: Any, value: dict[str, Any] | None, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": value, "timestamp": ts}


def out(key: Any, value: dict[str, Any], ts: int) -> dict[str, Any]:
    return rec("OUT", key, value, ts)


S1 = stream("S1", "ID INT KEY, A INT")
S2 = stream("S2", "ID INT KEY, B INT")
S3 = stream("S3", "ID INT KEY, C INT")
T = table("T", "ID INT PRIMARY KEY, D INT")
FULL_S1_S2 = "S1 FULL OUTER JOIN S2 WITHIN 1 MINUTE ON S1.ID = S2.ID"

# a FULL stream-stream join (no GRACE: unmatched rows go out at once), then a LEFT join with a table on S1.ID
FULL_THEN_TABLE_INPUTS = [rec("t", 1, {"D": 7}, 0), rec("s1", 1, {"A": 10}, 1), rec("s2", 1, {"B": 100}, 2),
                          rec("s2", 5, {"B": 500}, 3), rec("s1", 2, {"A": 20}, 4)]


def cases() -> list[Case]:
    out_cases: list[Case] = []

    def case(name: str, statements: list[str], inputs: list[dict[str, Any]] | None = None,
             outputs: list[dict[str, Any]] | None = None, schema: str | None = None,
             error: str | None = None) -> None:
        c: Case = {"name": name, "statements": statements}
        if error is not None:
            c["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException", "message": error}
        else:
            c["inputs"] = inputs or []
            c["outputs"] = outputs or []
            if schema is not None:
                c["post"] = {"sources": [{"name": "OUT", "type": "stream", "schema": schema}]}
        out_cases.append(c)

    full_then_table = [
        out(1, {"RK": 1, "A": 10, "B": None, "D": 7}, 1),
        out(1, {"RK": 1, "A": 10, "B": 100, "D": 7}, 2),
        out(None, {"RK": 5, "A": None, "B": 500, "D": None}, 3),  # S1.ID NULL: no key, the table not consulted
        out(2, {"RK": 2, "A": 20, "B": None, "D": None}, 4),
    ]
    case("FULL stream-stream, then LEFT stream-table on S1.ID: ROWKEY aliased is the FULL step's key",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK, S1.A, S2.B, T.D FROM {FULL_S1_S2} "
                     "LEFT JOIN T ON S1.ID = T.ID;"],
         FULL_THEN_TABLE_INPUTS, full_then_table, "S1_ID INTEGER KEY, RK INTEGER, A INTEGER, B INTEGER, D INTEGER")
    case("FULL stream-stream, then LEFT stream-table on S1.ID: ROWKEY unaliased is a value column ROWKEY",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT S1.ID, S1.A, ROWKEY FROM {FULL_S1_S2} LEFT JOIN T ON S1.ID = T.ID;"],
         FULL_THEN_TABLE_INPUTS,
         [out(1, {"A": 10, "ROWKEY": 1}, 1), out(1, {"A": 10, "ROWKEY": 1}, 2), out(None, {"A": None, "ROWKEY": 5}, 3),
          out(2, {"A": 20, "ROWKEY": 2}, 4)],
         "S1_ID INTEGER KEY, A INTEGER, ROWKEY INTEGER")
    case("FULL stream-stream, then INNER stream-table on S2.ID: the right side's rows carry their key",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT S2.ID, ROWKEY AS RK, S1.A, T.D FROM {FULL_S1_S2} "
                     "JOIN T ON S2.ID = T.ID;"],
         [rec("t", 1, {"D": 7}, 0), rec("t", 5, {"D": 8}, 0), *FULL_THEN_TABLE_INPUTS[1:]],
         [out(1, {"RK": 1, "A": 10, "D": 7}, 2), out(5, {"RK": 5, "A": None, "D": 8}, 3)],
         "S2_ID INTEGER KEY, RK INTEGER, A INTEGER, D INTEGER")
    case("FULL stream-stream, then SELECT * over a LEFT stream-table join: no inner ROWKEY column",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT * FROM {FULL_S1_S2} LEFT JOIN T ON S1.ID = T.ID;"],
         FULL_THEN_TABLE_INPUTS[:2],
         [out(1, {"S1_A": 10, "S2_ID": None, "S2_B": None, "T_ID": 1, "T_D": 7}, 1)],
         "S1_ID INTEGER KEY, S1_A INTEGER, S2_ID INTEGER, S2_B INTEGER, T_ID INTEGER, T_D INTEGER")
    # a FULL step, then a stream-stream INNER join re-keying by the left source's column
    case("FULL stream-stream, then INNER stream-stream on S1.ID: a row only S2 made has no S1.ID and drops",
         [S1, S2, S3, f"CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK, S2.B, S3.C FROM {FULL_S1_S2} "
                      "JOIN S3 WITHIN 1 MINUTE ON S1.ID = S3.ID;"],
         [rec("s2", 1, {"B": 100}, 0), rec("s3", 1, {"C": 30}, 1), rec("s1", 1, {"A": 10}, 2)],
         [out(1, {"RK": 1, "B": 100, "C": 30}, 2)],
         "S1_ID INTEGER KEY, RK INTEGER, B INTEGER, C INTEGER")
    # synthetic because both sides of the criteria are expressions
    case("expression criteria on both sides, then INNER stream-stream on S1.ID: ROWKEY is the expression's value",
         [S1, S2, S3, "CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK, S1.A, S2.B, S3.C FROM S1 JOIN S2 WITHIN "
                      "1 MINUTE ON ABS(S1.A) = ABS(S2.B) JOIN S3 WITHIN 1 MINUTE ON S1.ID = S3.ID;"],
         [rec("s1", 1, {"A": -3}, 0), rec("s2", 9, {"B": 3}, 1), rec("s3", 1, {"C": 30}, 2)],
         [out(1, {"RK": 3, "A": -3, "B": 3, "C": 30}, 2)],
         "S1_ID INTEGER KEY, RK INTEGER, A INTEGER, B INTEGER, C INTEGER")
    case("expression criteria, LEFT with no right row, then a stream-table join: ROWKEY is the left expression's",
         [S1, S2, T, "CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK, S2.B, T.D FROM S1 LEFT JOIN S2 WITHIN "
                     "1 MINUTE ON S1.A * 2 = S2.B + 0 LEFT JOIN T ON S1.ID = T.ID;"],
         [rec("t", 4, {"D": 7}, 0), rec("s1", 4, {"A": 21}, 1)],
         [out(4, {"RK": 42, "B": None, "D": 7}, 1)],
         "S1_ID INTEGER KEY, RK INTEGER, B INTEGER, D INTEGER")
    case("expression criteria, RIGHT join, then a stream-table join on S2.ID: a right-only row's key is the right "
         "expression's",
         [S1, S2, T, "CREATE STREAM OUT AS SELECT S2.ID, ROWKEY AS RK, S1.A, T.D FROM S1 RIGHT JOIN S2 WITHIN "
                     "1 MINUTE ON S1.A + 1 = S2.B - 1 LEFT JOIN T ON S2.ID = T.ID;"],
         [rec("t", 4, {"D": 7}, 0), rec("s2", 4, {"B": 12}, 1), rec("s1", 9, {"A": 10}, 2)],
         [out(4, {"RK": 11, "A": None, "D": 7}, 1), out(4, {"RK": 11, "A": 10, "D": 7}, 2)],
         "S2_ID INTEGER KEY, RK INTEGER, A INTEGER, D INTEGER")
    # a source column named ROWKEY moves the synthetic name on
    s1_rowkey = stream("S1", "ID INT KEY, ROWKEY INT")
    case("a source column ROWKEY: the inner FULL step's key is ROWKEY_1, ROWKEY the source's column",
         [s1_rowkey, S2, T, f"CREATE STREAM OUT AS SELECT S1.ID, ROWKEY_1 AS RK, ROWKEY AS SRC FROM {FULL_S1_S2} "
                            "LEFT JOIN T ON S1.ID = T.ID;"],
         [rec("s2", 3, {"B": 1}, 0), rec("s1", 3, {"ROWKEY": 99}, 1)],
         [out(None, {"RK": 3, "SRC": None}, 0), out(3, {"RK": 3, "SRC": 99}, 1)],
         "S1_ID INTEGER KEY, RK INTEGER, SRC INTEGER")
    # three steps: the innermost synthetic key is the one carried
    case("two FULL steps, then a stream-table join on S1.ID: a row only S3 made has a NULL inner key",
         [S1, S2, S3, T, f"CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK, S3.C FROM {FULL_S1_S2} FULL OUTER "
                         "JOIN S3 WITHIN 1 MINUTE ON S1.ID = S3.ID LEFT JOIN T ON S1.ID = T.ID;"],
         [rec("s3", 6, {"C": 60}, 0), rec("s2", 2, {"B": 20}, 1)],
         [out(None, {"RK": None, "C": 60}, 0), out(None, {"RK": 2, "C": None}, 1)],
         "S1_ID INTEGER KEY, RK INTEGER, C INTEGER")
    # where the inner key is not readable
    full_left_t = f"FROM {FULL_S1_S2} LEFT JOIN T ON S1.ID = T.ID"
    case("the inner synthetic key in WHERE: resolved against the sources, refused",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT S1.ID, S1.A {full_left_t} WHERE ROWKEY IS NOT NULL;"],
         error="WHERE column 'ROWKEY' cannot be resolved.")
    case("the inner synthetic key in a grouped SELECT: refused",
         [S1, S2, T, f"CREATE TABLE OUT AS SELECT S1.A, ROWKEY AS RK, COUNT(*) AS N {full_left_t} GROUP BY S1.A;"],
         error="SELECT column 'ROWKEY' cannot be resolved.")
    case("no step with a synthetic key: SELECT ROWKEY refused",
         [S1, S2, T, "CREATE STREAM OUT AS SELECT S1.ID, ROWKEY AS RK FROM S1 LEFT JOIN S2 WITHIN 1 MINUTE ON "
                     "S1.ID = S2.ID LEFT JOIN T ON S1.ID = T.ID;"],
         error="SELECT column 'ROWKEY' cannot be resolved.")
    case("the inner key is ROWKEY, not ROWKEY_1: SELECT ROWKEY_1 refused",
         [S1, S2, T, f"CREATE STREAM OUT AS SELECT S1.ID, ROWKEY_1 AS RK {full_left_t};"],
         error="SELECT column 'ROWKEY_1' cannot be resolved.")
    return out_cases


def main() -> None:
    path = pathlib.Path(__file__).with_name("inner-synthetic-keys.json")
    path.write_text(json.dumps({"tests": cases()}, indent=2) + "\n")


if __name__ == "__main__":
    main()
