"""Who writes a backfill's output into the log: the tasks, each in a Kafka transaction of its own, or the driver.

On Kafka (``Writes.TASKS``) the driver only accepts the computed ranges and hands out the writing: after
the compute job has staged every range's output (``staging``), a second Spark job runs one task per source
partition (per task partition for a repartitioned aggregation), which produces each of its staged files'
sink records and changelog entries in one Kafka transaction per file, in offset order. Each file has a
stable transactional id (``ksqlpy-backfill-<query id>-<file>``): a retried task's producer initializes
with the same id, which aborts whatever its predecessor left open. The transaction commits, with the
records, an offset of the file's own consumer group (``_ksqlpy-backfill-<query id>-<file>``): a task
finding it committed skips the file, so a file is written exactly once even when a task (or the whole run,
resumed) runs again. The driver gets back counts; it then logs the files' processing-log entries (the
engine's processing log) and replays the query's stores from their changelogs. Its memory does not depend
on the output's size, and neither does its CPU.

That is exactly once only on a broker that hides aborted transactions from ``read_committed`` readers.
Some Kafka-protocol brokers (tansu) do not: a task attempt that failed mid-transaction would leave its
records visible to the sink's readers and to the query's state restore. So, as the engine's
exactly-once check does (``engine.guarantee``), the broker is probed, and:

* ``ksqlpy.backfill.writes=auto`` (default) writes from the tasks where the broker isolates aborted
  transactions, and from the driver (``Writes.DRIVER``: the staged files committed batch by batch, each
  batch in one log transaction with the count of committed batches) where it does not - said in the log;
* ``tasks`` is refused on such a broker, naming its behaviour, unless at-least-once results are accepted
  (``ksqlpy.processing.guarantee.accept.at.least.once=true``);
* ``driver`` always has the driver write.

The embedded log is one LMDB environment that one process writes: the driver commits there.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ksqlpy.backfill.support import BackfillUnsupported

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

_LOG = logging.getLogger("ksqlpy.backfill")
WRITES_PROPERTY = "ksqlpy.backfill.writes"
TRANSACTION_TIMEOUT_MS = 900_000


class Writes(Enum):
    AUTO = "auto"
    TASKS = "tasks"
    DRIVER = "driver"


@dataclass(frozen=True)
class WritesChoice:
    writes: Writes  # TASKS or DRIVER
    reason: str


def choose(engine: Engine) -> WritesChoice:
    """Who writes the output of a backfill on ``engine``'s log, and why; raises ``BackfillUnsupported`` for
    ``tasks`` where it cannot hold."""
    from ksqlpy.engine.guarantee import ACCEPT_AT_LEAST_ONCE, aborted_visible, accepts_at_least_once, isolates

    value = str(engine.prop(WRITES_PROPERTY) or Writes.AUTO.value).strip().lower()
    try:
        asked = Writes(value)
    except ValueError:
        raise BackfillUnsupported(f"Invalid value for {WRITES_PROPERTY}: '{value}'; expected one of "
                                  f"{', '.join(w.value for w in Writes)}.") from None
    log = engine.log
    if getattr(log, "isolates_aborted", None) is None:  # the embedded log
        if asked is Writes.TASKS:
            raise BackfillUnsupported(
                f"{WRITES_PROPERTY}=tasks needs a Kafka log: the embedded log is one LMDB environment that only "
                f"the engine's process writes, so the driver commits the tasks' staged output there (use "
                f"{WRITES_PROPERTY}=auto or driver).")
        return WritesChoice(Writes.DRIVER, "embedded log: the driver commits the tasks' staged files")
    if asked is Writes.DRIVER:
        return WritesChoice(Writes.DRIVER, f"{WRITES_PROPERTY}=driver")
    if isolates(log):
        return WritesChoice(Writes.TASKS, "the broker isolates aborted transactions: each staged file is written "
                            "by a task in a Kafka transaction of its own")
    behaviour = aborted_visible(log)
    if asked is Writes.TASKS:
        if accepts_at_least_once(engine.effective_properties()):
            return WritesChoice(Writes.TASKS, f"{WRITES_PROPERTY}=tasks, but {behaviour}; at-least-once accepted "
                                f"by {ACCEPT_AT_LEAST_ONCE}=true")
        raise BackfillUnsupported(
            f"{WRITES_PROPERTY}=tasks cannot hold: {behaviour}, so the records of a task attempt that failed "
            "mid-transaction would be read as well - by the sink's readers and by the query's state restore. Use a "
            f"broker that isolates aborted transactions, set {WRITES_PROPERTY}=auto (the driver then writes on "
            f"this broker), or accept at-least-once results with {ACCEPT_AT_LEAST_ONCE}=true.")
    return WritesChoice(Writes.DRIVER, f"{behaviour}: the driver commits the tasks' staged files, one transaction "
                        "per batch with the count of committed batches")


def file_group(query_id: str, path: str) -> str:
    """The consumer group whose committed offset says a staged file is in the log."""
    return f"_ksqlpy-backfill-{query_id}-{os.path.splitext(os.path.basename(path))[0]}"


def transactional_id(query_id: str, path: str) -> str:
    """The stable transactional id of a staged file's writer: every attempt at the file uses it."""
    return f"ksqlpy-backfill-{query_id}-{os.path.splitext(os.path.basename(path))[0]}"


