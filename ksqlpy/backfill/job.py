"""What a backfill ships to Spark's Python workers, and the engine-shaped context they rebuild from it.

A ``BackfillJob`` is plain data (the streaming query's physical topology, the query id and the properties);
Spark pickles it with each task. On a worker, ``WorkerEngine`` - the runtime's ``RuntimeContext`` there -
and the topology's operator configs give exactly the objects the streaming runtime builds for the query -
the source reader, the generated pipeline, the aggregation spec, the sink writer - so a record is
decoded, evaluated, aggregated and serialized by the same code in both backends (invariant 1). The
schema-registry formats use a read-only snapshot of the driver's registry shipped in the job (``registry``).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.plan.topology import Topology
from ksqlpy.properties import DEFAULT_PROPERTIES, Properties, resolve
from ksqlpy.runtime.context import ALONE, Hosting
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.serdes import SerdeFactory

# kinds of the rows a backfill stage produces (column ``kind``): a sink record, a state-store entry, a
# processing-log entry, a summary of counts, a grouped item between the two stages of a repartitioned
# aggregation, a staged file (``staging``: what a task returns through Spark), a chunk's partial aggregate
# (``partials``), sink records already packed into the embedded log's chunks (``SinkLayout``), a changelog's
# final entry per key of a replayed query (``replay``: ``src`` the changelog's index)
SINK, STATE, PLOG, SUMMARY, ITEM, STAGED, PARTIAL, SINK_CHUNK, CHANGELOG = 0, 1, 2, 3, 4, 5, 6, 7, 8

# every stage's rows have this schema (``staging.OUT_SCHEMA`` in Arrow)
STAGE_SCHEMA = "kind byte, part int, key binary, value binary, ts long, headers binary, src int, off long"


@dataclass(frozen=True)
class SinkLayout:
    """The sink topic as the embedded log stores it (its id and partition count), when the driver commits the
    output there: a task then packs its plain sink records (key, value and timestamp, no headers) into the
    log's own chunks (``embedded_prepare``) and stages those (``SINK_CHUNK`` rows: ``part`` the partition,
    ``value`` the chunk), and the driver appends them as they are - no record is decoded or encoded again
    in the server's process, whose commit then costs per chunk (up to 4,096 records), not per record."""

    topic: str
    topic_id: int
    partitions: int


@dataclass
class BackfillJob:
    topology: Topology
    sink: Source
    query_id: str
    properties: dict[str, Any]  # the engine's effective properties (wrap.single.values, cache, ...)
    partitions: int  # source partitions = task partitions of the streaming query
    repartition: bool = False  # GROUP BY on a non-key over several partitions: two stages
    sink_partitions: int = 1  # the sink writer places windowed records by their base key over these
    extra: dict[str, Any] = field(default_factory=dict)
    sink_layout: SinkLayout | None = None  # set when the driver commits onto the embedded log


class WorkerEngine:
    """The ``RuntimeContext`` of a Spark worker: the job's properties, a collecting processing log and serdes
    (no log, no state directory: the stages keep private stores and yield what they produce)."""

    def __init__(self, job: BackfillJob, plog: ProcessingLog) -> None:
        self.properties = dict(job.properties)
        self.plog = plog
        self.log: Any = None
        self.data_dir = ""
        self.hosting: Hosting = ALONE
        from ksqlpy.backfill.registry import worker_registry

        self.serdes = SerdeFactory(self.prop, worker_registry(job.extra))

    def prop(self, name: str, default: Any = None) -> Any:
        return resolve(name, self.properties, default=default)

    def effective_properties(self) -> dict[str, Any]:
        return Properties(DEFAULT_PROPERTIES, self.properties)

    def explicit_properties(self) -> dict[str, Any]:
        return {}

    def key_serde(self, source: Source) -> Any:
        return self.serdes.key_serde(source)

    def value_serde(self, source: Source) -> Any:
        return self.serdes.value_serde(source)

    def owns(self, partition: int) -> bool:
        return True


class CollectingLog(ProcessingLog):
    """A processing log whose entries become rows for the driver, which writes them to the engine's."""

    def __init__(self, include_rows: bool) -> None:
        super().__init__(sink=None, include_rows=include_rows)
        self.pending: list[dict[str, Any]] = []
        self.sink = self.pending.append

    def drain(self) -> list[bytes]:
        out = [pickle.dumps(e, pickle.HIGHEST_PROTOCOL) for e in self.pending]
        self.pending.clear()
        return out


def new_plog(job: BackfillJob) -> CollectingLog:
    include = str(job.properties.get("ksql.logging.processing.rows.include", "false")).lower() == "true"
    return CollectingLog(include)
