"""A backfill as a statement on a running engine (``ksqlpy.backfill``): the history computed on Spark in a
thread while the engine serves, progress while it runs, the query continuing afterwards; the session
reused; TERMINATE cancelling; a failure rolled back; a run cut short resumed when the command log replays
the statement; ``auto`` choosing streaming replay when it is estimated faster."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest

from bench.backfill import collapse as collapsed
from bench.backfill import sink as sink_records
from ksqlpy.backfill import BackfillUnsupported
from ksqlpy.backfill.handoff import HandOff
from ksqlpy.backfill.mode import RUN_START_S, STREAMING_US, TIER_COSTS, Choice, estimate
from ksqlpy.backfill.progress import Phase
from ksqlpy.backfill.run import marker_groups, resume_group
from ksqlpy.engine.command_log import DurableStatements
from ksqlpy.engine.engine import Engine
from ksqlpy.errors import KsqlStatementError
from tests.backfill.conftest import Record, produce, streamed

pytestmark = pytest.mark.slow

DDL = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);"
TABLE = "CREATE TABLE o AS SELECT k, COUNT(*) AS c, SUM(v) AS sv FROM s GROUP BY k EMIT CHANGES;"
FILTER = "CREATE STREAM f AS SELECT k, v * 10 AS v10 FROM s WHERE v % 3 <> 0 EMIT CHANGES;"
SPARK = {"ksqlpy.backfill": "spark"}


def _records(n: int, first: int = 0) -> list[Record]:
    return [(i % 2, f"k{i % 5}".encode(), json.dumps({"V": i}).encode(), 1_000 + i) for i in range(first, first + n)]


def _engine(path: str, records: list[Record], **props: str) -> Engine:
    engine = Engine(path, dict(props))
    engine.execute(DDL)
    produce(engine, "s", records)
    return engine


def _wait(engine: Engine, query_id: str) -> Any:
    run = engine.backfills.wait(query_id, 300)
    assert run.finished.is_set(), run.status()
    return run


def _caught_up(engine: Engine, name: str, want: int, timeout_s: float = 60.0) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        got = sink_records(engine, name)
        if len(got) >= want or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_a_statement_backfills_on_a_running_engine_and_the_query_continues(tmp_path: Any, spark: Any) -> None:
    records = _records(3000)
    ref = streamed(str(tmp_path / "ref"), DDL, records, "s", FILTER)
    engine = _engine(str(tmp_path / "bf"), records)
    engine.start()
    try:
        result = engine.execute(FILTER, SPARK)[0]
        qid = result.query_id
        assert result.message == f"Created query with ID {qid}"
        assert engine.queries[qid].state in ("BACKFILLING", "RUNNING")
        run = _wait(engine, qid)
        assert run.error is None
        status = run.status()
        assert status["phase"] == Phase.DONE.value
        assert status["recordsRead"] == status["recordsTotal"] == 3000
        assert [p["offset"] for p in status["partitions"]] == [1500, 1500]
        assert status["etaSeconds"] == 0.0
        assert engine.queries[qid].state == "RUNNING"
        want = sink_records(ref, "F")
        assert sorted(sink_records(engine, "F"), key=repr) == sorted(want, key=repr)
        # the streaming query continues at the next offset: new records appear once, after the history
        more = _records(30, first=3000)
        produce(engine, "s", more)
        ref_more = [r for r in more if json.loads(r[2])["V"] % 3 != 0]
        got = _caught_up(engine, "F", len(want) + len(ref_more))
        assert len(got) == len(want) + len(ref_more)
        # the staging directory is gone, the marker says the run is done
        assert not os.path.exists(run.progress.staging)
        assert engine.backfills.marker(qid)["state"] == "DONE"
        # a second backfill in the same engine reuses the session: it starts in moments
        second = engine.execute(TABLE, SPARK)[0]
        run2 = _wait(engine, second.query_id)
        assert run2.error is None
        assert run2.result.details["startup_seconds"] <= 5
        ref2 = streamed(str(tmp_path / "ref2"), DDL, records + more, "s", TABLE)
        assert collapsed(sink_records(engine, "O")) == collapsed(sink_records(ref2, "O"))
    finally:
        engine.close()
    assert spark.sparkContext._jsc is not None  # a session the engine did not start is not stopped by it


def test_explain_shows_the_backfill_while_it_runs(tmp_path: Any, spark: Any, monkeypatch: Any) -> None:
    import ksqlpy.backfill.handoff as handoff

    engine = _engine(str(tmp_path), _records(400))
    seen: list[dict[str, Any]] = []
    original = handoff.HandOff.commit_file

    def commit_file(self: HandOff, path: str, resume: Any = None) -> None:
        # while the driver commits: EXPLAIN shows the backfill entry and the task offsets at the end
        qid = self.result.query_id
        seen.append(engine.execute(f"EXPLAIN {qid};")[0].data)
        original(self, path, resume)

    monkeypatch.setattr(handoff.HandOff, "commit_file", commit_file)
    try:
        qid = engine.execute(TABLE, SPARK)[0].query_id
        _wait(engine, qid)
    finally:
        engine.close()
    assert seen
    d = seen[0]
    assert d["state"] == "BACKFILLING"
    assert d["backfill"]["phase"] == "COMMITTING" and d["backfill"]["recordsTotal"] == 400
    offsets = [o for t in d["tasksMetadata"] for o in t["topicOffsets"]]
    assert [(o["offset"], o["endOffset"], o["lag"]) for o in offsets] == [(200, 200, 0), (200, 200, 0)]


def test_a_failure_rolls_the_statement_back(tmp_path: Any, spark: Any, monkeypatch: Any) -> None:
    import ksqlpy.backfill.handoff as handoff

    def broken(self: HandOff, path: str, resume: Any = None) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(handoff.HandOff, "commit_file", broken)
    engine = _engine(str(tmp_path), _records(200))
    try:
        qid = engine.execute(FILTER, SPARK)[0].query_id
        run = _wait(engine, qid)
        assert run.status()["phase"] == "FAILED" and "disk full" in run.status()["error"]
        assert engine.catalog.source("F") is None and qid not in engine.queries
        assert not engine.log.topic_exists("F")  # no orphan topic
        # the statement can simply be run again
        monkeypatch.undo()
        qid2 = engine.execute(FILTER, SPARK)[0].query_id
        assert _wait(engine, qid2).error is None
        assert len(sink_records(engine, "F")) == sum(1 for i in range(200) if i % 3)
    finally:
        engine.close()


def test_terminate_cancels_the_backfill_and_rolls_it_back(tmp_path: Any, spark: Any, monkeypatch: Any) -> None:
    import ksqlpy.backfill.run as run_module

    engine = _engine(str(tmp_path), _records(200))
    started = run_module.run_on

    def slow_start(*args: Any, **kw: Any) -> Any:  # hold the run until TERMINATE has been issued
        deadline = time.monotonic() + 30
        while not kw["cancelled"]() and time.monotonic() < deadline:
            time.sleep(0.05)
        return started(*args, **kw)

    monkeypatch.setattr(run_module, "run_on", slow_start)
    try:
        qid = engine.execute(FILTER, SPARK)[0].query_id
        engine.execute(f"TERMINATE {qid};")
        run = _wait(engine, qid)
        assert run.status()["phase"] == "CANCELLED"
        assert engine.catalog.source("F") is None and not engine.log.topic_exists("F")
    finally:
        engine.close()


def test_an_interrupted_backfill_resumes_when_the_statement_is_replayed(tmp_path: Any, spark: Any,
                                                                       monkeypatch: Any) -> None:
    import ksqlpy.backfill.handoff as handoff

    records = _records(50_000)
    ref = streamed(str(tmp_path / "ref"), DDL, records, "s", FILTER)
    path = str(tmp_path / "bf")
    engine = Engine(path, {"ksqlpy.backfill.task.records": "12000"})
    statements = DurableStatements(engine)
    engine.backfill_statements = statements.execute
    statements.execute(DDL)
    produce(engine, "s", records)
    original = handoff.HandOff.commit_file
    calls = {"n": 0}

    def crash_after_one_file(self: HandOff, path_: str, resume: Any = None) -> None:
        if calls["n"] == 1:  # the process dies after the first file was committed
            engine.backfills.runs[self.result.query_id].interrupted = True
            raise SystemExit("killed")
        calls["n"] += 1
        original(self, path_, resume)

    monkeypatch.setattr(handoff.HandOff, "commit_file", crash_after_one_file)
    qid = statements.execute(FILTER, SPARK)[0].query_id
    run = _wait(engine, qid)
    assert run.interrupted and run.status()["phase"] == "CANCELLED"
    partial = len(sink_records(engine, "F"))
    assert 0 < partial < len(sink_records(ref, "F"))
    assert engine.backfills.marker(qid)["state"] == "RUNNING"
    assert marker_groups(engine.log, qid) == [resume_group(qid)]  # kept for the resume
    engine.close()
    monkeypatch.undo()

    engine = Engine(path, {"ksqlpy.backfill.task.records": "12000"})
    try:
        DurableStatements(engine)  # replays the statement: the backfill resumes
        run = _wait(engine, qid)
        assert run.error is None, run.status()
        assert run.progress.resumed_tasks >= 1  # staged output of the first attempt was reused
        # nothing lost, nothing twice (how streaming interleaves source partitions in one sink partition
        # depends on its polling; each source partition's records keep their order in both)
        got, want = sink_records(engine, "F"), sink_records(ref, "F")
        assert sorted(got, key=repr) == sorted(want, key=repr)
        for p in range(2):
            def of(rs: list[Any], src: int, p: int = p) -> list[Any]:
                return [r for r in rs if r[0] == p and (json.loads(r[2])["V10"] // 10) % 2 == src]
            assert of(got, 0) == of(want, 0) and of(got, 1) == of(want, 1)
        assert engine.backfills.marker(qid)["state"] == "DONE"
        assert marker_groups(engine.log, qid) == []  # the run ended: its batch counts are gone
    finally:
        engine.close()
    # a third start replays the statement again: the backfill is not run a second time
    engine = Engine(path)
    try:
        DurableStatements(engine)
        assert qid in engine.queries and qid not in engine.backfills.runs
    finally:
        engine.close()


def test_auto_replays_on_streaming_when_that_is_estimated_faster(tmp_path: Any, spark: Any) -> None:
    engine = _engine(str(tmp_path), _records(300))
    try:
        qid = engine.execute(FILTER, {"ksqlpy.backfill": "auto"})[0].query_id
        assert qid not in engine.backfills.runs  # 300 records: streaming replay is faster
        engine.drain()
        assert len(sink_records(engine, "F")) == sum(1 for i in range(300) if i % 3)  # history included
    finally:
        engine.close()


def test_auto_falls_back_to_streaming_where_spark_refuses_and_spark_refuses_first(tmp_path: Any,
                                                                                spark: Any) -> None:
    session = ("CREATE TABLE w AS SELECT v, COUNT(*) AS c FROM s WINDOW SESSION (5 SECONDS) GROUP BY v "
               "EMIT CHANGES;")
    # the tasks' own transactions need a Kafka log: refused on the embedded one
    engine = _engine(str(tmp_path), _records(100), **{"ksqlpy.backfill.writes": "tasks"})
    try:
        with pytest.raises(BackfillUnsupported, match="needs a Kafka log"):
            engine.execute(session, SPARK)
        assert engine.catalog.source("W") is None and not engine.queries and not engine.log.topic_exists("W")
        qid = engine.execute(session, {"ksqlpy.backfill": "auto"})[0].query_id
        assert qid not in engine.backfills.runs
        engine.drain()
        assert sink_records(engine, "W")
    finally:
        engine.close()


def test_the_property_takes_off_spark_or_auto(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path))
    try:
        with pytest.raises(KsqlStatementError, match="Invalid value fast for configuration ksqlpy.backfill"):
            engine.execute("SET 'ksqlpy.backfill'='fast';")
        engine.execute(DDL)
        with pytest.raises(KsqlStatementError, match="ksqlpy.backfill"):
            engine.execute(FILTER, {"ksqlpy.backfill": "fast"})
        assert engine.catalog.source("F") is None
    finally:
        engine.close()


def test_estimate_prefers_spark_only_with_enough_records_and_cores(tmp_path: Any) -> None:
    engine = Engine(str(tmp_path))
    try:
        engine.execute(DDL)
        from ksqlpy.analysis.query import analyze_query
        from ksqlpy.grammar import parse

        stmt = parse(FILTER)[0]
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name="F", persistent=True,
                             sql=FILTER)
        assert not estimate(plan, 1_000, 2, session_up=False).spark_faster
        assert not estimate(plan, 100_000_000, 1, session_up=True).spark_faster  # one core: streaming wins
        assert estimate(plan, 100_000_000, 16, session_up=True).spark_faster
        agg_sql = "CREATE TABLE c AS SELECT k, COUNT(*) AS n FROM s GROUP BY k EMIT CHANGES;"
        agg = analyze_query(parse(agg_sql)[0].query, engine.catalog, engine.session_state(), sink_name="C",
                            persistent=True, sql=agg_sql)
        # an aggregation runs at most one task per source partition: 16 cores over 1 partition are one
        assert not estimate(agg, 100_000_000, 16, session_up=True, partitions=1).spark_faster
        assert estimate(agg, 100_000_000, 16, session_up=True, partitions=8).spark_faster
        assert Choice.SPARK.value == "spark"
    finally:
        engine.close()


def test_a_server_on_a_shared_log_refuses_spark_and_auto_replays_on_streaming(tmp_path: Any) -> None:
    from ksqlpy.runtime.context import Hosting

    engine = _engine(str(tmp_path), _records(50))
    try:
        engine.hosting = Hosting(members_in_threads=True)  # what a server on Kafka runs as (membership.py)
        with pytest.raises(BackfillUnsupported, match="a log other servers share"):
            engine.execute(FILTER, SPARK)
        assert engine.catalog.source("F") is None and not engine.log.topic_exists("F")
        engine.hosting = Hosting()
        qid = engine.execute(FILTER, {"ksqlpy.backfill": "auto"})[0].query_id
        assert qid not in engine.backfills.runs
    finally:
        engine.close()


def test_without_pyspark_spark_is_refused_before_anything_is_created(tmp_path: Any, monkeypatch: Any) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    engine = _engine(str(tmp_path), _records(50))
    try:
        with pytest.raises(BackfillUnsupported, match="needs PySpark"):
            engine.execute(FILTER, SPARK)
        assert engine.catalog.source("F") is None and not engine.log.topic_exists("F")
        engine.execute(FILTER, {"ksqlpy.backfill": "auto"})  # auto: streaming replay
        engine.drain()
        assert len(sink_records(engine, "F")) == sum(1 for i in range(50) if i % 3)
    finally:
        engine.close()


def _threshold(kind: str, tier: str, parallel: int) -> float:
    """Records from which the tier is estimated faster than streaming replay (session up)."""
    cost = TIER_COSTS[(tier, kind)]
    per_record = STREAMING_US[kind] / 1e6
    return (RUN_START_S + cost.run_cpu_s) / (per_record * (1 - cost.ratio / parallel))


def test_estimate_follows_the_tier(tmp_path: Any) -> None:
    """``auto`` costs the tier the backfill would run on (``ksqlpy.backfill.tier``) from its measured figures:
    between the two tiers' break-even points the choice differs; a tier that does not run the query's kind
    (the native tier and a stateless query) is costed as the Python tier."""
    engine = Engine(str(tmp_path))
    try:
        engine.execute(DDL)
        from ksqlpy.analysis.query import analyze_query
        from ksqlpy.grammar import parse

        agg = analyze_query(parse(TABLE)[0].query, engine.catalog, engine.session_state(), sink_name="O",
                            persistent=True, sql=TABLE)
        python, native = _threshold("aggregate", "python", 2), _threshold("aggregate", "native", 2)
        assert python != native
        between = int((python + native) / 2)
        faster = {t: estimate(agg, between, 2, session_up=True, partitions=2, tier=t).spark_faster
                  for t in ("python", "native")}
        assert faster == {"python": python < native, "native": native < python}  # the lower break-even wins
        plan = analyze_query(parse(FILTER)[0].query, engine.catalog, engine.session_state(), sink_name="F",
                             persistent=True, sql=FILTER)
        assert (estimate(plan, 5_000_000, 2, session_up=True, tier="native")
                == estimate(plan, 5_000_000, 2, session_up=True, tier="python"))
    finally:
        engine.close()


def test_auto_estimates_with_the_tier_property(tmp_path: Any, spark: Any, monkeypatch: Any) -> None:
    from ksqlpy.backfill import mode

    seen: list[str] = []
    real = mode.estimate

    def spy(*args: Any, **kw: Any) -> Any:
        got = real(*args, **kw)
        seen.append(args[5] if len(args) > 5 else kw.get("tier", "python"))
        return got

    monkeypatch.setattr(mode, "estimate", spy)
    engine = _engine(str(tmp_path), _records(50))
    try:
        engine.execute(TABLE, {"ksqlpy.backfill": "auto", "ksqlpy.backfill.tier": "native"})
        engine.execute(FILTER, {"ksqlpy.backfill": "auto"})
        assert seen == ["native", "python"]
    finally:
        engine.close()


JOIN_DDL = "CREATE TABLE t (k STRING PRIMARY KEY, name STRING) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=2);"
JOIN = "CREATE STREAM j AS SELECT s.k, v, name FROM s LEFT JOIN t ON s.k = t.k EMIT CHANGES;"


def _table_rows(names: str) -> list[Record]:
    # one row per key k0..k4, in partition i % 2 (the stream has every key in both partitions: some records meet
    # no row in theirs and keep a NULL name)
    return [(i % 2, f"k{i}".encode(), json.dumps({"NAME": f"{names}{i}"}).encode(), 900 + i) for i in range(5)]


def test_a_join_statement_backfills_on_the_replay_lowering_and_continues(tmp_path: Any, spark: Any) -> None:
    records = _records(400)
    ref = _engine(str(tmp_path / "ref"), records)
    ref.execute(JOIN_DDL)
    produce(ref, "t", _table_rows("a"))
    ref.execute(JOIN, {"auto.offset.reset": "earliest"})
    ref.drain()
    more = _records(20, first=400)
    produce(ref, "t", _table_rows("b"))
    ref.drain()
    produce(ref, "s", more)
    ref.drain()
    engine = _engine(str(tmp_path / "bf"), records)
    engine.execute(JOIN_DDL)
    produce(engine, "t", _table_rows("a"))
    engine.start()
    try:
        qid = engine.execute(JOIN, SPARK)[0].query_id
        run = _wait(engine, qid)
        assert run.error is None, run.status()
        assert run.result.records_read == 405  # both sources: 400 stream records, 5 table rows
        assert run.result.details["tasks"] == 2  # co-partitioned: a Spark task per partition
        produce(engine, "t", _table_rows("b"))  # after the hand-off: the table store carries on
        time.sleep(0.5)
        produce(engine, "s", more)
        want = sink_records(ref, "J")
        got = _caught_up(engine, "J", len(want))
        assert sorted(got, key=repr) == sorted(want, key=repr)
        names = [json.loads(r[2])["NAME"] for r in got]
        assert any(n and n.startswith("a") for n in names) and any(n and n.startswith("b") for n in names)
    finally:
        engine.close()


def test_auto_replays_a_join_on_streaming(tmp_path: Any) -> None:
    """The replay lowering's cost is not measured: ``auto`` leaves joins to streaming replay."""
    engine = _engine(str(tmp_path), _records(100))
    engine.execute(JOIN_DDL)
    try:
        qid = engine.execute(JOIN, {"ksqlpy.backfill": "auto"})[0].query_id
        assert qid not in engine.backfills.runs
        engine.drain()
        assert len(sink_records(engine, "J")) == 100
    finally:
        engine.close()
