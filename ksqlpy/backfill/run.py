"""Running a backfill: create the streaming query, recompute its history on Spark, hand the state over.

    result = backfill(engine, "CREATE TABLE t AS SELECT ...", master="local[*]")

1. The statement is checked (``support``) and then executed on the engine like any CREATE ... AS SELECT,
   with ``auto.offset.reset=latest``: the sink exists, the query is registered (and in the command log of
   a durable engine), and its tasks pin their input positions at the partitions' current end offsets.
   The query is held (state ``BACKFILLING``: its tasks do not poll) until the hand-off is done.
2. Spark reads every source partition from its first retained offset up to the pinned position through
   tasks that read the log themselves and run the stages (``stages``): stateless queries in one pass;
   aggregations per partition, or - GROUP BY on a non-key over several partitions - grouped, shuffled
   to the task partition that owns each group, and aggregated there. Joins, TABLE sources and windowed
   GROUP BY on a non-key over several partitions run the streaming runtime's own tasks (``replay``).
3. The driver writes the results (``handoff``) and the query runs on from the pinned positions (a replayed
   query: from the end offsets its replay read to, its tasks initialized again from the handed-over state).

If anything fails, the created query and its sink are dropped again (DROP ... DELETE TOPIC), so the
statement can simply be run again.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import TYPE_CHECKING, Any

from ksqlpy.backfill import support
from ksqlpy.backfill.handoff import BackfillResult, HandOff
from ksqlpy.backfill.job import STAGE_SCHEMA, BackfillJob, SinkLayout
from ksqlpy.plan.logical import Aggregate

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.backfill")
BACKFILLING = "BACKFILLING"


def log_config(engine: Engine) -> dict[str, Any]:
    """How a Spark worker opens the engine's log (``ksqlpy.log.open_log``)."""
    from ksqlpy.log.embedded import EmbeddedLog

    if isinstance(engine.log, EmbeddedLog):
        return {"log.dir": engine.log.path}
    # KafkaLog: the engine's connection settings; a reader needs no transactional producer
    return {k: v for k, v in engine.properties.items()
            if isinstance(v, str | int | float | bool) and k not in ("processing.guarantee",
                                                                       "ksql.streams.processing.guarantee",
                                                                       "ksqlpy.transactional.id")}


def backfill(engine: Engine, sql: str, *, statements: Any = None, master: str | None = None,
             spark: Any = None) -> BackfillResult:
    """Run ``sql`` (one CREATE STREAM/TABLE AS SELECT) with its history computed on Spark.

    ``statements``: what executes the statement (a ``DurableStatements`` to record it in the command
    log; default the engine). ``spark``: a SparkSession to use; else one is started on ``master``
    (default: the ``spark.master`` property, else ``local[*]``).
    """
    from ksqlpy.analysis.query import analyze_query
    from ksqlpy.runtime.context import topic_partitions

    stmt = support.statement(engine, sql)
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=stmt.name, persistent=True,
                         sql=stmt.text)
    partitions = topic_partitions(engine, plan.input_source.topic)
    support.check(engine, plan)
    runner = statements if statements is not None else engine
    results = runner.execute(sql, {"auto.offset.reset": "latest"})
    query_id = next(r.query_id for r in results if r.query_id)
    query = engine.queries[query_id]
    try:
        support.check_sink(query.sink)
        result = _run(engine, query, partitions, master, spark)
        drop_markers(engine, query_id)
        return result
    except BaseException as e:
        if isinstance(e, support.BackfillUnsupported):
            _LOG.info("backfill of %s refused (%s): dropping the query and its sink", query_id, e)
        else:
            _LOG.exception("backfill of %s failed: dropping the query and its sink", query_id)
        try:
            runner.execute(f"DROP {query.sink.kind} IF EXISTS `{query.sink.name}` DELETE TOPIC;")
        except Exception:  # noqa: BLE001 - the original error matters more
            _LOG.exception("could not drop %s", query.sink.name)
        drop_markers(engine, query_id)
        raise


TASK_RECORDS_PROPERTY = "ksqlpy.backfill.task.records"
DEFAULT_TASK_RECORDS = 1_000_000
_MIN_TASK_RECORDS = 10_000


