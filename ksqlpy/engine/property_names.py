"""Which property names ksqlDB recognizes, and the values it accepts for the ones it checks up front.

A name is recognized when it is a ``ksql.*`` name ksqlDB's KsqlConfig defines (or ksqlpy's own ``ksqlpy.*``), or - bare or after
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
    # more of StreamsConfig's definitions
    "application.id", "default.key.serde", "default.value.serde", "default.dsl.store", "dsl.store.suppliers.class",
    "default.windowed.key.serde.inner", "default.windowed.value.serde.inner", "windowed.inner.class.serde",
    "default.client.supplier", "processing.exception.handler", "enable.metrics.push", "log.summary.interval.ms",
    "metric.reporters", "metrics.num.samples", "metrics.recording.level", "metrics.sample.window.ms",
    "rack.aware.assignment.strategy", "rack.aware.assignment.tags", "rack.aware.assignment.traffic_cost",
    "rack.aware.assignment.non_overlap_cost", "repartition.purge.interval.ms", "task.assignor.class",
    "auto.include.jmx.reporter", "retry.backoff.max.ms", "client.dns.lookup", "security.providers",
    "socket.connection.setup.timeout.ms", "socket.connection.setup.timeout.max.ms",
    # more consumer settings
    "allow.auto.create.topics", "default.api.timeout.ms", "interceptor.classes", "key.deserializer",
    "value.deserializer", "group.protocol", "group.remote.assignor",
    # more producer settings
    "key.serializer", "value.serializer", "partitioner.class", "partitioner.ignore.keys",
    "partitioner.adaptive.partitioning.enable", "partitioner.availability.timeout.ms", "metadata.max.idle.ms",
})
CLIENT_PREFIXES = ("producer.", "consumer.", "main.consumer.", "restore.consumer.", "global.consumer.", "admin.",
                   "topic.", "metrics.", "ssl.", "sasl.")
OWN_PREFIXES = ("ksql.", "ksqlpy.")

# ``ksql.*`` names resolve against ksqlDB's KsqlConfig definitions (``KsqlConfigResolver``): a name it does
# not define is refused (``SET 'ksql.foo.bar'=...`` -> ``Unknown property: ksql.foo.bar``). The exact names
# below, plus the namespaces whose members are free-form or too many to list (``ksql.functions.*`` reach a
# function's configure(), ``ksql.schema.registry.*`` and ``ksql.connect.*`` are client settings, the server,
# cluster and security families). The pull and push query settings are listed by name.
KSQL_CONFIGS = frozenset({
    "ksql.service.id", "ksql.persistent.prefix", "ksql.transient.prefix", "ksql.output.topic.name.prefix",
    "ksql.internal.topic.replicas", "ksql.internal.topic.min.insync.replicas", "ksql.sink.partitions",
    "ksql.sink.replicas", "ksql.sink.window.change.log.additional.retention", "ksql.extension.dir",
    "ksql.udfs.enabled", "ksql.udf.enable.security.manager", "ksql.udf.collect.metrics",
    "ksql.persistence.wrap.single.values", "ksql.persistence.default.format.key",
    "ksql.persistence.default.format.value", "ksql.key.format.enabled", "ksql.timestamp.throw.on.invalid",
    "ksql.fail.on.deserialization.error", "ksql.fail.on.production.error", "ksql.query.persistent.active.limit",
    "ksql.query.persistent.max.bytes.buffering.total", "ksql.query.transient.max.bytes.buffering.total",
    "ksql.query.retry.backoff.initial.ms", "ksql.query.retry.backoff.max.ms", "ksql.query.error.max.queue.size",
    "ksql.query.status.running.threshold.seconds", "ksql.query.cleanup.shutdown.timeout.ms",
    "ksql.variable.substitution.enable", "ksql.suppress.enabled", "ksql.suppress.buffer.size.bytes",
    "ksql.lambdas.enabled", "ksql.create.or.replace.enabled", "ksql.insert.into.values.enabled",
    "ksql.hidden.topics", "ksql.readonly.topics", "ksql.access.validator.enable",
    "ksql.authorization.cache.expiry.time.secs", "ksql.authorization.cache.max.entries",
    "ksql.new.query.planner.enabled", "ksql.error.classifier.regex", "ksql.properties.overrides.denylist",
    "ksql.cast.strings.preserve.nulls", "ksql.nested.error.set.null", "ksql.headers.columns.enabled",
    "ksql.source.table.materialization.enabled", "ksql.runtime.feature.shared.enabled",
    "ksql.shared.runtimes.count", "ksql.json_sr.converter.deserializer.enabled", "ksql.endpoint.migrate.query",
    "ksql.create.topic.inherit.source.replicas.enabled", "ksql.rowpartition.rowoffset.enabled",
    "ksql.client.ip.port.configuration.enabled", "ksql.deployment.type", "ksql.assert.topic.default.timeout.ms",
    "ksql.assert.schema.default.timeout.ms", "ksql.transient.query.cleanup.service.enable",
    "ksql.transient.query.cleanup.service.initial.delay.seconds",
    "ksql.transient.query.cleanup.service.period.seconds", "ksql.queryanonymizer.logs_enabled",
    "ksql.queryanonymizer.cluster_namespace", "ksql.max.push.queries", "ksql.pull.queries.enable",
    "ksql.windowed.session.key.legacy", "ksql.enable.metastore.backup", "ksql.metastore.backup.location",
    "ksql.queries.file", "ksql.max.task.idle.ms", "ksql.healthcheck.interval.ms", "ksql.internal.listener",
    "ksql.advertised.listener", "ksql.idle.connection.timeout.seconds", "ksql.verticle.instances",
    "ksql.worker.pool.size", "ksql.websocket.connection.max.timeout.ms", "ksql.schema.registry.url",
    "ksql.connect.url", "ksql.streams.state.dir",
    # flags of KsqlConfig's releases (older queries keep the behaviour they were planned with)
    "ksql.any.key.name.enabled", "ksql.multicol.key.format.enabled", "ksql.string.case.config.toggle",
    "ksql.shared.runtime.enabled", "ksql.deadletterqueue.insert.error", "ksql.metric.reporters",
    "ksql.fetch.remote.hosts.max.timeout.seconds", "ksql.internal.http2.max.pool.size",
    "ksql.resource.extension.class",
    # pull queries (KsqlConfig's KSQL_QUERY_PULL_* and KSQL_QUERY_STREAM_PULL_QUERY_ENABLED / _RANGE_SCAN_ENABLED;
    # the list from memory of KsqlConfig): a request naming another ``ksql.query.pull.*`` is refused
    "ksql.query.pull.enable.standby.reads", "ksql.query.pull.max.allowed.offset.lag", "ksql.query.pull.metrics.enabled",
    "ksql.query.pull.max.qps", "ksql.query.pull.max.concurrent.requests",
    "ksql.query.pull.max.hourly.bandwidth.megabytes", "ksql.query.pull.thread.pool.size",
    "ksql.query.pull.router.thread.pool.size", "ksql.query.pull.table.scan.enabled",
    "ksql.query.pull.stream.enabled", "ksql.query.pull.interpreter.enabled", "ksql.query.pull.limit.clause.enabled",
    "ksql.query.pull.range.scan.enabled", "ksql.query.pull.consistency.token.enabled",
    "ksql.query.pull.forwarding.timeout.ms", "ksql.query.pull.streamsstore.rebalancing.timeout.ms",
    "ksql.query.pull.cancel.on.disconnect.enabled",
    # scalable push queries (KSQL_QUERY_PUSH_V2_*)
    "ksql.query.push.v2.enabled", "ksql.query.push.v2.registry.installed", "ksql.query.push.v2.alos.enabled",
    "ksql.query.push.v2.interpreter.enabled", "ksql.query.push.v2.new.latest.delay.ms",
    "ksql.query.push.v2.latest.reset.age.ms", "ksql.query.push.v2.continuation.tokens.enabled",
    "ksql.query.push.v2.max.hourly.bandwidth.megabytes", "ksql.query.push.v2.catchup.consumer.msg.window",
    "ksql.query.push.v2.metrics.enabled", "ksql.query.push.v2.max.catchup.consumers",
})
KSQL_CONFIG_FAMILIES = ("ksql.functions.", "ksql.schema.registry.", "ksql.connect.", "ksql.logging.",
                        "ksql.server.", "ksql.heartbeat.", "ksql.lag.",
                        "ksql.authentication.", "ksql.security.", "ksql.ssl.", "ksql.metrics.",
                        "ksql.command.", "ksql.api.", "ksql.precondition.", "ksql.local.")

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
    if name.startswith("ksqlpy."):
        return True
    if name.startswith("ksql.") and not name.startswith("ksql.streams."):
        return name in KSQL_CONFIGS or name.startswith(KSQL_CONFIG_FAMILIES)
    return short in STREAMS_CONFIGS or short.startswith(CLIENT_PREFIXES) or is_streams_internal(short)


def is_streams_internal(name: str) -> bool:
    """Kafka Streams' internal settings are written ``__name__`` (``__emit.interval.ms.kstreams.windowed.
    aggregation__`` throttles EMIT FINAL): StreamsConfig passes them through, so they are accepted under either
    spelling."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


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


