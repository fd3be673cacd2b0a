"""Invariant 1 on the backfill: for the same input and SQL, the Spark backfill's sink equals the streaming
runtime's (a table's after collapsing its updates), with the same processing-log entries."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.backfill import collapse as collapsed
from bench.backfill import sink as sink_records
from ksqlpy.backfill import backfill
from tests.backfill.conftest import Record, make_engine, streamed

pytestmark = pytest.mark.slow

DDL = ("CREATE STREAM s (k STRING KEY, grp STRING, v INT, d DOUBLE, txt STRING) "
       "WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=3);")


def _v(**fields: Any) -> bytes:
    return json.dumps({k.upper(): x for k, x in fields.items()}).encode()


def _records() -> list[Record]:
    """Three partitions, keys pinned to one partition each, timestamps out of order, plus bad records."""
    recs: list[Record] = []
    for i in range(60):
        p = i % 3
        key = f"k{p}{i % 2}".encode()
        ts = 10_000 + i * 700 - (4_000 if i % 7 == 3 else 0)  # every 7th record is out of order
        recs.append((p, key, _v(grp=f"g{i % 4}", v=i if i % 11 else None, d=i / 4, txt=str(i)), ts))
    recs += [
        (0, b"k00", b"{not json", 20_000),  # unreadable: processing log, never stops the query
        (1, b"k10", None, 20_500),  # a null value on a stream: skipped by aggregations
        (2, b"k20", _v(grp=None, v=5, d=1.0, txt="x"), 21_000),  # NULL group key: dropped (GROUP BY grp)
        (1, b"k11", _v(grp="g1", v=7, d=2.0, txt="not a number"), 21_500),  # CAST fails: NULL + processing log
        (0, b"k01", _v(grp="g2", v=3, d=0.5, txt="9"), 1_000),  # very late: dropped by windows with a grace
    ]
    return recs


def _both(tmp_path: Any, spark: Any, sql: str, records: list[Record] | None = None) -> tuple[Any, Any, Any]:
    records = _records() if records is None else records
    name = sql.split()[2].upper()
    ref = streamed(str(tmp_path / "streaming"), DDL, records, "s", sql)
    eng = make_engine(str(tmp_path / "backfill"), DDL, records, "s")
    result = backfill(eng, sql, spark=spark)
    assert result.records_read == len(records)
    return ref, eng, (name, result)


def test_stateless_stream_equals_streaming(tmp_path: Any, spark: Any) -> None:
    sql = ("CREATE STREAM o AS SELECT k, v * 2 AS v2, UCASE(txt) AS t, CAST(txt AS INT) AS n, ROWTIME AS rt "
           "FROM s WHERE v IS NULL OR v % 3 <> 0 EMIT CHANGES;")
    ref, eng, (name, result) = _both(tmp_path, spark, sql)
    want, got = sink_records(ref, name), sink_records(eng, name)
    assert len(want) > 30
    assert sorted(got, key=repr) == sorted(want, key=repr)
    # and per partition in offset order, as each streaming task writes them
    for p in range(3):
        assert [r for r in got if r[0] == p] == [r for r in want if r[0] == p]
    assert eng.plog.count == ref.plog.count >= 2  # the unreadable record and the failed CAST
    assert result.processing_errors == eng.plog.count
    assert result.state_entries == 0


def test_windowed_aggregation_with_late_records_equals_streaming(tmp_path: Any, spark: Any) -> None:
    sql = ("CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MIN(d) AS mn, MAX(txt) AS mx, AVG(v) AS av, "
           "COLLECT_LIST(v) AS vs FROM s WINDOW TUMBLING (SIZE 5 SECONDS, GRACE PERIOD 2 SECONDS) "
           "GROUP BY k EMIT CHANGES;")
    ref, eng, (name, result) = _both(tmp_path, spark, sql)
    want = collapsed(sink_records(ref, name))
    assert len(want) > 10
    assert collapsed(sink_records(eng, name)) == want
    late = sum(a.late for a in ref.queries[result.query_id].aggregation.aggregators)
    assert late > 0  # the case covers late drops
    assert result.late_records == late
    assert eng.plog.count == ref.plog.count >= 1
    assert result.state_entries == _changelog_entries(ref.queries[result.query_id])  # no time index entries


def test_hopping_window_having_equals_streaming(tmp_path: Any, spark: Any) -> None:
    sql = ("CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s "
           "WINDOW HOPPING (SIZE 6 SECONDS, ADVANCE BY 2 SECONDS, GRACE PERIOD 1 SECOND) "
           "GROUP BY k HAVING COUNT(*) > 1 EMIT CHANGES;")
    ref, eng, (name, _) = _both(tmp_path, spark, sql)
    want = collapsed(sink_records(ref, name))
    assert len(want) > 10
    assert collapsed(sink_records(eng, name)) == want


def test_repartitioned_aggregation_equals_streaming(tmp_path: Any, spark: Any) -> None:
    # GROUP BY a value column over three partitions: the streaming query re-keys through a repartition
    # topic; the backfill shuffles each group to the task partition that topic would give it
    sql = ("CREATE TABLE o AS SELECT grp, COUNT(*) AS c, SUM(v) AS sv, MIN(v) AS mn, MAX(v) AS mx, AVG(v) AS av, "
           "COUNT(v) AS cv FROM s WHERE v IS NULL OR v <> 13 GROUP BY grp EMIT CHANGES;")
    ref, eng, (name, result) = _both(tmp_path, spark, sql)
    want = collapsed(sink_records(ref, name))
    assert len(want) == 4
    assert collapsed(sink_records(eng, name)) == want
    assert eng.plog.count == ref.plog.count
    # the state handed over is the state the streaming tasks hold
    ref_q, q = ref.queries[result.query_id], eng.queries[result.query_id]
    assert _state(q) == _state(ref_q)


def test_emit_final_equals_streaming(tmp_path: Any, spark: Any) -> None:
    sql = ("CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM s WINDOW TUMBLING (SIZE 4 SECONDS, GRACE PERIOD 1 SECOND) "
           "GROUP BY k EMIT FINAL;")
    ref, eng, (name, result) = _both(tmp_path, spark, sql)
    want = sink_records(ref, name)
    assert len(want) > 5
    assert collapsed(sink_records(eng, name)) == collapsed(want)
    assert _state(eng.queries[result.query_id]) == _state(ref.queries[result.query_id])


@pytest.mark.parametrize("sql", [
    "CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv, MAX(txt) AS mx FROM s "
    "WINDOW SESSION (1500 MILLISECONDS, GRACE PERIOD 1 SECOND) GROUP BY k EMIT CHANGES;",
    "CREATE TABLE o AS SELECT k, COUNT(*) AS c FROM s WINDOW SESSION (2 SECONDS) GROUP BY k "
    "HAVING COUNT(*) > 1 EMIT CHANGES;",
    "CREATE TABLE o AS SELECT k, COUNT(*) AS c, COLLECT_LIST(v) AS vs FROM s "
    "WINDOW SESSION (1 SECOND, GRACE PERIOD 0 SECONDS) GROUP BY k EMIT FINAL;",
], ids=["grace", "having", "emit-final"])
def test_session_windows_equal_streaming(tmp_path: Any, spark: Any, sql: str) -> None:
    """Sessions merge as records arrive (a merged session's row becomes a tombstone): one task per partition
    in offset order gives the streaming query's final table, state and late drops."""
    ref, eng, (name, result) = _both(tmp_path, spark, sql)
    want = collapsed(sink_records(ref, name))
    assert len(want) > 5
    assert collapsed(sink_records(eng, name)) == want
    assert _state(eng.queries[result.query_id]) == _state(ref.queries[result.query_id])
    assert result.late_records == sum(a.late for a in ref.queries[result.query_id].aggregation.aggregators)
    assert eng.plog.count == ref.plog.count
    # the sessions' time index is derived on restore: handed over as the changelog holds it, without it
    assert result.state_entries == _changelog_entries(ref.queries[result.query_id])


def _changelog_entries(query: Any) -> int:
    return sum(1 for a in query.aggregation.aggregators for k, _ in a.kv.items(b"") if k[:1] not in (b"I", b"E"))


def _state(query: Any) -> dict[int, list[tuple[bytes, Any]]]:
    """Every aggregation store's content, per task partition."""
    out = {}
    for a in query.aggregation.aggregators:
        out[a.kv.partition] = [(k, repr(v)) for k, v in a.kv.items(b"")]
    return out


def test_partition_by_and_table_function_equal_streaming(tmp_path: Any, spark: Any) -> None:
    sql = ("CREATE STREAM o AS SELECT grp, k, EXPLODE(ARRAY[v, v + 100]) AS e FROM s "
           "WHERE grp IS NOT NULL PARTITION BY grp EMIT CHANGES;")
    ref, eng, (name, _) = _both(tmp_path, spark, sql)
    want = sink_records(ref, name)
    assert len(want) > 100 and len({r[0] for r in want}) > 1  # re-keyed over several sink partitions
    assert sorted(sink_records(eng, name), key=repr) == sorted(want, key=repr)
