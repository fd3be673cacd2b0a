"""Where a join's refusals come in ksqlDB's validation order (from memory of its sources), over the three
primary-key join kinds: analysis (unknown columns in any clause) -> logical planning, bottom up (the join
node's key rules, the WHERE's filter types, then the projection: ``FinalProjectNode`` finds a join key missing
from it or selected twice, and SELECT types) -> building the physical plan (``JoinNode.buildStream``: the
sides' partition counts first, then the joiner of the kind - a missing or extra WITHIN -, the sides' re-keying
of a windowed source, a RIGHT stream-table join) -> code generation (an unsupported CAST). A statement with
two faults is refused by the earlier stage's. Analysis resolves the columns of WHERE, GROUP BY, PARTITION BY,
HAVING and SELECT (ksqlDB's Analyzer, from memory) before the logical planner checks any join's order, type,
keys and key types (``LogicalPlanner.verifyJoin``): an unknown column in any clause comes before those, and
incompatibly windowed sources (found as the FROM clause is read) before both.

Writes tests/cases/joins/validation-order.json: ``python tests/cases/joins/validation_order_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from copartitioning_gen import ERROR, KINDS, mismatch, stream, table  # noqa: E402

WINDOWED = ", window_type='TUMBLING', window_size='10 SECONDS'"
KEY_MISSING = ("Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\nThe query used to build "
               "`OUT` must include the join expressions L.ID or R.ID in its projection (eg, SELECT L.ID...).")
KEY_TWICE = ("The projection contains a key column (`L_ID`) more than once, aliased as: K2 and L_ID.\nEach key "
             "column must only be in the projection once. If you intended to copy the key into the value, then "
             "consider using the AS_VALUE function to indicate which key reference should be copied.")
WHERE_TYPES = ("Error in WHERE expression: Cannot compare L_A (INTEGER) to 'x' (STRING) with EQUAL.\n"
               "Statement: (L_A = 'x')")
# (what, SELECT ... {join}, the error of logical planning)
LOGICAL = [
    ("the join key missing from the projection", "SELECT L.A AS LA, R.A AS RA {join}", KEY_MISSING),
    ("the join key selected twice", "SELECT L.ID, L.ID AS K2, L.A AS LA {join}", KEY_TWICE),
    ("no value columns", "SELECT L.ID {join}", "The projection contains no value columns."),
    ("a WHERE comparing INT to STRING", "SELECT L.ID, L.A AS LA {join} WHERE L.A = 'x'", WHERE_TYPES),
    ("INT plus STRING selected", "SELECT L.ID, L.A + 'x' AS Q {join}",
     "Error processing expression: (L_A + 'x'). Unsupported arithmetic types. INTEGER STRING"),
]


def ordered() -> list[dict[str, Any]]:
    """Unequal partition counts beside an error of another stage: the earlier stage's error is reported."""
    out: list[dict[str, Any]] = []
    for kind, (left, right, sink, within) in KINDS.items():
        join = f"FROM L JOIN R{within} ON L.ID = R.ID"
        for what, text, message in LOGICAL:
            out.append({
                "name": f"{kind} join with unequal partition counts and {what}: logical planning reports first",
                "statements": [left("L", 2), right("R", 3), f"CREATE {sink} OUT AS {text.format(join=join)};"],
                "expectedException": {"type": ERROR, "message": message}})
        out.append({
            "name": f"{kind} join with unequal partition counts and an unsupported CAST: code generation comes after",
            "statements": [left("L", 2), right("R", 3),
                           f"CREATE {sink} OUT AS SELECT L.ID, CAST(L.A AS ARRAY<INT>) AS Q {join};"],
            "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    out.append({
        "name": "RIGHT stream-table join with unequal partition counts: the counts are checked before the joiner",
        "statements": [stream("L", 2), table("R", 3), "CREATE STREAM OUT AS SELECT R.ID, L.A AS LA FROM L RIGHT "
                                                      "JOIN R ON L.ID = R.ID;"],
        "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    out.append({
        "name": "RIGHT stream-table join with a WHERE type error: logical planning reports before the joiner",
        "statements": [stream("L", 2), table("R", 2), "CREATE STREAM OUT AS SELECT R.ID, L.A AS LA FROM L RIGHT "
                                                      "JOIN R ON L.ID = R.ID WHERE L.A = 'x';"],
        "expectedException": {"type": ERROR, "message": WHERE_TYPES}})
    out.append({
        "name": "windowed streams joined on a value column with unequal partition counts: the counts are checked "
                "before the re-keying",
        "statements": [stream("L", 2, WINDOWED), stream("R", 3, WINDOWED),
                       "CREATE STREAM OUT AS SELECT L.A AS K, R.A AS RA FROM L JOIN R WITHIN 1 MINUTE ON L.A = R.ID;"],
        "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    return out


def within_order() -> list[dict[str, Any]]:
    """The WITHIN rules are the joiner's (``JoinNode``'s stream-stream, stream-table and table-table joiners,
    from memory): a missing or extra WITHIN is reported after logical planning and after the partition
    counts, before re-keying a side."""
    out: list[dict[str, Any]] = []
    # (kind, the WITHIN written, its refusal)
    wrong = [("stream-stream", "", "Stream-Stream joins must have a WITHIN clause specified. None was provided."),
             ("stream-table", " WITHIN 1 MINUTE", "A window definition was provided for a Stream-Table join."),
             ("table-table", " WITHIN 1 MINUTE", "A window definition was provided for a Table-Table join.")]
    for kind, within, refusal in wrong:
        left, right, sink, _ = KINDS[kind]
        join = f"FROM L JOIN R{within} ON L.ID = R.ID"
        out.append({
            "name": f"{kind} join with a wrong WITHIN: refused",
            "statements": [left("L", 2), right("R", 2), f"CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join};"],
            "expectedException": {"type": ERROR, "message": refusal}})
        for what, text, message in LOGICAL:
            out.append({
                "name": f"{kind} join with a wrong WITHIN and {what}: logical planning reports first",
                "statements": [left("L", 2), right("R", 2), f"CREATE {sink} OUT AS {text.format(join=join)};"],
                "expectedException": {"type": ERROR, "message": message}})
        out.append({
            "name": f"{kind} join with a wrong WITHIN and unequal partition counts: the counts are checked first",
            "statements": [left("L", 2), right("R", 3), f"CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join};"],
            "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    out.append({
        "name": "windowed streams joined on a value column without WITHIN: the WITHIN is checked before the re-keying",
        "statements": [stream("L", 2, WINDOWED), stream("R", 2, WINDOWED),
                       "CREATE STREAM OUT AS SELECT L.A AS K, R.A AS RA FROM L JOIN R ON L.A = R.ID;"],
        "expectedException": {"type": ERROR, "message": wrong[0][2]}})
    return out




def projection_order() -> list[dict[str, Any]]:
    """The projection's key errors after analysis (an unknown column in WHERE) and after the WHERE's types:
    ksqlDB plans the filter below the projection."""
    out: list[dict[str, Any]] = []
    projections = [("the join key missing from the projection", "SELECT L.A AS LA, R.A AS RA", KEY_MISSING),
                   ("the join key selected twice", "SELECT L.ID, L.ID AS K2, L.A AS LA", KEY_TWICE)]
    for kind, (left, right, sink, within) in KINDS.items():
        join = f"FROM L JOIN R{within} ON L.ID = R.ID"
        for what, select, message in projections:
            out.append({
                "name": f"{kind} join with {what}: refused",
                "statements": [left("L", 1), right("R", 1), f"CREATE {sink} OUT AS {select} {join};"],
                "expectedException": {"type": ERROR, "message": message}})
            out.append({
                "name": f"{kind} join with {what} and an unknown WHERE column: analysis reports first",
                "statements": [left("L", 1), right("R", 1), f"CREATE {sink} OUT AS {select} {join} WHERE NOPE = 1;"],
                "expectedException": {"type": ERROR, "message": "WHERE column 'NOPE' cannot be resolved."}})
            out.append({
                "name": f"{kind} join with {what} and a WHERE comparing INT to STRING: the filter reports first",
                "statements": [left("L", 1), right("R", 1), f"CREATE {sink} OUT AS {select} {join} WHERE L.A = 'x';"],
                "expectedException": {"type": ERROR, "message": WHERE_TYPES}})
    out.append({
        "name": "foreign-key join without the left key, with a WHERE comparing INT to STRING: the filter reports first",
        "statements": [table("L", 1), table("R", 1), "CREATE TABLE OUT AS SELECT R.A AS RA FROM L JOIN R ON L.A = R.ID "
                                                     "WHERE L.A = 'x';"],
        "expectedException": {"type": ERROR, "message": WHERE_TYPES}})
    return out


JOIN_TEXT = {"JOIN": "[INNER] JOIN", "LEFT JOIN": "LEFT [OUTER] JOIN", "FULL OUTER JOIN": "[FULL] OUTER JOIN"}
TYPES = "Invalid join condition: types don't match. Got CAST(L.ID AS STRING){STRING} = R.ID{INTEGER}."
# (fault, left DDL, right DDL, sink of a non-aggregate query, join kinds, ON criteria, its refusal for a kind)
JOIN_FAULTS = [
    ("key types that differ", stream, stream, "STREAM", ["JOIN", "LEFT JOIN", "FULL OUTER JOIN"],
     " WITHIN 1 MINUTE ON CAST(L.ID AS STRING) = R.ID", lambda k: TYPES),
    ("key types that differ", stream, table, "STREAM", ["JOIN", "LEFT JOIN"], " ON CAST(L.ID AS STRING) = R.ID",
     lambda k: TYPES),
    ("the right side not the table's key", stream, table, "STREAM", ["JOIN", "LEFT JOIN"], " ON L.ID = R.A",
     lambda k: "Invalid join condition: stream-table joins require to join on the table's primary key. Got "
               "L.ID = R.A."),
    ("the right side not the table's key", table, table, "TABLE", ["JOIN", "LEFT JOIN", "FULL OUTER JOIN"],
     " ON L.ID = R.A",
     lambda k: "Invalid join condition: table-table joins require to join on the primary key of the right input "
               "table. Got L.ID = R.A."),
    ("a table joined to a stream", table, stream, "STREAM", ["JOIN", "LEFT JOIN"], " ON L.ID = R.ID",
     lambda k: "Invalid join order: table-stream joins are not supported; only stream-table joins. Got "
               f"L {JOIN_TEXT[k]} R."),
    ("a full outer stream-table join", stream, table, "STREAM", ["FULL OUTER JOIN"], " ON L.ID = R.ID",
     lambda k: "Invalid join type: full-outer join not supported for stream-table join. Got L [FULL] OUTER JOIN R."),
    ("a full outer foreign-key join", table, table, "TABLE", ["FULL OUTER JOIN"], " ON L.A = R.ID",
     lambda k: "Invalid join type: full-outer join not supported for foreign-key table-table join. Got "
               "L [FULL] OUTER JOIN R."),
]
# (clause, the query with {sink} and {join}, the analyzer's refusal)
UNKNOWN_IN = [
    ("WHERE", "CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join} WHERE NOPE = 1;",
     "WHERE column 'NOPE' cannot be resolved."),
    ("WHERE, qualified", "CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join} WHERE L.NOPE = 1;",
     "WHERE column 'L.NOPE' cannot be resolved."),
    ("SELECT", "CREATE {sink} OUT AS SELECT L.ID, NOPE AS N {join};", "SELECT column 'NOPE' cannot be resolved."),
    ("PARTITION BY", "CREATE STREAM OUT AS SELECT L.ID, L.A AS LA {join} PARTITION BY NOPE;",
     "PARTITION BY column 'NOPE' cannot be resolved."),
    ("GROUP BY", "CREATE TABLE OUT AS SELECT COUNT(*) AS C {join} GROUP BY NOPE;",
     "GROUP BY column 'NOPE' cannot be resolved."),
    ("HAVING", "CREATE TABLE OUT AS SELECT L.A AS K, COUNT(*) AS C {join} GROUP BY L.A HAVING NOPE > 1;",
     "HAVING column 'NOPE' cannot be resolved."),
]


def clause_order() -> list[dict[str, Any]]:
    """An unknown column in each clause beside each fault of a join's order, type, keys or key types, over the
    join kinds each fault admits: analysis reports the column first."""
    out: list[dict[str, Any]] = []
    for fault, left, right, sink, kinds, on, refusal in JOIN_FAULTS:
        for k in kinds:
            join = f"FROM L {k} R{on}"
            head = f"{left('L', 1).split()[1].lower()}-{right('R', 1).split()[1].lower()} {k}"
            out.append({
                "name": f"{head} with {fault}: refused",
                "statements": [left("L", 1), right("R", 1), f"CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join};"],
                "expectedException": {"type": ERROR, "message": refusal(k)}})
            for clause, text, message in UNKNOWN_IN:
                out.append({
                    "name": f"{head} with {fault} and an unknown column in {clause}: analysis reports first",
                    "statements": [left("L", 1), right("R", 1), text.format(sink=sink, join=join)],
                    "expectedException": {"type": ERROR, "message": message}})
    # a name the join may give its synthetic key is the logical planner's to resolve
    out.append({
        "name": "stream-stream FULL OUTER JOIN on expressions selecting ROWKEY: the synthetic key",
        "statements": [stream("L", 1), stream("R", 1), "CREATE STREAM OUT AS SELECT ROWKEY, L.A AS LA FROM L FULL "
                                                       "OUTER JOIN R WITHIN 1 MINUTE ON L.ID + 1 = R.ID + 1;"],
        "inputs": [{"topic": "l", "key": 1, "value": {"A": 10}, "timestamp": 0},
                   {"topic": "r", "key": 1, "value": {"A": 20}, "timestamp": 10}],
        "outputs": [{"topic": "OUT", "key": 2, "value": {"LA": 10}, "timestamp": 0},
                    {"topic": "OUT", "key": 2, "value": {"LA": 10}, "timestamp": 10}]})
    out.append({
        "name": "stream-stream join selecting ROWKEY_1 with key types that differ: the join's types report first",
        "statements": [stream("L", 1), stream("R", 1), "CREATE STREAM OUT AS SELECT ROWKEY_1, L.A AS LA FROM L "
                                                       "JOIN R WITHIN 1 MINUTE ON CAST(L.ID AS STRING) = R.ID;"],
        "expectedException": {"type": ERROR, "message": TYPES}})
    return out


def windowing_order() -> list[dict[str, Any]]:
    """Incompatibly windowed sources are refused as the FROM clause is read (ksqlDB's Analyzer, from memory):
    before an unknown column in any clause and before the logical planner's key rules."""
    out: list[dict[str, Any]] = []
    session = ", window_type='SESSION'"
    pairs = [("a windowed stream joined to a non-windowed one", stream("L", 1, WINDOWED), stream("R", 1),
              "Can not join windowed source to non-windowed source.\n`L` is TUMBLING windowed\n`R` is not windowed"),
             ("session and tumbling windowed streams", stream("L", 1, session), stream("R", 1, WINDOWED),
              "Incompatible windowed sources.\nLeft source: SESSION\nRight source: TUMBLING\n")]
    faults = [("", " ON L.ID = R.ID"), (" with key types that differ", " ON CAST(L.ID AS STRING) = R.ID")]
    for what, left, right, message in pairs:
        for fault, on in faults:
            join = f"FROM L JOIN R WITHIN 1 MINUTE{on}"
            for clause, text, _ in [("no clause", "CREATE STREAM OUT AS SELECT L.ID, L.A AS LA {join};", ""),
                                    *UNKNOWN_IN]:
                out.append({
                    "name": f"{what}{fault} and an unknown column in {clause}: the windowing reports first",
                    "statements": [left, right, text.format(sink="STREAM", join=join)],
                    "expectedException": {"type": ERROR, "message": message}})
    out.append({
        "name": "n-way: a windowed stream joined to a non-windowed one with an unknown WHERE column",
        "statements": [stream("L", 1, WINDOWED), stream("M", 1, WINDOWED), stream("R", 1),
                       "CREATE STREAM OUT AS SELECT L.ID, L.A AS LA FROM L JOIN M WITHIN 1 MINUTE ON L.ID = M.ID "
                       "JOIN R WITHIN 1 MINUTE ON M.A = R.ID WHERE NOPE = 1;"],
        "expectedException": {"type": ERROR, "message": "Can not join windowed source to non-windowed source.\n"
                                                        "`L` is TUMBLING windowed\n`R` is not windowed"}})
    return out


def kafka_order() -> list[dict[str, Any]]:
    """A side in the KAFKA value format is refused at the end of analysis (ksqlDB's Analyzer, after the
    column references; from memory): after windowing and unknown columns, before the join's logical planning
    (its key rules and types) and the joiner's WITHIN."""
    out: list[dict[str, Any]] = []
    kafka = ("CREATE STREAM K (ID INT KEY, A INT) WITH (kafka_topic='k', value_format='KAFKA', partitions=1);")
    refusal = "Source(s) K are using the 'KAFKA' value format. This format does not yet support JOIN."
    on = "FROM L JOIN K WITHIN 1 MINUTE ON L.ID = K.ID"
    for clause, text, message in UNKNOWN_IN:
        out.append({
            "name": f"a KAFKA-format side and an unknown column in {clause}: the column reports first",
            "statements": [stream("L", 1), kafka, text.format(sink="STREAM", join=on)],
            "expectedException": {"type": ERROR, "message": message}})
    later = [("no other fault", on), ("key types that differ", "FROM L JOIN K WITHIN 1 MINUTE ON CAST(L.ID AS "
                                                                "STRING) = K.ID"),
             ("no WITHIN", "FROM L JOIN K ON L.ID = K.ID"), ("a table joined to it", "FROM T JOIN K ON T.ID = K.ID")]
    for what, join in later:
        out.append({
            "name": f"a KAFKA-format side and {what}: the format reports first",
            "statements": [stream("L", 1), table("T", 1), kafka, f"CREATE STREAM OUT AS SELECT K.ID, K.A AS KA {join};"],
            "expectedException": {"type": ERROR, "message": refusal}})
    out.append({
        "name": "a KAFKA-format side joined to a windowed stream: the windowing reports first",
        "statements": [stream("L", 1, WINDOWED), kafka, f"CREATE STREAM OUT AS SELECT L.ID, K.A AS KA {on};"],
        "expectedException": {"type": ERROR, "message": "Can not join windowed source to non-windowed source.\n"
                                                        "`L` is TUMBLING windowed\n`K` is not windowed"}})
    return out


def cases() -> list[dict[str, Any]]:
    return ordered() + within_order() + projection_order() + clause_order() + windowing_order() + kafka_order()


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("validation-order.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