def split_ranges(ranges: dict[int, tuple[int, int]], parallelism: int, max_records: int,
                 min_records: int = _MIN_TASK_RECORDS) -> list[tuple[int, int, int]]:
    """Tasks ``(partition, start, end)`` for a stage that needs no order across records: each partition's
    range cut into sub-ranges so that there are at least ``parallelism`` tasks (none under ``min_records``
    records unless the partition is smaller) and none over ``max_records``, in (partition, start) order."""
    min_records = min(min_records, max_records)
    total = sum(e - s for s, e in ranges.values())
    target = max(parallelism, -(-total // max(1, max_records)))
    tasks: list[tuple[int, int, int]] = []
    for p, (s, e) in sorted(ranges.items()):
        n = e - s
        if n <= 0:
            tasks.append((p, s, e))
            continue
        pieces = -(-n * target // total) if total else 1
        pieces = max(1, min(pieces, n // max(1, min_records)), -(-n // max(1, max_records)))
        step = -(-n // pieces)
        tasks += [(p, a, min(e, a + step)) for a in range(s, e, step)]
    return tasks


def run_tasks(sc: Any, job: BackfillJob, stage: Any, config: dict[str, Any], topic: str,
              tasks: list[tuple[int, int, int]], stage_dir: str) -> list[tuple[int, bytes, int, int]]:
    """The fused tasks of a stage without a shuffle, as an RDD of offset ranges (one Spark partition per
    task): each runs ``datasource.run_task`` and returns its staged file's row. No query planning, no Arrow
    between the JVM and the workers: a run costs Spark a fraction of what a DataFrame's plan does."""
    from ksqlpy.backfill.datasource import run_task

    def one(ranges: Any) -> Any:
        for p, s, e in ranges:
            for b in run_task(job, stage, config, topic, p, s, e, stage_dir):
                d = b.to_pydict()
                yield from zip(d["part"], d["value"], d["src"], d["off"], strict=True)

    return list(sc.parallelize(tasks, max(1, len(tasks))).mapPartitions(one).collect())


def merge_chunks(sc: Any, job: BackfillJob, chunks: list[tuple[int, bytes, int, int]], ranges: dict[int, tuple[int, int]],
                 stage_dir: str) -> list[tuple[int, bytes, int, int]]:
    """Second job of an aggregation run as partial aggregates per chunk: one task per source partition merges
    its chunks' staged files in offset order (``partials``) and returns its own file's row, as a task over the
    whole partition would."""
    from ksqlpy.backfill.datasource import merge_task

    by_part: dict[int, list[tuple[int, str]]] = {}
    for _, path, src, off in chunks:
        by_part.setdefault(src, []).append((off, path.decode()))
    merges = [(p, ranges[p][0], [path for _, path in sorted(files)]) for p, files in sorted(by_part.items())]

    def one(items: Any) -> Any:
        for p, s, paths in items:
            for b in merge_task(job, p, s, paths, stage_dir):
                d = b.to_pydict()
                yield from zip(d["part"], d["value"], d["src"], d["off"], strict=True)

    return list(sc.parallelize(merges, max(1, len(merges))).mapPartitions(one).collect())


def chunk_aggregation(ranges: dict[int, tuple[int, int]], tasks: list[tuple[int, int, int]], parallelism: int,
                      max_records: int) -> bool:
    """Whether cutting an aggregation's partitions into chunks pays for the merge it costs: when Spark has
    more cores than the source has partitions, or a partition holds more than one task's records."""
    return len(tasks) > len(ranges) and (parallelism > len(ranges)
                                         or any(e - s > max_records for s, e in ranges.values()))


def choose_tier(engine: Engine, job: BackfillJob, result: BackfillResult) -> Any:
    """The tier a backfill runs on (``ksqlpy.backfill.tier``): ``python`` (default) the fused Python tier
    (None); ``native`` the native plan (``native.lower``), or a refusal with the planner's reason. Python is
    the default because it is the cheaper one as measured (docs/backfill.md, "The native tier")."""
    from ksqlpy.backfill.native import TIER_PROPERTY, NativePlan, Tier, lower

    value = str(engine.prop(TIER_PROPERTY) or Tier.PYTHON.value).strip().lower()
    try:
        tier = Tier(value)
    except ValueError:
        raise support.BackfillUnsupported(
            f"Invalid value for {TIER_PROPERTY}: '{value}'; expected one of "
            f"{', '.join(t.value for t in Tier)}.") from None
    result.details["tier"] = tier.value
    if tier is Tier.PYTHON:
        return None
    lowered = lower(job)
    if not isinstance(lowered, NativePlan):
        raise support.refuse(f"on the native tier {lowered.reason}")
    return lowered


def run_native(session: Any, job: BackfillJob, plan: Any, config: dict[str, Any], topic: str,
               tasks: list[tuple[int, int, int]], stage_dir: str) -> list[tuple[int, bytes, int, int]]:
    """The native tier (``native``): grouped items into Spark as Arrow columns, Spark's aggregates per
    (partition, key, window), each partition's results staged by a Python task; the staged files' rows.

    The items enter through ``mapInArrow`` over ``range(tasks)`` (one row per task in, its Arrow batches out),
    not through the DataSource: measured side by side (``bench.backfill_transfer``), the JVM then spends
    about half the CPU per item on the crossing and the aggregation after it."""
    from ksqlpy.backfill.datasource import Stage, run_task
    from ksqlpy.backfill.native import SESSION_SETTINGS, aggregate, finish

    for k, v in SESSION_SETTINGS.items():
        session.conf.set(k, v)
    starts = {p: s for p, s, _ in tasks}

    def items(ids: Any) -> Any:
        for b in ids:
            for i in b.column(0).to_pylist():
                p, s, e = tasks[i]
                yield from run_task(job, Stage.NATIVE, config, topic, p, s, e, stage_dir)

    df = session.range(0, len(tasks), 1, max(1, len(tasks))).mapInArrow(items, plan.ddl())
    df = aggregate(df, plan, len(tasks)).mapInArrow(lambda b: finish(job, plan, b, stage_dir, starts), STAGE_SCHEMA)
    return [(r["part"], r["value"], r["src"], r["off"]) for r in df.select("part", "value", "src", "off").collect()]


def sink_layout(engine: Engine, topic: str) -> SinkLayout | None:
    """On the embedded log, the sink topic's id and partitions: the tasks then stage their sink records as
    the log's chunks, which the driver appends as they are (``job.SinkLayout``). None on Kafka."""
    from ksqlpy.log.embedded import EmbeddedLog

    if not isinstance(engine.log, EmbeddedLog):
        return None
    layout = engine.log.topic_layout(topic)
    return None if layout is None else SinkLayout(topic, *layout)


class Cancelled(Exception):
    """The backfill was cancelled (its query terminated) while it ran."""


def pinned_ranges(engine: Engine, query: Any, partitions: int) -> dict[int, tuple[int, int]]:
    """Per source partition, ``[first retained offset, the position the query's task pinned)``."""
    topic = query.plan.input_source.topic
    group = query.topology.application_id
    log = engine.log
    ranges: dict[int, tuple[int, int]] = {}
    for p in range(partitions):
        end = log.committed(group, topic, p)
        if end is None:  # the task pins its position when it is built; a query without tasks here has none
            raise RuntimeError(f"backfill: query {query.query_id} has no position on {topic}/{p}")
        ranges[p] = (log.start_offset(topic, p), end)
    return ranges


def resume_group(query_id: str) -> str:
    """The group under which a run counts the batches it has committed per partition (``HandOff``)."""
    return f"_ksqlpy-backfill-{query_id}"


def marker_groups(log: Any, query_id: str) -> list[str]:
    """The consumer groups a run of ``query_id`` keeps its markers under: the driver's count of committed
    batches (``resume_group``) and, when the tasks wrote on Kafka, one per staged file (``writes.file_group``)."""
    own = resume_group(query_id)
    return [g for g in log.groups() if g == own or g.startswith(own + "-")]


def drop_markers(engine: Engine, query_id: str) -> None:
    """Delete the run's marker groups once it has ended (done, or rolled back): they only serve a resume,
    and a later statement given the same query id must not find them. A failure is logged, not raised."""
    try:
        engine.log.delete_groups(marker_groups(engine.log, query_id))
    except Exception:  # noqa: BLE001 - the backfill's outcome does not depend on it
        _LOG.warning("backfill of %s: could not delete its marker groups", query_id, exc_info=True)


def staging_root(engine: Engine) -> str:
    from ksqlpy.backfill import staging

    root = str(engine.prop(staging.STAGING_PROPERTY) or os.path.join(engine.data_dir, "backfill-staging"))
    os.makedirs(root, mode=0o700, exist_ok=True)
    return root


def _run(engine: Engine, query: Any, partitions: int, master: str | None, spark: Any) -> BackfillResult:
    from ksqlpy.backfill import staging
    from ksqlpy.backfill.progress import Progress
    from ksqlpy.backfill.session import spark_session

    ranges = pinned_ranges(engine, query, partitions)
    stage_dir = staging.new_run_dir(staging_root(engine), query.query_id)
    previous_state = query.state
    query.state = BACKFILLING
    try:
        session = spark if spark is not None else spark_session(master or engine.prop("spark.master"),
                                                                engine.effective_properties())
        return run_on(engine, query, partitions, session, Progress(query.query_id, ranges, stage_dir))
    finally:
        query.state = previous_state if previous_state != BACKFILLING else "RUNNING"
        staging.remove(stage_dir)


def run_on(engine: Engine, query: Any, partitions: int, session: Any, progress: Any,
           cancelled: Any = None, job_group: str | None = None) -> BackfillResult:
    """Compute ``query``'s history on ``session`` into ``progress.staging`` and commit it (the query is held
    by its caller). ``cancelled()`` is checked between steps (and Spark's jobs of ``job_group`` are
    cancelled by whoever sets it); raises ``Cancelled`` then."""
    from ksqlpy.backfill.datasource import NAME, Stage, encode_job, register, task_name
    from ksqlpy.backfill.partials import chunkable
    from ksqlpy.backfill.progress import Phase
    from ksqlpy.backfill.registry import KEY as REGISTRY
    from ksqlpy.backfill.registry import check_sink_schemas, needs_registry, snapshot
    from ksqlpy.backfill.stages import run_merge
    from ksqlpy.backfill.writes import Writes, WritesChoice, run_writes, units
    from ksqlpy.backfill.writes import choose as choose_writes

    def check() -> None:
        if cancelled is not None and cancelled():
            raise Cancelled(f"the backfill of {query.query_id} was cancelled")

    plan = query.plan
    topic = plan.input_source.topic
    log = engine.log
    ranges = progress.ranges
    stage_dir = progress.staging
    os.makedirs(os.path.join(stage_dir, "progress"), exist_ok=True)
    result = BackfillResult(query.query_id, ranges)
    t0 = time.monotonic()
    topology = query.topology
    repartition = support.moves_records(len(topology.sub_topologies), partitions)
    job = BackfillJob(topology=topology, sink=query.sink, query_id=query.query_id,
                      properties=dict(engine.effective_properties()), partitions=partitions,
                      repartition=repartition, sink_partitions=log.partition_count(query.sink.topic) or 1)
    native_plan = choose_tier(engine, job, result)  # (a refusal before Spark is touched)
    replayed = support.replayed(engine, plan)
    writes = choose_writes(engine)
    if replayed and writes.writes is Writes.TASKS:  # (the changelogs of several stores: committed by the driver)
        writes = WritesChoice(Writes.DRIVER, "a replayed query's output and changelogs are committed by the driver")
    result.details["writes"] = writes.writes.value
    job.sink_layout = sink_layout(engine, query.sink.topic) if writes.writes is Writes.DRIVER else None
    _LOG.info("backfill of %s: output written by the %s (%s)", query.query_id, writes.writes.value, writes.reason)
    sources = [engine.catalog.source(n) for n in topology.sources]
    if needs_registry(plan.input_source, query.sink, *[src for src in sources if src is not None]):  # AVRO, JSON_SR, PROTOBUF: the schemas go with the job
        job.extra[REGISTRY] = snapshot(engine.schema_registry)
        check_sink_schemas(engine, query.sink, job.extra[REGISTRY])
    aggregate = plan.find(Aggregate) is not None
    stage = Stage.STATELESS if not aggregate else Stage.GROUP if repartition else Stage.AGGREGATE
    parallelism = session.sparkContext.defaultParallelism
    max_records = int(engine.prop(TASK_RECORDS_PROPERTY) or DEFAULT_TASK_RECORDS)
    tasks = split_ranges(ranges, parallelism, max_records)
    replay_bounds = None
    if replayed:  # the runtime's own tasks over the history: one Spark task per partition or per query
        from ksqlpy.backfill.replay import bounds, task_groups

        stage = Stage.REPLAY
        replay_bounds = bounds(log, topology, topic)
        tasks = [(g[0], 0, 0) for g in task_groups(topology)]
    elif native_plan is not None:  # one task per partition: stream time runs over it in offset order
        stage = Stage.NATIVE
        tasks = [(p, s, e) for p, (s, e) in sorted(ranges.items())]
    elif stage is Stage.AGGREGATE:
        if chunk_aggregation(ranges, tasks, parallelism, max_records) and chunkable(job):
            stage = Stage.PARTIAL  # partial aggregates per chunk, merged per partition
        else:  # stream time runs over a whole partition in offset order: one task each
            tasks = [(p, s, e) for p, (s, e) in sorted(ranges.items())]
    if stage not in (Stage.GROUP, Stage.NATIVE):
        progress.resumed_tasks = sum(
            1 for p, s, _ in tasks if os.path.exists(os.path.join(stage_dir, f"{task_name(stage, p, s)}.arrow")))
    result.details["tasks"] = len(tasks)
    result.details["startup_seconds"] = round(time.monotonic() - progress.started, 3)
    check()
    progress.enter(Phase.COMPUTING)
    sc = session.sparkContext
    config = log_config(engine)
    if job_group is not None:  # (a thread-local tag: the canceller cancels the jobs carrying it)
        sc.addJobTag(job_group)
    try:
        if stage is Stage.GROUP:  # grouped items cross into Spark, which shuffles and sorts them
            register(session)  # (only this stage reads through the DataSource: 4 ms of pickling under the GIL)
            df = (session.read.format(NAME)
                  .option("job", encode_job(job))
                  .option("stage", stage.value)
                  .option("log", json.dumps(config))
                  .option("topic", topic)
                  .option("tasks", json.dumps(tasks))
                  .option("staging", stage_dir)
                  .load())
            df = (df.repartition(partitions, "part")
                  .sortWithinPartitions("part", "ts", "src", "off")
                  .mapInArrow(lambda batches: run_merge(job, batches, stage_dir), STAGE_SCHEMA))
            files = [(r["part"], r["value"], r["src"], r["off"])  # one row per staged file: paths, not data
                     for r in df.select("part", "value", "src", "off").collect()]
        elif stage is Stage.REPLAY:
            from ksqlpy.backfill.replay import run_replay

            assert replay_bounds is not None
            files = run_replay(sc, job, config, replay_bounds, stage_dir)
        elif stage is Stage.NATIVE:
            assert native_plan is not None
            files = run_native(session, job, native_plan, config, topic, tasks, stage_dir)
        else:
            files = run_tasks(sc, job, stage, config, topic, tasks, stage_dir)
            if stage is Stage.PARTIAL:
                check()
                files = merge_chunks(sc, job, files, ranges, stage_dir)
    except Exception as e:
        check()  # a cancelled job fails its collect: say so rather than Spark's error
        raise e
    finally:
        if job_group is not None:
            sc.removeJobTag(job_group)
    check()
    progress.enter(Phase.COMMITTING)
    handoff = HandOff(engine, query, result, progress, job.sink_layout)
    if replayed:
        from ksqlpy.backfill.replay import changelog_topics

        handoff.changelog_topics = changelog_topics(topology)
    if writes.writes is Writes.TASKS:  # the tasks write sink and changelog records, a transaction per file
        handoff.tasks_wrote = True
        if job_group is not None:
            sc.addJobTag(job_group)
        try:
            written = run_writes(sc, config, query.query_id, topic, query.sink.topic, handoff.changelogs(),
                                 units(files, stage is Stage.GROUP))
        except Exception as e:
            check()
            raise e
        finally:
            if job_group is not None:
                sc.removeJobTag(job_group)
        for _, sink_n, state_n, _ in written:
            result.sink_records += sink_n
            result.state_entries += state_n
            progress.committed_records += sink_n + state_n
        result.details["files_written_earlier"] = sum(1 for w in written if w[3])
    order = (lambda r: (r[0],)) if stage is Stage.GROUP else (lambda r: (r[2], r[3]))
    group = resume_group(query.query_id)
    for row in sorted(files, key=order):
        check()
        part = row[0] if stage is Stage.GROUP else row[2]
        # (the grouping stage's counts and processing-log entries come in a file of no task partition)
        handoff.commit_file(row[1].decode(), (group, topic, part) if part >= 0 else None)
    with engine.lock:  # the stores are the query's: nothing else may read them half-replayed
        handoff.finish()
        if replay_bounds is not None:
            from ksqlpy.backfill.replay import hand_over

            hand_over(engine, query, replay_bounds)
    result.details["seconds"] = round(time.monotonic() - t0, 3)
    return result