def write_file(config: dict[str, Any], query_id: str, topic: str, part: int, sink_topic: str,
               changelogs: dict[int, str], path: str) -> tuple[int, int, bool]:
    """Write one staged file's SINK and STATE rows in one Kafka transaction (on an executor); (sink records,
    state entries, whether an earlier attempt had written it). ``topic``/``part``: the source partition the
    file's marker offset is kept for."""
    import pyarrow.compute as pc

    from ksqlpy.backfill.handoff import write_sink, write_state
    from ksqlpy.backfill.job import SINK, SINK_CHUNK, STATE
    from ksqlpy.backfill.staging import read
    from ksqlpy.log.kafka import KafkaLog

    group = file_group(query_id, path)
    # a file is one transaction however long it takes to produce (librdkafka's 60 s default would abort a
    # large one); the broker's transaction.max.timeout.ms (Kafka's default: 15 minutes) bounds it
    config = {"producer.transaction.timeout.ms": TRANSACTION_TIMEOUT_MS, **config}
    # initializing the id aborts a predecessor's open transaction (a failed or zombie attempt)
    log = KafkaLog(config, transactional_id=transactional_id(query_id, path))
    try:
        if log.committed(group, topic, part) is not None:  # written by an earlier attempt: count only
            sink = state = 0
            for batch in read(path):
                kinds = batch.column(0)
                sink += pc.sum(pc.equal(kinds, SINK)).as_py() or 0
                state += pc.sum(pc.equal(kinds, STATE)).as_py() or 0
            return sink, state, True
        sink = state = 0
        with log.streamed_transaction() as tx:
            for batch in read(path):
                if pc.any(pc.equal(batch.column(0), SINK_CHUNK)).as_py():  # (packed for the embedded log only)
                    raise RuntimeError(f"backfill: {path} holds chunks of the embedded log, not Kafka records")
                rows = batch.filter(pc.equal(batch.column(0), SINK))
                if rows.num_rows:
                    sink += write_sink(tx, sink_topic, rows)
                rows = batch.filter(pc.equal(batch.column(0), STATE))
                if rows.num_rows:
                    state += write_state(tx, changelogs, rows)
            tx.commit_offsets(group, {(topic, part): 1})
        return sink, state, False
    finally:
        log.close()


def run_writes(sc: Any, config: dict[str, Any], query_id: str, topic: str, sink_topic: str,
               changelogs: dict[int, str], units: list[tuple[int, list[str]]]) -> list[tuple[str, int, int, bool]]:
    """The write job: one Spark task per unit (a partition and its staged files in offset order), each file
    in a transaction of its own; per file (path, sink records, state entries, written earlier)."""

    def one(items: Any) -> Iterator[tuple[str, int, int, bool]]:
        for part, paths in items:
            for path in paths:
                yield (path, *write_file(config, query_id, topic, part, sink_topic, changelogs, path))

    return list(sc.parallelize(units, max(1, len(units))).mapPartitions(one).collect())


def units(files: list[tuple[int, bytes, int, int]], by_task_partition: bool) -> list[tuple[int, list[str]]]:
    """The staged files (rows ``(part, path, src, off)``) grouped per partition in offset order: a sink
    partition then receives each partition's records in the order streaming produces them. Files of no
    partition (counts and processing-log entries only) are the driver's."""
    by: dict[int, list[tuple[int, str]]] = {}
    for part, path, src, off in files:
        p = part if by_task_partition else src
        if p >= 0:
            by.setdefault(p, []).append((off, path.decode()))
    return [(p, [path for _, path in sorted(paths)]) for p, paths in sorted(by.items())]
