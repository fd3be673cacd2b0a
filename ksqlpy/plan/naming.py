"""Every name a query's topology gives its internal topics, stores and processors - in one place.

ksqlDB runs a query as a Kafka Streams application whose id is
``_confluent-ksql-<ksql.service.id><ksql.persistent.prefix | transient prefix><query id>``. Internal topics
are ``<application id>-<name>``: a repartition topic ``<name>-repartition``, a store's changelog
``<store>-changelog``. Names come from ksqlDB's step contexts (``Aggregate-GroupBy``,
``Aggregate-Aggregate-Materialize``, ``KafkaTopic_Right-Reduce``, ``Join-repartition``...; nested joins
prefix ``L_`` per level) or, where ksqlDB lets Kafka Streams generate them, from Kafka Streams' generator:
``<PREFIX>-<index:010d>`` with one index counter per topology (``KSTREAM-JOINTHIS-0000000016-store``).
"""

from __future__ import annotations

from typing import Any

# ksqlDB's step names
GROUP_BY = "Aggregate-GroupBy"
AGGREGATE_STORE = "Aggregate-Aggregate-Materialize"
SOURCE_TABLE_STORE = "KsqlTopic-Reduce"  # a table source materialized as read (GROUP BY retractions, CTAS)
CST_STORE = "Reduce"  # a SOURCE table's CST query created before plan rules revision 4
# a table-table join's result rows, for pull queries: ksqlDB's TableSelect step materializes a table that
# has no materialization of its own (a join's result) under its step name, the final projection's
# ``Project`` (from memory of ksqlDB's TableSelectBuilder: materializedFactory.create(..,
# StreamsUtil.buildOpName(queryContext)) when the table has no MaterializationInfo); ``Materialize`` for a
# query created before plan rules revision 5 (``plan.rules``)
PROJECT_STORE = "Project"
MATERIALIZE_STORE = "Materialize"
# a filtered table in a push query: ksqlDB materializes the source table (KsqlTopic-Reduce) so the filter
# sees each key's previous row; we keep each key's last row (private to the query, no changelog)
TABLE_WHERE_STORE = "KsqlTopic-Reduce-Filter"
REPARTITION_SUFFIX = "-repartition"
CHANGELOG_SUFFIX = "-changelog"


def application_id(properties: Any, query_id: str, *, persistent: bool) -> str:
    """Kafka Streams' application id of a query (``properties``: anything with ``prop(name, default)``)."""
    service = properties.prop("ksql.service.id", "default_")
    prefix = properties.prop("ksql.persistent.prefix", "query_") if persistent else "transient_"
    return f"_confluent-ksql-{service}{prefix}{query_id}"


def generated(prefix: str, index: int) -> str:
    """A name Kafka Streams generates: ``KSTREAM-SOURCE-0000000000``."""
    return f"{prefix}-{index:010d}"


class Names:
    """The names of one query's internal topics and stores (``app``: its application id)."""

    def __init__(self, app: str) -> None:
        self.app = app

    def topic(self, name: str) -> str:
        """An internal topic's name in the log."""
        return f"{self.app}-{name}"

    def repartition(self, step: str) -> str:
        """A repartition topic as described (without the application id): ``<step>-repartition``."""
        return f"{step}{REPARTITION_SUFFIX}"

    def changelog(self, store: str) -> str:
        return f"{self.app}-{store}{CHANGELOG_SUFFIX}"


def store_directory(name: str, sub_topology: int, partition: int, *, join: bool) -> str:
    """Where a store's files live under the query's state directory (the layout of earlier releases, so a
    restarted engine finds its checkpoints): join stores per task, the others by name and partition."""
    if join and name not in (MATERIALIZE_STORE, PROJECT_STORE):
        return f"{sub_topology}_{partition}/{name}"
    if name == AGGREGATE_STORE:
        return f"Aggregate-Materialize-{partition}"
    if name in (MATERIALIZE_STORE, CST_STORE):
        return f"Materialize-{partition}"
    return f"{name}-{partition}"


# ------------------------------------------------------------------------------------------------ joins
def join_repartition(context: str, flavor: str, side: str, *, table: bool) -> str:
    """The repartition step of a join side (``side``: left | right), as described."""
    if table:
        return f"{context}{'Left' if side == 'left' else 'Right'}SourceKeyed-SelectKey{REPARTITION_SUFFIX}"
    if flavor == "STREAM_STREAM":
        return f"{context}Join-{side}{REPARTITION_SUFFIX}"
    return f"{context}Join{REPARTITION_SUFFIX}"


def join_table_store(context: str, side: str, *, rekeyed: bool, nested: bool = False) -> str:
    """The store a table side of a join is materialized in."""
    if nested:
        return f"{context}Join-Left-Materialize"
    if rekeyed:
        return f"{context}{'Left' if side == 'left' else 'Right'}SourceKeyed-Materialize"
    return f"{context}KafkaTopic_{'Left' if side == 'left' else 'Right'}-Reduce"


def stream_stream_stores(index: int, kind: str, spurious_fix: bool) -> tuple[str, str, str | None]:
    """A stream-stream join's window stores (this, other) and, with a grace period on an outer join, the
    store its unmatched records wait in - Kafka Streams' generated names at ``index`` (ksqlDB names no join
    store, so the shared one is ``KSTREAM-OUTERSHARED-`` with this store's number, as KStreamImplJoin's
    buildOuterJoinWindowStoreName gives it). ksqlDB runs a RIGHT join as ``right.leftJoin(left)``: a left
    join whose *this* side is the right stream."""
    left_outer, right_outer = kind in ("LEFT", "RIGHT", "FULL"), kind == "FULL"
    this = f"{generated('KSTREAM-OUTERTHIS' if right_outer else 'KSTREAM-JOINTHIS', index)}-store"
    other = f"{generated('KSTREAM-OUTEROTHER' if left_outer else 'KSTREAM-JOINOTHER', index + 1)}-store"
    shared = None
    if spurious_fix and (left_outer or right_outer):
        shared = f"{generated('KSTREAM-OUTERSHARED', index)}-store"
    return this, other, shared


def fk_topics(index: int) -> tuple[str, str, str]:
    """A foreign-key join's subscription and response topics (as described) and subscription store."""
    return (f"{generated('KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION', index)}-topic",
            f"{generated('KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE', index + 15)}-topic",
            generated("KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE", index + 1))
