"""What the runtime needs from whoever runs it: the ``RuntimeContext`` protocol.

The runtime (tasks, operators, state, worker processes) never reaches into the engine. Everything it takes
from its host comes through this protocol: the log, the processing log, properties, serdes for a source's
key and value, the data directory its state lives under, and which partitions it owns. The engine
implements it for queries run in its process; a worker process implements it on its own (its log, a
processing log forwarding to the engine, the query's properties, serdes over its own schema-registry
client, its state directory, the partitions it was given); the Spark backfill implements it on Spark's
Python workers. (Kafka Streams' ``ProcessorContext`` / ``StreamsConfig`` split, one level up.)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ksqlpy.catalog import Source
from ksqlpy.log.base import Log
from ksqlpy.private_files import private_dir
from ksqlpy.runtime.processing_log import ProcessingLog


@dataclass(frozen=True)
class Hosting:
    """How a host shares its persistent queries with other servers on one log (a cluster's server sets it;
    a lone engine, a worker process and the backfill keep the defaults)."""

    # run the queries as consumer-group member threads (``member_thread.py``), never two servers
    # processing one partition, rather than as this process's own tasks
    members_in_threads: bool = False
    # copies of the stores are kept caught up in the background (standby replicas): pull queries read
    # them as they are, without refreshing from worker processes first
    standby_refresh: bool = False
    # the host's warm copy of a store (changelog, partition) -> ``KeyValueStore`` | None, which a member
    # thread's store starts its restore phase from
    store_copies: Callable[[str, int], Any] | None = None


ALONE = Hosting()


@runtime_checkable
class RuntimeContext(Protocol):
    """The host of running queries (see the module docstring)."""

    log: Log
    plog: ProcessingLog
    data_dir: str  # persistent state lives under ``<data_dir>/state/<query id>``
    hosting: Hosting  # ``ALONE`` unless a cluster's server shares the queries with others

    def prop(self, name: str, default: Any = None) -> Any:
        """A property's effective value (``name`` or ``ksql.streams.<name>``), else ``default``."""
        ...

    def effective_properties(self) -> dict[str, Any]:
        """Every property in effect (defaults, configuration, session overrides)."""
        ...

    def explicit_properties(self) -> dict[str, Any]:
        """The properties a user set (not left at a built-in default)."""
        ...

    def key_serde(self, source: Source) -> Any:
        """The serde of ``source``'s record keys (format, columns, window, schema registry)."""
        ...

    def value_serde(self, source: Source) -> Any:
        """The serde of ``source``'s record values."""
        ...

    def owns(self, partition: int) -> bool:
        """Whether tasks (and stores) of ``partition`` are built here: a worker process builds only the
        partitions it runs, so it opens and restores only their stores."""
        ...


@runtime_checkable
class WarmCopies(Protocol):
    """A host that keeps warm copies of stores (a cluster's standby replicas, kept caught up with their
    changelogs): a task's store starts its restore phase from the copy and replays only the tail."""

    def warm_copy(self, changelog: str, partition: int) -> Any:
        """This host's copy of the store on ``changelog``'s ``partition`` (a ``KeyValueStore``), or None."""
        ...


def warm_copy(ctx: Any, changelog: str | None, partition: int) -> Any:
    """The warm copy ``ctx`` offers for a store (None when it keeps none)."""
    if changelog is None or not isinstance(ctx, WarmCopies):
        return None
    return ctx.warm_copy(changelog, partition)


def topic_partitions(ctx: RuntimeContext, topic: str, default: int = 1) -> int:
    """The partition count of ``topic`` (``default`` if it does not exist)."""
    n = ctx.log.partition_count(topic)
    return default if n is None else n


def strict_timestamps(ctx: RuntimeContext) -> bool:
    """``ksql.timestamp.throw.on.invalid``: a record whose timestamp cannot be extracted stops the query."""
    return str(ctx.prop("ksql.timestamp.throw.on.invalid", "false")).lower() == "true"


def fail_on_deserialization(ctx: RuntimeContext) -> bool:
    """``ksql.fail.on.deserialization.error``: a record that cannot be deserialized stops the query (Kafka
    Streams' ``LogAndFailExceptionHandler``) after its processing-log entry, instead of being skipped."""
    return str(ctx.prop("ksql.fail.on.deserialization.error", "false")).strip().lower() == "true"


# The records a task takes per poll when ``max.poll.records`` is not set: a batch amortizes the fetch, the
# log transaction and the stores' commit; a runner that shares its interpreter with a request path (the
# server) takes Kafka Streams' consumer default instead (``poll_records``).
BATCH_RECORDS = 10_000
KAFKA_STREAMS_MAX_POLL_RECORDS = 1000  # StreamsConfig's CONSUMER_DEFAULT_OVERRIDES


def poll_records(ctx: RuntimeContext) -> int:
    """How many records a task takes from an input per poll: ``max.poll.records`` (``ksql.streams.`` or
    plain spelling; validated as an INT >= 1 where it is set), else the context's ``poll_records_default``
    (the server sets Kafka Streams' 1000: every stretch the runner holds the interpreter without a switch -
    a batch's decode, its columns, its encode, freeing it - is proportional to the batch, and a pull query
    waits for the end of one), else ``BATCH_RECORDS``."""
    v = ctx.prop("max.poll.records", None)
    if v is not None:
        try:
            n = int(v)
        except (TypeError, ValueError):
            n = 0
        if n >= 1:
            return n
    return int(getattr(ctx, "poll_records_default", None) or BATCH_RECORDS)


def state_root(ctx: RuntimeContext, query_id: str, *, persistent: bool) -> str:
    """Where a query's stores live: ``<data_dir>/state/<query id>`` for a persistent query, a fresh private
    directory under ``<data_dir>/state/transient`` for a transient one (thrown away with it)."""
    if persistent:
        return os.path.join(ctx.data_dir, "state", query_id)
    root = private_dir(os.path.join(ctx.data_dir, "state", "transient"))
    return tempfile.mkdtemp(prefix=f"{query_id}-", dir=root)
