"""Which sources of one query may read the same topic: Kafka Streams' rule, applied where ksqlDB meets it.

ksqlDB builds each source of a query with the Streams DSL: a stream with ``StreamsBuilder.stream`` and a
table with ``StreamsBuilder.table`` (``SourceBuilder``, from memory). When the topology is built, Kafka
Streams merges the stream sources subscribed to the same topic into one source node (KAFKA-6687, Kafka 2.8:
two streams over one topic join as any two streams do), but a table's source node is never merged, so a
topic read by a table and by any other source of the query fails ``InternalTopologyBuilder.addSource`` with
a ``TopologyException`` (its text from memory). This is the last thing building a query finds: after
analysis, logical and physical planning and code generation, before anything runs; the same for every
statement that builds a topology (CREATE ... AS SELECT, INSERT INTO, a push query, EXPLAIN of one).

The self-join of one source (``Can not join 'A' to 'A'``) is the analyser's rule, not this one.
"""

from __future__ import annotations

from ksqlpy.errors import KsqlStatementError
from ksqlpy.plan.logical import Sink


def check_source_topics(plan: Sink) -> None:
    """Refuse a query whose sources share a topic that one of them reads as a table."""
    readers: dict[str, list[str]] = {}
    for scan in plan.scans:
        readers.setdefault(scan.source.topic, []).append(scan.source.kind)
    for topic, kinds in readers.items():
        if len(kinds) > 1 and "TABLE" in kinds:
            raise KsqlStatementError(f"Invalid topology: Topic {topic} has already been registered by another "
                                     "source.")
