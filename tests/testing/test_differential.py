"""The backfill differential's comparison and bookkeeping, without Spark (the Spark runs are in
tests/backfill/test_differential_sample.py)."""

from __future__ import annotations

from typing import Any

from ksqlpy.engine import Engine
from ksqlpy.testing.differential import (
    DiffResult,
    Outcome,
    by_key,
    collapse,
    differences,
    run_differential,
    summary,
)
from ksqlpy.testing.model import Case, ExpectedException, TestRecord


def test_collapse_keeps_the_last_value_per_partition_and_key_and_drops_tombstones() -> None:
    recs = [(0, b"a", b"1", 1), (0, b"a", b"2", 2), (1, b"a", b"9", 3), (0, b"b", b"5", 4), (0, b"b", None, 5)]
    assert collapse(recs) == {(0, b"a"): (b"2", 2), (1, b"a"): (b"9", 3)}


def test_by_key_keeps_each_keys_order_but_not_the_interleaving() -> None:
    a = [(0, b"a", b"1", 1), (0, b"b", b"2", 2), (0, b"a", b"3", 3)]
    b = [(0, b"b", b"2", 2), (0, b"a", b"1", 1), (0, b"a", b"3", 3)]
    assert by_key(a) == by_key(b)
    assert by_key(a) != by_key([(0, b"a", b"3", 3), (0, b"b", b"2", 2), (0, b"a", b"1", 1)])
    assert by_key(a) != by_key([(1, b"a", b"1", 1), (0, b"b", b"2", 2), (1, b"a", b"3", 3)])


def test_records_without_a_key_compare_as_a_bag_over_the_partitions() -> None:
    """Kafka's sticky partitioner puts a null-key record in any partition: only the records count."""
    a = [(0, None, b"x", 1), (0, None, b"y", 2), (0, None, None, 3)]
    assert by_key(a) == by_key([(1, None, b"y", 2), (0, None, None, 3), (2, None, b"x", 1)])
    assert by_key(a) != by_key([(1, None, b"y", 2), (2, None, b"x", 1)])


def test_state_values_compare_by_content() -> None:
    from ksqlpy.testing.differential import _normal

    assert _normal([3, (1,), {5_000_000_000, 0, 3}]) == _normal([3, (1,), {0, 3, 5_000_000_000}])
    assert _normal([(1795784523276252703, 1)]) == _normal([(1795784539551144409, 1)])  # by-offset sequences
    assert _normal([3, {1, 2}]) != _normal([3, {1, 4}])
    assert _normal({"a": 1.5}) != _normal({"a": 2.5})


