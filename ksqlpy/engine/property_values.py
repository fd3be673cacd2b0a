"""Values of the properties a session sets, checked when they are set - not when a query later trips on
them with a Python error that names neither the setting nor the value.

Types and messages are those of the configs ksqlDB resolves the names against (Kafka's ``ConfigDef``:
``Invalid value <v> for configuration <name>: <reason>``). Names are accepted bare or with the
``ksql.streams.`` prefix, as everywhere else; properties not listed here are not checked.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.errors import KsqlStatementError

_LONG = "LONG"
_INT = "INT"
_BOOLEAN = "BOOLEAN"

TYPES: dict[str, str | tuple[str, ...]] = {
    "auto.offset.reset": ("latest", "earliest", "none"),
    "processing.guarantee": ("at_least_once", "exactly_once", "exactly_once_beta", "exactly_once_v2"),
    "commit.interval.ms": _LONG,
    "cache.max.bytes.buffering": _LONG,
    "statestore.cache.max.bytes": _LONG,
    "num.stream.threads": _INT,
    "ksql.query.pull.max.allowed.offset.lag": _LONG,
    "ksql.query.retry.backoff.initial.ms": _LONG,
    "ksql.query.retry.backoff.max.ms": _LONG,
    "ksql.functions.collect_list.limit": _INT,
    "ksql.functions.collect_set.limit": _INT,
    "ksql.max.push.queries": _INT,
    "ksql.create.or.replace.enabled": _BOOLEAN,
    "ksql.variable.substitution.enable": _BOOLEAN,
    "ksql.query.pull.table.scan.enabled": _BOOLEAN,
    # the pull and push query switches and limits (KsqlConfig's types)
    "ksql.pull.queries.enable": _BOOLEAN,
    "ksql.query.pull.range.scan.enabled": _BOOLEAN,
    "ksql.query.pull.stream.enabled": _BOOLEAN,
    "ksql.query.pull.limit.clause.enabled": _BOOLEAN,
    "ksql.query.pull.interpreter.enabled": _BOOLEAN,
    "ksql.query.pull.enable.standby.reads": _BOOLEAN,
    "ksql.query.pull.consistency.token.enabled": _BOOLEAN,
    "ksql.query.pull.metrics.enabled": _BOOLEAN,
    "ksql.query.pull.max.qps": _INT,
    "ksql.query.pull.max.concurrent.requests": _INT,
    "ksql.query.pull.max.hourly.bandwidth.megabytes": _INT,
    "ksql.query.pull.thread.pool.size": _INT,
    "ksql.query.pull.router.thread.pool.size": _INT,
    "ksql.query.pull.forwarding.timeout.ms": _LONG,
    "ksql.query.push.v2.enabled": _BOOLEAN,
    "ksql.endpoint.migrate.query": _BOOLEAN,
    "ksql.logging.processing.rows.include": _BOOLEAN,
    "ksql.insert.into.values.enabled": _BOOLEAN,
    "ksql.lambdas.enabled": _BOOLEAN,
    "ksql.fail.on.deserialization.error": _BOOLEAN,
    "ksql.fail.on.production.error": _BOOLEAN,
    # more of KsqlConfig's typed definitions (from memory of KsqlConfig.buildConfigDef)
    "ksql.sink.window.change.log.additional.retention": _LONG,
    "ksql.persistence.wrap.single.values": _BOOLEAN,
    "ksql.timestamp.throw.on.invalid": _BOOLEAN,
    "ksql.suppress.enabled": _BOOLEAN,
    "ksql.rowpartition.rowoffset.enabled": _BOOLEAN,
    "ksql.headers.columns.enabled": _BOOLEAN,
    "ksql.query.persistent.active.limit": _INT,
    "ksql.nested.error.set.null": _BOOLEAN,
    "ksql.cast.strings.preserve.nulls": _BOOLEAN,
    "ksql.query.error.max.queue.size": _INT,
    "ksql.source.table.materialization.enabled": _BOOLEAN,
    "ksql.shared.runtime.enabled": _BOOLEAN,
    "ksql.any.key.name.enabled": _BOOLEAN,
    "ksql.multicol.key.format.enabled": _BOOLEAN,
    "ksql.udfs.enabled": _BOOLEAN,
    # Kafka Streams' definitions (StreamsConfig), bare or after ksql.streams.
    "acceptable.recovery.lag": _LONG,
    "buffered.records.per.partition": _INT,
    "max.task.idle.ms": _LONG,
    "max.warmup.replicas": _INT,
    "num.standby.replicas": _INT,
    "poll.ms": _LONG,
    "replication.factor": _INT,
    "state.cleanup.delay.ms": _LONG,
    "task.timeout.ms": _LONG,
    "window.size.ms": _LONG,
    "windowstore.changelog.additional.retention.ms": _LONG,
    "repartition.purge.interval.ms": _LONG,
    # the consumer's (ConsumerConfig)
    "auto.commit.interval.ms": _INT,
    "check.crcs": _BOOLEAN,
    "enable.auto.commit": _BOOLEAN,
    "exclude.internal.topics": _BOOLEAN,
    "allow.auto.create.topics": _BOOLEAN,
    "fetch.max.bytes": _INT,
    "fetch.max.wait.ms": _INT,
    "fetch.min.bytes": _INT,
    "heartbeat.interval.ms": _INT,
    "max.partition.fetch.bytes": _INT,
    "max.poll.interval.ms": _INT,
    "max.poll.records": _INT,
    "session.timeout.ms": _INT,
    "default.api.timeout.ms": _INT,
    # the producer's (ProducerConfig)
    "acks": ("all", "-1", "0", "1"),
    "compression.type": ("none", "gzip", "snappy", "lz4", "zstd"),  # Utils.enumOptions(CompressionType)
    "batch.size": _INT,
    "buffer.memory": _LONG,
    "delivery.timeout.ms": _INT,
    "enable.idempotence": _BOOLEAN,
    "linger.ms": _LONG,
    "max.block.ms": _LONG,
    "max.in.flight.requests.per.connection": _INT,
    "max.request.size": _INT,
    "retries": _INT,
    "transaction.timeout.ms": _INT,
    # every client's (CommonClientConfigs)
    "connections.max.idle.ms": _LONG,
    "metadata.max.age.ms": _LONG,
    "receive.buffer.bytes": _INT,
    "send.buffer.bytes": _INT,
    "reconnect.backoff.ms": _LONG,
    "reconnect.backoff.max.ms": _LONG,
    "request.timeout.ms": _INT,
    "retry.backoff.ms": _LONG,
    "ksqlpy.backfill": ("off", "spark", "auto"),  # a new persistent query's history on Spark (docs/backfill.md)
    "ksqlpy.backfill.tier": ("python", "native"),  # the fused Python tier or the native one (docs/backfill.md)
    "ksqlpy.backfill.writes": ("auto", "tasks", "driver"),  # who writes a backfill's output (docs/backfill.md)
    "ksqlpy.workers.nice": _INT,  # worker processes' nice increment (runtime/coordinator.worker_nice)
}

_LIMITS = {_LONG: 2**63, _INT: 2**31}

# Kafka's ``ValidString.in`` compares as written: a value in another case is refused (``acks='ALL'``). The
# lists checked without regard to case are those whose definitions say so (``auto.offset.reset``:
# CaseInsensitiveValidString) or that ksqlpy's readers take in any case (``processing.guarantee``, its own).
EXACT_CASE = frozenset({"acks", "compression.type"})

# The ``Range.atLeast`` validators of those definitions (Kafka's ConfigDef runs a definition's validator on the
# parsed value: ``Value must be at least <min>``).
MINIMUM: dict[str, int] = {
    "commit.interval.ms": 0, "cache.max.bytes.buffering": 0, "statestore.cache.max.bytes": 0,
    "acceptable.recovery.lag": 0, "max.warmup.replicas": 1, "task.timeout.ms": 0,
    "auto.commit.interval.ms": 0, "fetch.max.bytes": 0, "fetch.max.wait.ms": 0, "fetch.min.bytes": 0,
    "max.partition.fetch.bytes": 0, "max.poll.interval.ms": 1, "max.poll.records": 1, "default.api.timeout.ms": 0,
    "batch.size": 0, "buffer.memory": 0, "delivery.timeout.ms": 0, "linger.ms": 0, "max.block.ms": 0,
    "max.in.flight.requests.per.connection": 1, "max.request.size": 0, "retries": 0,
    "metadata.max.age.ms": 0, "receive.buffer.bytes": -1, "send.buffer.bytes": -1, "reconnect.backoff.ms": 0,
    "reconnect.backoff.max.ms": 0, "request.timeout.ms": 0, "retry.backoff.ms": 0, "ksqlpy.workers.nice": 0,
}


def _reason(kind: str | tuple[str, ...], text: str, exact: bool = False) -> str | None:
    if isinstance(kind, tuple):
        return None if (text if exact else text.lower()) in kind else f"String must be one of: {', '.join(kind)}"
    if kind == _BOOLEAN:
        return None if text.lower() in ("true", "false") else "Expected value to be either true or false"
    try:
        n = int(text)
    except ValueError:
        return f"Not a number of type {kind}"
    return None if -_LIMITS[kind] <= n < _LIMITS[kind] else f"Not a number of type {kind}"


# The client prefixes ksqlDB's KsqlConfigResolver resolves a Streams-side name under, against the consumer's and
# the producer's definitions (StreamsConfig.CONSUMER_PREFIX / PRODUCER_PREFIX, from memory).
_CLIENT_PREFIXES = ("consumer.", "producer.")


def definition_name(name: str) -> str:
    """The name of the definition a property resolves to, as Kafka's ConfigDef names it in its messages: ksqlDB's
    KsqlConfigResolver strips ``ksql.streams.`` and a client prefix (``consumer.``, ``producer.``) to find the key,
    and ConfigItem.Resolved.parseValue parses and validates under the key's own name (``ConfigDef.parseType(
    key.name, ...)``, ``key.validator.ensureValid(key.name, ...)``, from memory) - so ``SET
    'ksql.streams.num.stream.threads'='x'`` names ``num.stream.threads``. ``ksql.*`` and ``ksqlpy.*`` names are
    their definitions' names."""
    bare = name[len("ksql.streams."):] if name.startswith("ksql.streams.") else name
    if bare is name and name.startswith(("ksql.", "ksqlpy.")):
        return name
    for prefix in _CLIENT_PREFIXES:
        if bare.startswith(prefix) and bare[len(prefix):] in TYPES:
            return bare[len(prefix):]
    return bare


def check_property(name: str, value: Any) -> None:
    """Raise the statement error ksqlDB gives for a value its config would not accept, naming the definition."""
    bare = definition_name(name)
    kind = TYPES.get(bare)
    name = bare
    if kind is None or value is None:
        return
    text = str(value).strip()
    reason = _reason(kind, text, bare in EXACT_CASE)
    minimum = MINIMUM.get(bare)
    if reason is None and minimum is not None and int(text) < minimum:
        value, reason = int(text), f"Value must be at least {minimum}"
    if reason is not None:
        raise KsqlStatementError(f"Invalid value {value} for configuration {name}: {reason}")
    if bare == "auto.offset.reset" and text.lower() == "none":
        raise KsqlStatementError("'none' is not valid for this property within KSQL")


def check_properties(properties: dict[str, Any]) -> None:
    for name, value in properties.items():
        check_property(name, value)
