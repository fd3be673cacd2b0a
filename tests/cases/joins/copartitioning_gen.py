"""Co-partitioning of joins (ksqlDB's ``JoinNode.ensureMatchingPartitionCounts``) over every join kind: the two
sides of a primary-key join must have equal partition counts, checked when the join is built - a side that is
repartitioned (joined on a value column or an expression) still reports its source topic's count, so
repartitioning never relaxes the check; in an n-way join the earlier join reports its right input's count and
is named by its left-most source. The sink's PARTITIONS changes nothing. Foreign-key joins need no
co-partitioning. The refusal: ``Can't join `<L>` with `<R>` since the number of partitions don't match.
`<L>` partitions = <n>; `<R>` partitions = <m>. Please repartition either one so that the number of partitions
match.``

Its place among the other refusals: validation_order_gen.py.

Writes tests/cases/joins/copartitioning.json: ``python tests/cases/joins/copartitioning_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

ERROR = "io.confluent.ksql.util.KsqlStatementException"


def stream(name: str, partitions: int, extra: str = "") -> str:
    """A JSON stream keyed by ID; ``extra`` adds WITH properties (a window type, say)."""
    return (f"CREATE STREAM {name} (ID INT KEY, A INT) WITH (kafka_topic='{name.lower()}', value_format='JSON', "
            f"partitions={partitions}{extra});")


def table(name: str, partitions: int, extra: str = "") -> str:
    return (f"CREATE TABLE {name} (ID INT PRIMARY KEY, A INT) WITH (kafka_topic='{name.lower()}', "
            f"value_format='JSON', partitions={partitions}{extra});")


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


tests = cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("copartitioning.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
