"""Whether a new persistent query computes its history on Spark: the ``ksqlpy.backfill`` property.

``off`` (default): the query starts as usual (``auto.offset.reset`` decides). ``spark``: the CREATE ...
AS SELECT is backfilled - the query starts held at the inputs' end offsets, Spark computes the history,
then the query continues (``service``); a statement the backfill cannot run exactly is refused. ``auto``:
the backfill when it can run the statement and its estimate beats streaming replay, else the query
replays its history itself (as with ``auto.offset.reset=earliest``).

The estimate is CPU as measured side by side (docs/backfill.md, "Measuring it"): streaming replay spends
``STREAMING_US`` per record on one core; the tier the backfill would run on (``ksqlpy.backfill.tier``) spends
``TIER_COSTS``: a multiple of streaming's CPU per record spread over the tasks Spark runs at once, plus a
fixed CPU per run, plus its start (``SESSION_START_S`` when no session is up yet, ``RUN_START_S`` per run).
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ksqlpy.plan.logical import Sink

BACKFILL_PROPERTY = "ksqlpy.backfill"


class BackfillMode(Enum):
    OFF = "off"
    SPARK = "spark"
    AUTO = "auto"


def mode_of(engine: Any) -> BackfillMode:
    """The mode the statement runs with (request > SET > server config; checked when set)."""
    value = str(engine.prop(BACKFILL_PROPERTY, BackfillMode.OFF.value) or BackfillMode.OFF.value).strip().lower()
    return BackfillMode(value) if value in {m.value for m in BackfillMode} else BackfillMode.OFF


# measured µs of CPU per record of streaming replay in one process (``python -m bench backfill``, the mean of a
# 300k and a 2M run under a load average of 10-13; docs/backfill.md "Measuring it")
STREAMING_US = {"stateless": 2.2, "aggregate": 3.6}


@dataclass(frozen=True)
class TierCost:
    """A tier's CPU against streaming replay's on the same records, fitted to the side-by-side runs of one
    workload at two sizes N (300k and 2M records): ``backfill / streaming = ratio + run_cpu_s / (N x
    streaming's CPU per record)`` - the per-record part, and what a run costs whatever its size (the JVM's
    scheduling and planning, the Python workers' job set-up)."""

    ratio: float
    run_cpu_s: float


# (tier, kind) -> cost; docs/backfill.md "Acceptance status" has the runs they are fitted to
TIER_COSTS = {
    # filter/projection: 1.50x at 300k, 1.20x at 2M (2026-11-27, load 1.3-2.2)
    ("python", "stateless"): TierCost(1.15, 0.3),
    # tumbling COUNT/SUM: 1.13x at 300k, 1.02x at 2M (2026-11-27, load 11 / 8, side by side with the native tier)
    ("python", "aggregate"): TierCost(1.0, 0.15),
    # tumbling COUNT/SUM: 1.06x at 300k, 0.78x at 2M (the same runs): the log decoded straight into Arrow
    ("native", "aggregate"): TierCost(0.71, 0.56),
}
SESSION_START_S = 60.0  # JVM, session and first Python workers, when no session runs yet (wall, loaded machine)
RUN_START_S = 1.0  # a run on a session that is up: job set-up, the commit's fixed part


@dataclass(frozen=True)
class Estimate:
    records: int
    cores: int
    streaming_s: float
    spark_s: float

    @property
    def spark_faster(self) -> bool:
        return self.spark_s < self.streaming_s


def spark_cores(master: str | None, session: Any = None) -> int:
    """How many tasks Spark runs at once: the live session's default parallelism, else from the master URL."""
    if session is not None:
        try:
            return max(1, int(session.sparkContext.defaultParallelism))
        except Exception:  # noqa: BLE001 - a stopped session: estimate from the URL
            pass
    m = re.fullmatch(r"local\[(\d+|\*)(?:,\d+)?\]", (master or "local[*]").strip())
    if m is not None:
        return os.cpu_count() or 1 if m.group(1) == "*" else max(1, int(m.group(1)))
    if (master or "").strip() == "local":
        return 1
    return os.cpu_count() or 1  # a cluster: at least this machine's worth (a lower bound is safe for auto)


def estimate(plan: Sink, records: int, cores: int, session_up: bool, partitions: int | None = None,
             tier: str = "python") -> Estimate:
    """Streaming replay's CPU on one core against the tier's spread over the tasks Spark can run at once:
    every core for a stateless query (sub-ranges), at most one per source partition for an aggregation
    (partial aggregates per chunk could use more, but cost a merge: not counted on). A tier that does not
    run the query's kind (the native tier lowers aggregations only) is costed as the Python tier."""
    from ksqlpy.plan.logical import Aggregate

    kind = "aggregate" if plan.find(Aggregate) is not None else "stateless"
    cost = TIER_COSTS.get((tier, kind)) or TIER_COSTS[("python", kind)]
    parallel = cores if kind == "stateless" or partitions is None else max(1, min(cores, partitions))
    streaming = records * STREAMING_US[kind] / 1e6
    spark = ((0.0 if session_up else SESSION_START_S) + RUN_START_S + cost.run_cpu_s
             + streaming * cost.ratio / parallel)
    return Estimate(records, parallel, round(streaming, 3), round(spark, 3))


class Choice(Enum):
    NONE = "none"  # no backfill asked for: the statement runs as usual
    SPARK = "spark"  # the history is computed on Spark (the query starts held at the end offsets)
    STREAMING = "streaming"  # ``auto`` chose streaming replay: the query reads its history itself


def admissible(engine: Any, plan: Sink, *, upgrade: bool) -> bool:
    """Can the statement be backfilled? Checked before anything is created: under ``spark`` what the
    backfill cannot run exactly is refused (``BackfillUnsupported``); under ``auto`` it replays on
    streaming instead (False)."""
    from ksqlpy.backfill import support

    mode = mode_of(engine)
    if mode is BackfillMode.OFF:
        return False
    try:
        if upgrade:
            raise support.refuse("CREATE OR REPLACE of an existing query (it keeps its own state)")
        if importlib.util.find_spec("pyspark") is None:
            raise support.BackfillUnsupported("The Spark backfill needs PySpark: pip install 'ksqlpy[spark]' "
                                              "(and Java 17+); or run the statement without ksqlpy.backfill.")
        hosting = getattr(engine, "hosting", None)
        if hosting is not None and getattr(hosting, "members_in_threads", False):
            # every server of the cluster runs the statement and owns some of the query's partitions
            raise support.refuse("a server on a log other servers share (a cluster on Kafka); run the backfill "
                                 "with 'python -m ksqlpy backfill' or on a single server")
        support.check(engine, plan)
        if plan.target is not None:
            support.check_sink(plan.target)
    except support.BackfillUnsupported:
        if mode is BackfillMode.SPARK:
            raise
        return False
    return True


def choose(engine: Any, plan: Sink, query_id: str, sql: str, *, upgrade: bool) -> Choice:
    """What a CREATE ... AS SELECT under ``ksqlpy.backfill`` does (after ``admissible``, once its query id
    is known). In a sandbox (validation) nothing more is decided. A statement replayed from the command
    log whose backfill finished in an earlier process runs as usual: its query continues from its
    committed positions; one whose backfill was cut short backfills again (resuming)."""
    from ksqlpy.runtime.context import topic_partitions

    mode = mode_of(engine)
    if mode is BackfillMode.OFF:
        return Choice.NONE
    if not admissible(engine, plan, upgrade=upgrade):
        return Choice.STREAMING
    if getattr(engine, "sandbox", False):
        return Choice.NONE
    service = engine.backfills
    if service.finished_before(query_id, sql):
        return Choice.NONE
    if mode is BackfillMode.SPARK:
        return Choice.SPARK
    from ksqlpy.backfill import support

    if support.replayed(engine, plan):  # (the replay lowering's cost is not measured yet: streaming is the safe bet)
        return Choice.STREAMING
    topic = plan.input_source.topic
    log = engine.log
    partitions = topic_partitions(engine, topic)
    records = sum(max(0, log.end_offset(topic, p) - log.start_offset(topic, p)) for p in range(partitions))
    cores = spark_cores(engine.prop("spark.master"), service.session)
    from ksqlpy.backfill.native import TIER_PROPERTY

    tier = str(engine.prop(TIER_PROPERTY) or "python").strip().lower()
    guess = estimate(plan, records, cores, service.session_up(), partitions, tier)
    return Choice.SPARK if guess.spark_faster else Choice.STREAMING
