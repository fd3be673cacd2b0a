"""Co-partitioning of joins (ksqlDB's ``JoinNode.ensureMatchingPartitionCounts``) over every join kind: the two
sides of a primary-key join must have equal partition counts, checked when the join is built - a side that is
repartitioned (joined on a value column or an expression) still reports its source topic's count, so
repartitioning never relaxes the check; in an n-way join the earlier join reports its right input's count and
is named by its left-most source. The sink's PARTITIONS changes nothing. Foreign-key joins need no
co-partitioning. The refusal: ``Can't join `<L>` with `<R>` since the number of partitions don't match.
`<L>` partitions = <n>; `<R>` partitions = <m>. Please repartition either one so that the number of partitions
match.``

Its place in ksqlDB's validation order (from memory: ``JoinNode.buildStream`` checks the counts first thing
when the physical plan is built): after analysis and logical planning - an error of the projection (the
join key missing or selected twice, no value columns), of a WHERE's or a SELECT expression's types - is
reported instead; before what the joiner of the kind refuses (a missing or extra WITHIN, then a RIGHT
stream-table join), what building the sides finds (re-keying a windowed source) and code generation (an
unsupported CAST).

Writes tests/cases/joins/copartitioning.json: ``python tests/cases/joins/copartitioning_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

ERROR = "io.confluent.ksql.util.KsqlStatementException"


def stream(name: str, partitions: int) -> str:
    return (f"CREATE STREAM {name} (ID INT KEY, A INT) WITH (kafka_topic='{name.lower()}', value_format='JSON', "
            f"partitions={partitions});")


def table(name: str, partitions: int) -> str:
    return (f"CREATE TABLE {name} (ID INT PRIMARY KEY, A INT) WITH (kafka_topic='{name.lower()}', "
            f"value_format='JSON', partitions={partitions});")


def mismatch(left: str, n: int, right: str, m: int) -> str:
    return (f"Can't join `{left}` with `{right}` since the number of partitions don't match. `{left}` partitions = "
            f"{n}; `{right}` partitions = {m}. Please repartition either one so that the number of partitions match.")


# kind -> (left DDL builder, right DDL builder, sink kind, WITHIN)
KINDS = {
    "stream-stream": (stream, stream, "STREAM", " WITHIN 1 MINUTE"),
    "stream-table": (stream, table, "STREAM", ""),
    "table-table": (table, table, "TABLE", ""),
}
# (what, ON criteria) of primary-key joins; the value-column one re-keys the left side (streams only)
CRITERIA = {
    "stream-stream": [("keys", "L.ID = R.ID"), ("a left value column", "L.A = R.ID"),
                      ("expressions on both sides", "L.A + 0 = R.ID * 1")],
    "stream-table": [("keys", "L.ID = R.ID"), ("a left value column", "L.A = R.ID")],
    "table-table": [("keys", "L.ID = R.ID")],
}


def select(criteria: str) -> str:
    """The join key as K (a left value column joined on is the key itself), and the value columns."""
    if "+" in criteria:
        return "ROWKEY AS K, L.A AS LA, R.A AS RA"
    return "L.A AS K, R.A AS RA" if "L.A" in criteria else "L.ID AS K, L.A AS LA, R.A AS RA"


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for kind, (left, right, sink, within) in KINDS.items():
        for what, criteria in CRITERIA[kind]:
            join = f"FROM L JOIN R{within} ON {criteria}"
            for n, m in ((2, 3), (3, 2)):
                out.append({
                    "name": f"{kind} join on {what}: {n} and {m} partitions are refused",
                    "statements": [left("L", n), right("R", m), f"CREATE {sink} OUT AS SELECT {select(criteria)} "
                                                                f"{join};"],
                    "expectedException": {"type": ERROR, "message": mismatch("L", n, "R", m)}})
            out.append({
                "name": f"{kind} join on {what}: a sink PARTITIONS does not make unequal sources joinable",
                "statements": [left("L", 2), right("R", 3), f"CREATE {sink} OUT WITH (PARTITIONS=2) AS SELECT "
                                                            f"{select(criteria)} {join};"],
                "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
            # equal counts join; the key the right record carries is the one the left joins on
            left_value = 1 if "L.A" in criteria else 10
            out.append({
                "name": f"{kind} join on {what}: equal partition counts join",
                "statements": [left("L", 2), right("R", 2), f"CREATE {sink} OUT AS SELECT {select(criteria)} "
                                                            f"{join};"],
                "inputs": [{"topic": "r", "key": 1, "value": {"A": 20}, "timestamp": 0},
                           {"topic": "l", "key": 1, "value": {"A": left_value}, "timestamp": 1}],
                "outputs": [{"topic": "OUT", "key": 1, "value": {"RA": 20} if "L.A =" in criteria else
                             {"LA": left_value, "RA": 20}, "timestamp": 1}]})
    # n-way: the earlier join is named by its left-most source and reports its right input's count
    out.append({
        "name": "n-way join: the earlier join reports its right input's count under its left-most source's name",
        "statements": [stream("L", 2), table("T", 2), table("U", 3),
                       "CREATE STREAM OUT AS SELECT L.ID, T.A AS TA, U.A AS UA FROM L JOIN T ON L.A = T.ID "
                       "JOIN U ON L.ID = U.ID;"],
        "expectedException": {"type": ERROR, "message": mismatch("L", 2, "U", 3)}})
    out.append({
        "name": "n-way join: the first join is checked first",
        "statements": [stream("L", 2), table("T", 3), table("U", 4),
                       "CREATE STREAM OUT AS SELECT L.ID, T.A AS TA, U.A AS UA FROM L JOIN T ON L.ID = T.ID "
                       "JOIN U ON L.ID = U.ID;"],
        "expectedException": {"type": ERROR, "message": mismatch("L", 2, "T", 3)}})
    out += ordered()
    out += key_formats()
    # foreign-key joins: no co-partitioning
    for n, m in ((2, 3), (3, 1)):
        out.append({
            "name": f"foreign-key join of tables with {n} and {m} partitions joins",
            "statements": [table("L", n), table("R", m),
                           "CREATE TABLE OUT AS SELECT L.ID, R.A AS RA FROM L JOIN R ON L.A = R.ID;"],
            "inputs": [{"topic": "r", "key": 7, "value": {"A": 70}, "timestamp": 0},
                       {"topic": "l", "key": 1, "value": {"A": 7}, "timestamp": 1}],
            "outputs": [{"topic": "OUT", "key": 1, "value": {"RA": 70}, "timestamp": 1}]})
    return out


# (left, right) key formats: the same, a format change (one side re-keyed), schema-registry formats (both sides
# forced through a repartition topic, ``JoinNode.resolveKeyFormats``) and a delimited key
KEY_FORMATS = [("JSON", "JSON"), ("KAFKA", "JSON"), ("AVRO", "AVRO"), ("PROTOBUF", "KAFKA"), ("JSON_SR", "AVRO"),
               ("DELIMITED", "KAFKA")]


def key_formats() -> list[dict[str, Any]]:
    """Key formats change nothing: a side re-keyed into the join's key format, or forced through a repartition
    topic by a schema-registry format, still reports its source's count."""
    out: list[dict[str, Any]] = []
    for kind, (left, right, sink, within) in KINDS.items():
        for lf, rf in KEY_FORMATS:
            def keyed(ddl: str, fmt: str) -> str:
                return ddl.replace("value_format='JSON'", f"key_format='{fmt}', value_format='JSON'")
            out.append({
                "name": f"{kind} join of {lf} and {rf} keys: 3 and 2 partitions are refused",
                "statements": [keyed(left("L", 3), lf), keyed(right("R", 2), rf),
                               f"CREATE {sink} OUT AS SELECT L.ID AS K, L.A AS LA, R.A AS RA FROM L JOIN R{within} "
                               "ON L.ID = R.ID;"],
                "expectedException": {"type": ERROR, "message": mismatch("L", 3, "R", 2)}})
    return out


