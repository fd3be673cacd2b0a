"""Which properties a request (``streamsProperties``, SET, /is_valid_property) may override.

ksqlDB accepts ``ksql.*`` names, ``ksql.streams.<name>`` and bare Kafka Streams / consumer / producer
config names; anything else is "Not recognizable", and names on the server's denylist are refused.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.server.errors import bad_request

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
PREFIXES = ("ksql.", "producer.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "admin.",
            "metrics.", "ssl.", "sasl.")


def denylist(config_value: Any) -> set[str]:
    return {p.strip() for p in str(config_value or "").split(",") if p.strip()}


def check_property(name: str, denied: set[str]) -> None:
    """Raise 400/40000 unless ``name`` may be overridden per request."""
    bare = name[len("ksql.streams."):] if name.startswith("ksql.streams.") else name
    if name in denied or bare in denied:
        raise bad_request("One or more properties overrides set locally are prohibited by the KSQL server "
                          f"denylist (use UNSET to reset their default value): [{name}]")
    if bare in STREAMS_CONFIGS or name.startswith(PREFIXES) or bare.startswith(PREFIXES):
        return
    raise bad_request(f"Not recognizable as ksql, streams, consumer, or producer property: '{name}'")


def check_overrides(props: dict[str, Any], denied: set[str]) -> dict[str, Any]:
    """Validated per-request overrides, values as strings (ksqlDB tolerates other JSON scalars)."""
    out: dict[str, Any] = {}
    for name, value in props.items():
        check_property(name, denied)
        if isinstance(value, dict | list):
            raise bad_request(f"Invalid value for property {name}: expected a string")
        out[name] = value if isinstance(value, str) else ("true" if value is True else "false" if value is False
                                                           else str(value) if value is not None else None)
    return {k: v for k, v in out.items() if v is not None}
