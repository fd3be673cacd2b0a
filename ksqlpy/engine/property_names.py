"""Which property names ksqlDB recognizes, and the values it accepts for the ones it checks up front.

A name is recognized when it is a ``ksql.*`` (or ksqlpy's own ``ksqlpy.*``) name, or - bare or after
``ksql.streams.`` - a Kafka Streams, consumer, producer or admin setting (also under a client prefix such as
``consumer.`` or ``producer.``). The messages are those of the rule that fires: a request override that is
not recognizable, a SET of an unknown property, a denylisted override (values: ``property_values.py``).
"""

from __future__ import annotations

from typing import Any

from ksqlpy.engine.config import bare, canonical

STREAMS_CONFIGS = frozenset({
    "acceptable.recovery.lag", "application.server", "buffered.records.per.partition", "built.in.metrics.version",
    "cache.max.bytes.buffering", "commit.interval.ms", "default.deserialization.exception.handler",
    "default.production.exception.handler", "default.timestamp.extractor", "max.task.idle.ms",
    "max.warmup.replicas", "num.standby.replicas", "num.stream.threads", "poll.ms", "probing.rebalance.interval.ms",
    "processing.guarantee", "replication.factor", "rocksdb.config.setter", "state.cleanup.delay.ms", "state.dir",
    "statestore.cache.max.bytes", "task.timeout.ms", "topology.optimization", "upgrade.from", "window.size.ms",
    "windowstore.changelog.additional.retention.ms",
    # consumer
    "auto.offset.reset", "auto.commit.interval.ms", "check.crcs", "client.rack", "enable.auto.commit",
    "exclude.internal.topics", "fetch.max.bytes", "fetch.max.wait.ms", "fetch.min.bytes", "group.id",
    "group.instance.id", "heartbeat.interval.ms", "isolation.level", "max.partition.fetch.bytes",
    "max.poll.interval.ms", "max.poll.records", "partition.assignment.strategy", "session.timeout.ms",
    # producer
    "acks", "batch.size", "buffer.memory", "compression.type", "delivery.timeout.ms", "enable.idempotence",
    "linger.ms", "max.block.ms", "max.in.flight.requests.per.connection", "max.request.size", "retries",
    "transaction.timeout.ms", "transactional.id",
    # common clients
    "bootstrap.servers", "client.id", "connections.max.idle.ms", "metadata.max.age.ms", "receive.buffer.bytes",
    "reconnect.backoff.max.ms", "reconnect.backoff.ms", "request.timeout.ms", "retry.backoff.ms",
    "security.protocol", "send.buffer.bytes", "sasl.mechanism", "sasl.jaas.config",
})
CLIENT_PREFIXES = ("producer.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "admin.",
                   "topic.", "metrics.", "ssl.", "sasl.")
OWN_PREFIXES = ("ksql.", "ksqlpy.")

# settable per query (SHOW PROPERTIES ``level`` QUERY); everything else is SERVER level
QUERY_LEVEL = frozenset({
    "ksql.streams.auto.offset.reset", "ksql.streams.buffered.records.per.partition",
    "ksql.streams.cache.max.bytes.buffering", "ksql.streams.statestore.cache.max.bytes",
    "ksql.streams.commit.interval.ms", "ksql.streams.max.task.idle.ms", "ksql.streams.num.standby.replicas",
    "ksql.streams.processing.guarantee", "ksql.streams.task.timeout.ms", "ksql.streams.max.poll.records",
    "ksql.fail.on.deserialization.error", "ksql.query.pull.max.allowed.offset.lag",
    "ksql.query.pull.table.scan.enabled", "ksql.query.pull.range.scan.enabled",
    "ksql.query.pull.interpreter.enabled", "ksql.query.push.v2.enabled",
})
_SECRET_WORDS = ("password", "secret", "sasl.jaas.config")


def shown_value(name: str, value: Any) -> str:
    """A property's value as SHOW PROPERTIES prints it (secrets obfuscated)."""
    return "[hidden]" if any(w in name.lower() for w in _SECRET_WORDS) else str(value)


def recognized(name: str) -> bool:
    """Is ``name`` a ksql, streams, consumer or producer property (either spelling)?"""
    name = name.strip()
    if not name:
        return False
    short = bare(name)
    if name.startswith(OWN_PREFIXES) and not name.startswith("ksql.streams."):
        return True
    return short in STREAMS_CONFIGS or short.startswith(CLIENT_PREFIXES)


def not_recognizable(name: str) -> str:
    """A request override's message for an unknown name (``KsqlRequest.getConfigOverrides``)."""
    return f"Not recognizable as ksql, streams, consumer, or producer property: '{name}'"


def unknown_property(name: str) -> str:
    """SET's message for an unknown name (``PropertyOverrider``)."""
    return f"Unknown property: {name}"


def denied(names: list[str]) -> str:
    return ("One or more properties overrides set locally are prohibited by the KSQL server denylist (use UNSET "
            f"to reset their default value): [{', '.join(names)}]")


def is_denied(name: str, denylist: set[str]) -> bool:
    """Denylisted under either spelling of the name."""
    key = canonical(name)
    return any(canonical(d) == key for d in denylist)
