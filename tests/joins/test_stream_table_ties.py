"""A stream-table join reads its table as of the stream record's time, that time included: when a stream
record and a table record of its key have the same timestamp and are read in one batch, the table's goes
first - whatever the order of the inputs, and whether either side came through a repartition topic.

Before, ties went by input order, so a stream record written after its table row in the same millisecond
(a page's INSERT block, Nexmark's person and auction of one instant) could miss it."""

from __future__ import annotations

import pytest

from tests.joins.conftest import Harness

SOURCES = [
    "CREATE STREAM S (ID INT KEY, FK INT, N INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);",
    "CREATE TABLE T (ID INT PRIMARY KEY, W STRING) WITH (kafka_topic='t', value_format='JSON', partitions=1);",
]


@pytest.mark.parametrize("join", ["JOIN", "LEFT JOIN"])
@pytest.mark.parametrize(("on", "key"), [("S.ID = T.ID", "S.ID"), ("S.FK = T.ID", "S.FK")])  # the stream keyed as the table, or re-keyed
@pytest.mark.parametrize("table_first_in_log", [True, False])
def test_a_table_row_of_the_same_time_is_joined(h: Harness, join: str, on: str, key: str,
                                                table_first_in_log: bool) -> None:
    for s in SOURCES:
        h.sql(s)
    sends = [("T", 7, {"W": "seven"}, 1000), ("S", 7, {"FK": 7, "N": 1}, 1000)]
    for source, k, value, ts in (sends if table_first_in_log else sends[::-1]):
        h.send(source, k, value, ts)
    h.send("S", 7, {"FK": 7, "N": 2}, 1001)
    h.sql(f"CREATE STREAM O AS SELECT {key} AS K, S.N, T.W FROM S {join} T ON {on} EMIT CHANGES;")
    h.run()
    assert sorted(v[-2:] for _, v, _ in h.read("O")) == [(1, "seven"), (2, "seven")]


def test_an_earlier_stream_record_still_misses_a_later_table_row(h: Harness) -> None:
    for s in SOURCES:
        h.sql(s)
    h.send("T", 7, {"W": "seven"}, 1000)
    h.send("S", 7, {"FK": 7, "N": 1}, 999)
    h.sql("CREATE STREAM O AS SELECT S.ID AS K, S.N, T.W FROM S LEFT JOIN T ON S.ID = T.ID EMIT CHANGES;")
    h.run()
    assert [v[-2:] for _, v, _ in h.read("O")] == [(1, None)]
