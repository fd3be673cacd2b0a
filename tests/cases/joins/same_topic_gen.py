"""Joins of two sources registered over one topic (not one source twice: that is the analyser's self-join
refusal, ``Can not join 'A' to 'A'``), over every join flavour and kind.

Kafka Streams (from memory; ``InternalStreamsBuilder.mergeDuplicateSourceNodes``, KAFKA-6687 in Kafka 2.8)
merges the stream sources of one topology subscribed to the same topic into one source node, so two
streams over one topic join: each record reaches the left side first (ksqlDB builds the left source
first; the merged node forwards to the left's processors, then the right's). The left side stores the
record and probes the right's window store, which does not hold it yet; the right side stores it and
probes the left's, which does - so every record joins itself once, under every kind (a LEFT or OUTER join's
unmatched left row is held until its window closes and dropped when its own right copy matches it). A
table source is never merged: a topic read by a table and any other source of the query fails building
the topology, ``Invalid topology: Topic <t> has already been registered by another source.`` - the last
check building a statement makes (after analysis, logical and physical planning), for stream-table,
table-table, foreign-key and n-way joins, a re-keyed side, INSERT INTO, and a table over a CTAS's sink.

Writes tests/cases/joins/same-topic.json: ``python tests/cases/joins/same_topic_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

WITHIN_MS = 60_000
KINDS = {"INNER": "JOIN", "LEFT": "LEFT JOIN", "FULL OUTER": "FULL OUTER JOIN"}
TOPOLOGY = "Invalid topology: Topic t has already been registered by another source."

# one partition: the model is one task's order. (key, V, timestamp)
RECORDS: list[tuple[int, int, int]] = [(1, 10, 0), (2, 20, 5), (1, 11, 10), (1, 12, 30_000), (2, 21, 40_000),
                                       (1, 13, 200_000)]


def stream_stream(records: list[tuple[int, int, int]], kind: str,
                  grace: bool) -> list[tuple[int, tuple[int | None, int | None], int]]:
    """(key, (left V, right V), ts) of two streams over one topic joined on their key: per record, the left
    side stores it and probes the right's store, then the right side stores it and probes the left's; a
    window store's fetch returns its records by timestamp (then arrival). Without GRACE (ksqlDB's legacy
    ``JoinWindows.of``) an outer side's unmatched record is joined with NULLs at once; with GRACE it is held
    until its window closes, and its right copy's match drops it."""
    left: list[tuple[int, int, int, int]] = []  # (ts, seq, key, v)
    right: list[tuple[int, int, int, int]] = []
    out = []
    for seq, (k, v, ts) in enumerate(records):
        left.append((ts, seq, k, v))
        matched = False
        for qts, _, qk, qv in sorted(right):
            if qk == k and abs(qts - ts) <= WITHIN_MS:
                out.append((k, (v, qv), max(ts, qts)))
                matched = True
        if not matched and kind != "INNER" and not grace:
            out.append((k, (v, None), ts))
        right.append((ts, seq, k, v))
        for qts, _, qk, qv in sorted(left):
            if qk == k and abs(qts - ts) <= WITHIN_MS:
                out.append((k, (qv, v), max(ts, qts)))
    return out


def n_way_inner(records: list[tuple[int, int, int]], n: int) -> list[tuple[int, tuple[int, ...], int]]:
    """(key, (V of each source), ts) of ``n`` streams over one topic inner-joined left-deep on their key: per
    record, source 0 reaches the first join's left side, then source s (s >= 1) join s's right side; a side
    stores what arrives and probes the other side's store (by timestamp, then arrival), each result (at the
    later time) going on to the next join's left side at once, or out after the last join."""
    lefts: list[list[tuple[int, int, int, tuple[int, ...]]]] = [[] for _ in range(n - 1)]  # (ts, seq, key, vs)
    rights: list[list[tuple[int, int, int, tuple[int, ...]]]] = [[] for _ in range(n - 1)]
    out: list[tuple[int, tuple[int, ...], int]] = []
    seq = iter(range(10**9))

    def arrive(j: int, left: bool, ts: int, k: int, vs: tuple[int, ...]) -> None:
        if j == n - 1:
            out.append((k, vs, ts))
            return
        (lefts if left else rights)[j].append((ts, next(seq), k, vs))
        for qts, _, qk, qvs in sorted(rights[j] if left else lefts[j]):
            if qk == k and abs(qts - ts) <= WITHIN_MS:
                arrive(j + 1, True, max(ts, qts), k, vs + qvs if left else qvs + vs)

    for k, v, ts in records:
        arrive(0, True, ts, k, (v,))
        for j in range(n - 1):
            arrive(j, False, ts, k, (v,))
    return out