def _engine(tmp: Any, name: str, sql: str, values: list[bytes]) -> Engine:
    e = Engine(str(tmp / name))
    e.execute("CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
    from ksqlpy.log.base import ProducerRecord

    with e.log.transaction() as tx:
        tx.produce_many([ProducerRecord("s", b"k", v, i, None, None) for i, v in enumerate(values)])
    e.execute(sql, {"auto.offset.reset": "earliest"})
    e.drain()
    return e


def test_differences_name_the_sink_and_the_processing_log(tmp_path: Any) -> None:
    sql = "CREATE TABLE t AS SELECT k, COUNT(*) AS c FROM s GROUP BY k EMIT CHANGES;"
    one = _engine(tmp_path, "a", sql, [b'{"V":1}', b'{"V":2}'])
    same = _engine(tmp_path, "b", sql, [b'{"V":1}', b'{"V":2}'])
    other = _engine(tmp_path, "c", sql, [b'{"V":1}', b"{bad", b'{"V":2}', b'{"V":3}'])
    try:
        assert differences(one, same, [("T", True)]) == []
        assert differences(one, other, [("T", True)]) == ["table T: collapsed sink differs",
                                                          "query of T: state stores differ", "processing log differs"]
    finally:
        for e in (one, same, other):
            e.close()


def _factory(data_dir: str, props: dict[str, Any]) -> Engine:
    return Engine(data_dir, props)


def test_cases_the_differential_cannot_order_are_not_run_without_spark() -> None:
    inputs = [TestRecord("s", "k", {"V": 1}, 1)]
    ddl = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON');"
    insert = Case(file="f", name="insert", statements=[ddl, "INSERT INTO s (k, v) VALUES ('a', 1);"], inputs=inputs)
    error = Case(file="f", name="error", statements=[ddl], expected_exception=ExpectedException("KsqlException"))
    none = Case(file="f", name="ddl only", statements=[ddl], inputs=inputs)
    csas = "CREATE STREAM o AS SELECT * FROM s EMIT CHANGES;"
    upgrade = Case(file="f", name="upgrade", statements=[ddl, csas, csas.replace("CREATE", "CREATE OR REPLACE")],
                   inputs=inputs)
    got = [run_differential(c, None, _factory) for c in (insert, error, none, upgrade)]
    assert [(r.outcome, r.reason) for r in got] == [(Outcome.NOT_RUN, "statement kind InsertValues"),
                                                    (Outcome.NOT_RUN, "expected error"),
                                                    (Outcome.NOT_RUN, "no CREATE ... AS SELECT"),
                                                    (Outcome.NOT_RUN, "CREATE ... AS SELECT over an existing source")]


def test_summary_counts_supported_cases_and_groups_reasons() -> None:
    results = [DiffResult("a", Outcome.EQUAL), DiffResult("b", Outcome.DIFFERENT, "table T1: collapsed sink differs"),
               DiffResult("c", Outcome.DIFFERENT, "table T2: collapsed sink differs"),
               DiffResult("d", Outcome.UNSUPPORTED, "joins")]
    text = summary(results)
    assert text.splitlines()[0] == ("Backfill differential: 4 cases, 3 supported (run on both lowerings), 1 equal (1 "
                                    "of them with empty sinks), 2 different, 1 unsupported, 0 not run")
    assert "      2  table X: collapsed sink differs" in text


def test_live_inputs_come_after_the_queries_start() -> None:
    """Without Spark both sides run streaming: the mechanics (history, then the statements, then the live
    share of the inputs drained) give equal sinks that hold every input's update."""
    ddl = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"
    ctas = "CREATE TABLE t AS SELECT k, SUM(v) AS total FROM s GROUP BY k EMIT CHANGES;"
    inputs = [TestRecord("s", f"k{i % 3}", {"V": i}, i) for i in range(10)]
    case = Case(file="f", name="live", statements=[ddl, ctas], inputs=inputs)
    for live in (0.0, 0.5, 1.0):
        got = run_differential(case, None, _factory, live=live)
        assert (got.outcome, got.queries, got.records) == (Outcome.EQUAL, 1, 10), live


def _join_engine(tmp: Any, name: str, rows: list[tuple[str, bytes, bytes]]) -> Engine:
    e = Engine(str(tmp / name))
    e.execute("CREATE TABLE a (k STRING PRIMARY KEY, v INT) WITH (KAFKA_TOPIC='a', VALUE_FORMAT='JSON', PARTITIONS=1);"
              "CREATE TABLE b (k STRING PRIMARY KEY, w INT) WITH (KAFKA_TOPIC='b', VALUE_FORMAT='JSON', PARTITIONS=1);")
    from ksqlpy.log.base import ProducerRecord

    with e.log.transaction() as tx:
        tx.produce_many([ProducerRecord(t, k, v, i, None, None) for i, (t, k, v) in enumerate(rows)])
    e.execute("CREATE TABLE j AS SELECT a.k, v, w FROM a LEFT JOIN b ON a.k = b.k EMIT CHANGES;",
              {"auto.offset.reset": "earliest"})
    e.drain()
    return e


def test_join_stores_are_compared_too(tmp_path: Any) -> None:
    """A join's tables are what the streaming query continues from after a backfill: a right-side row that no
    left row matched changes no sink record, only the right table's store."""
    from ksqlpy.testing.differential import task_stores

    rows = [("a", b"x", b'{"V":1}'), ("b", b"x", b'{"W":2}')]
    one = _join_engine(tmp_path, "a", rows)
    same = _join_engine(tmp_path, "b", rows)
    other = _join_engine(tmp_path, "c", [*rows, ("b", b"unmatched", b'{"W":3}')])
    try:
        assert any(task_stores(one, "J").values())
        assert differences(one, same, [("J", True)]) == []
        assert differences(one, other, [("J", True)]) == ["query of J: join or table stores differ"]
    finally:
        for e in (one, same, other):
            e.close()