def ordered() -> list[dict[str, Any]]:
    """Unequal counts beside an error of another stage: the earlier stage's error is the one reported."""
    key_missing = ("Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\nThe query used to build "
                   "`OUT` must include the join expressions L.ID or R.ID in its projection (eg, SELECT L.ID...).")
    twice = ("The projection contains a key column (`L_ID`) more than once, aliased as: K2 and L_ID.\nEach key "
             "column must only be in the projection once. If you intended to copy the key into the value, then "
             "consider using the AS_VALUE function to indicate which key reference should be copied.")
    # (what, SELECT ... FROM L JOIN R ON L.ID = R.ID ..., the error of logical planning)
    logical = [
        ("the join key missing from the projection", "SELECT L.A AS LA, R.A AS RA {join}", key_missing),
        ("the join key selected twice", "SELECT L.ID, L.ID AS K2, L.A AS LA {join}", twice),
        ("no value columns", "SELECT L.ID {join}", "The projection contains no value columns."),
        ("a WHERE comparing INT to STRING", "SELECT L.ID, L.A AS LA {join} WHERE L.A = 'x'",
         "Error in WHERE expression: Cannot compare L_A (INTEGER) to 'x' (STRING) with EQUAL.\n"
         "Statement: (L_A = 'x')"),
        ("INT plus STRING selected", "SELECT L.ID, L.A + 'x' AS Q {join}",
         "Error processing expression: (L_A + 'x'). Unsupported arithmetic types. INTEGER STRING"),
    ]
    out: list[dict[str, Any]] = []
    for kind, (left, right, sink, within) in KINDS.items():
        join = f"FROM L JOIN R{within} ON L.ID = R.ID"
        for what, text, message in logical:
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
        "expectedException": {"type": ERROR, "message": "Error in WHERE expression: Cannot compare L_A (INTEGER) to "
                                                        "'x' (STRING) with EQUAL.\nStatement: (L_A = 'x')"}})
    out += within_order(logical)
    windowed = ", window_type='TUMBLING', window_size='10 SECONDS'"
    out.append({
        "name": "windowed streams joined on a value column with unequal partition counts: the counts are checked "
                "before the re-keying",
        "statements": [stream("L", 2).replace(");", f"{windowed});"), stream("R", 3).replace(");", f"{windowed});"),
                       "CREATE STREAM OUT AS SELECT L.A AS K, R.A AS RA FROM L JOIN R WITHIN 1 MINUTE ON L.A = R.ID;"],
        "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    return out


def within_order(logical: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
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
        for what, text, message in logical:
            out.append({
                "name": f"{kind} join with a wrong WITHIN and {what}: logical planning reports first",
                "statements": [left("L", 2), right("R", 2), f"CREATE {sink} OUT AS {text.format(join=join)};"],
                "expectedException": {"type": ERROR, "message": message}})
        out.append({
            "name": f"{kind} join with a wrong WITHIN and unequal partition counts: the counts are checked first",
            "statements": [left("L", 2), right("R", 3), f"CREATE {sink} OUT AS SELECT L.ID, L.A AS LA {join};"],
            "expectedException": {"type": ERROR, "message": mismatch("L", 2, "R", 3)}})
    windowed = ", window_type='TUMBLING', window_size='10 SECONDS'"
    out.append({
        "name": "windowed streams joined on a value column without WITHIN: the WITHIN is checked before the re-keying",
        "statements": [stream("L", 2).replace(");", f"{windowed});"), stream("R", 2).replace(");", f"{windowed});"),
                       "CREATE STREAM OUT AS SELECT L.A AS K, R.A AS RA FROM L JOIN R ON L.A = R.ID;"],
        "expectedException": {"type": ERROR, "message": wrong[0][2]}})
    return out


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("copartitioning.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