def rec(topic: str, key: Any, val: Any, ts: int) -> dict[str, Any]:
    return {"topic": topic, "key": key, "value": val, "timestamp": ts}


def streams(fmt: str) -> list[str]:
    return [f"CREATE STREAM A (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='{fmt}', partitions=1);",
            f"CREATE STREAM B (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='{fmt}', partitions=1);"]


def joined_cases() -> list[dict[str, Any]]:
    tests = []
    inputs = [rec("t", k, {"V": v}, ts) for k, v, ts in RECORDS]
    for kind, join in KINDS.items():
        for fmt, grace in (("JSON", False), ("AVRO", False), ("JSON", True)):
            rows = stream_stream(RECORDS, kind, grace)
            key = "ROWKEY" if kind == "FULL OUTER" else "A.ID AS ID"
            within = "WITHIN 1 MINUTE GRACE PERIOD 1 MINUTE" if grace else "WITHIN 1 MINUTE"
            tests.append({
                "name": f"{kind} stream-stream join of two {fmt} streams over one topic, "
                        f"{'with' if grace else 'no'} GRACE: every record joins itself and its key's others "
                        "within the window",
                "statements": [*streams(fmt), f"CREATE STREAM OUT AS SELECT {key}, A.V AS AV, B.V AS BV FROM A "
                                              f"{join} B {within} ON A.ID = B.ID;"],
                "inputs": inputs,
                "outputs": [rec("OUT", k, {"AV": a, "BV": b}, ts) for k, (a, b), ts in rows],
            })
    names = ["A", "B", "C"]
    three = [s.replace("STREAM B ", f"STREAM {n} ") for n in names for s in streams("JSON")[1:]]
    tests.append({
        "name": "three streams over one topic, n-way inner join: each record joins itself at every step",
        "statements": [*three, "CREATE STREAM OUT AS SELECT A.ID AS ID, A.V AS AV, B.V AS BV, C.V AS CV FROM A "
                               "JOIN B WITHIN 1 MINUTE ON A.ID = B.ID JOIN C WITHIN 1 MINUTE ON A.ID = C.ID;"],
        "inputs": inputs,
        "outputs": [rec("OUT", k, dict(zip(["AV", "BV", "CV"], vs, strict=True)), ts)
                    for k, vs, ts in n_way_inner(RECORDS, 3)],
    })
    # both sides re-keyed by a value column: two repartition topics, each value once (no tie to order)
    distinct = [(k, v, ts) for k, v, ts in RECORDS]
    tests.append({
        "name": "stream-stream join of two streams over one topic, both re-keyed on a value column",
        "statements": [*streams("JSON"), "CREATE STREAM OUT AS SELECT A.V AS V, A.ID AS AID, B.ID AS BID FROM A "
                                         "JOIN B WITHIN 1 MINUTE ON A.V = B.V;"],
        "inputs": inputs,
        "outputs": [rec("OUT", v, {"AID": k, "BID": k}, ts) for k, v, ts in distinct],
    })
    return tests


def refused(name: str, statements: list[str], message: str = TOPOLOGY) -> dict[str, Any]:
    return {"name": name, "statements": statements,
            "expectedException": {"type": "org.apache.kafka.streams.errors.TopologyException" if message == TOPOLOGY
                                  else "io.confluent.ksql.util.KsqlStatementException", "message": message}}