# What ksqlDB refuses to override (its LocalPropertyValidator over ImmutableProperties, from memory) - the
# shell's SET, the server's SET (PropertyOverrider) and a request's overrides (KsqlRequest): the
# properties a server fixes at start - its brokers, extension directory, persistent-query limit, pull-query
# switch, hidden and read-only topics, source-table materialization, header columns - and every client SSL
# setting (KsqlConfig.SSL_CONFIG_NAMES: SslConfigs.addClientSslSupport's names).
IMMUTABLE_PROPERTIES = frozenset({
    "bootstrap.servers", "ksql.extension.dir", "ksql.query.persistent.active.limit", "ksql.pull.queries.enable",
    "ksql.hidden.topics", "ksql.readonly.topics", "ksql.source.table.materialization.enabled",
    "ksql.headers.columns.enabled",
    "ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keystore.type",
    "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password", "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "ssl.truststore.type",
    "ssl.truststore.location", "ssl.truststore.password", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation", "ssl.engine.factory.class",
})


def cannot_override(name: str) -> str:
    """LocalPropertyValidator's refusal of an immutable property (``immutable_name``'s name)."""
    return f"Cannot override property '{name}'"


def immutable_name(name: str) -> str | None:
    """The name ksqlDB's validator is given - the resolved definition's (``ksql.streams.`` and a client prefix
    stripped) - when it is immutable, else None."""
    bare = name[len("ksql.streams."):] if name.startswith("ksql.streams.") else name
    for prefix in CLIENT_PREFIXES:
        if bare.startswith(prefix) and bare[len(prefix):] in IMMUTABLE_PROPERTIES:
            return bare[len(prefix):]
    return bare if bare in IMMUTABLE_PROPERTIES else None