def refused_cases() -> list[dict[str, Any]]:
    stream = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
    table = "CREATE TABLE T (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
    table2 = "CREATE TABLE U (ID INT PRIMARY KEY, X INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);"
    tests = []
    for kind, join in {"INNER": "JOIN", "LEFT": "LEFT JOIN"}.items():
        tests.append(refused(f"{kind} stream-table join of a stream and a table over one topic", [
            stream, table, f"CREATE STREAM OUT AS SELECT S.ID AS ID, V, W FROM S {join} T ON S.ID = T.ID;"]))
        tests.append(refused(f"{kind} stream-table join over one topic, the stream re-keyed", [
            stream, table, f"CREATE STREAM OUT AS SELECT S.V AS V, S.ID AS SID, W FROM S {join} T ON S.V = T.ID;"]))
        tests.append(refused(f"{kind} foreign-key join of two tables over one topic", [
            table, table2, f"CREATE TABLE OUT AS SELECT T.ID AS ID, W, X FROM T {join} U ON T.W = U.ID;"]))
    for kind, join in {"INNER": "JOIN", "LEFT": "LEFT JOIN", "RIGHT": "RIGHT JOIN",
                       "FULL OUTER": "FULL OUTER JOIN"}.items():
        key = "ROWKEY" if kind == "FULL OUTER" else "U.ID AS ID" if kind == "RIGHT" else "T.ID AS ID"
        tests.append(refused(f"{kind} table-table join of two tables over one topic", [
            table, table2, f"CREATE TABLE OUT AS SELECT {key}, W, X FROM T {join} U ON T.ID = U.ID;"]))
    tests.append(refused("a table over one topic with two streams of a stream-stream join, n-way", [
        stream, stream.replace("STREAM S ", "STREAM S2 "), table,
        "CREATE STREAM OUT AS SELECT S.ID AS ID, S.V AS V1, S2.V AS V2, W FROM S JOIN S2 WITHIN 1 MINUTE "
        "ON S.ID = S2.ID JOIN T ON S.ID = T.ID;"]))
    tests.append(refused("n-way: the third source's table shares the FROM stream's topic", [
        stream, table.replace("'t'", "'t2'"), table2,
        "CREATE STREAM OUT AS SELECT S.ID AS ID, V, W, X FROM S JOIN T ON S.ID = T.ID JOIN U ON S.ID = U.ID;"]))
    tests.append(refused("INSERT INTO from a stream-table join over one topic", [
        stream, table, "CREATE STREAM OUT (ID INT KEY, V INT, W INT) WITH (kafka_topic='o', value_format='JSON');",
        "INSERT INTO OUT SELECT S.ID AS ID, V, W FROM S JOIN T ON S.ID = T.ID;"]))
    tests.append(refused("a table registered over a CTAS's sink joined with that CTAS's table", [
        table.replace("'t'", "'src'"),
        "CREATE TABLE C WITH (kafka_topic='t') AS SELECT * FROM T;",
        # D names t's count (T's): the harness creates t at it, so the CTAS meets t as it would create it
        "CREATE TABLE D (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
        "CREATE TABLE OUT AS SELECT C.ID AS ID, C.W AS CW, D.W AS DW FROM C JOIN D ON C.ID = D.ID;"]))
    # physical planning's refusals come first: building the stream-table join refuses a RIGHT join
    tests.append(refused("RIGHT stream-table join over one topic: the join type's refusal comes first", [
        stream, table, "CREATE STREAM OUT AS SELECT S.ID AS ID, V, W FROM S RIGHT JOIN T ON S.ID = T.ID;"],
        "Invalid join type encountered: RIGHT [OUTER] JOIN"))
    # analysis first: one source twice is the self-join refusal, whatever its kind
    tests.append(refused("a table joined with itself under two aliases is a self join", [
        table, "CREATE TABLE OUT AS SELECT X.ID AS ID, X.W AS XW, Y.W AS YW FROM T X JOIN T Y ON X.ID = Y.ID;"],
        "Can not join 'T' to 'T': self joins are not yet supported."))
    return tests


tests = joined_cases() + refused_cases()

if __name__ == "__main__":
    path = pathlib.Path(__file__).with_name("same-topic.json")
    path.write_text(json.dumps({"comments": [__doc__.strip().splitlines()[0]], "tests": tests}, indent=2) + "\n")
