"""What SHOW PROPERTIES lists: every property ksqlDB's users see, with ksqlDB's default where nothing sets it.

ksqlDB's ListPropertiesExecutor (from memory) lists ``KsqlConfig.getAllConfigPropsWithSecretsObfuscated()``
of the session's config: every definition of KsqlConfig with its value - the default unless the server's
configuration or the session set it (the SSL settings left out, ``ksql.functions.*`` hidden) - and the Kafka
Streams, consumer and producer settings it hands to Kafka Streams, as ``ksql.streams.<name>``: the ones the
configuration gives and those ksqlDB sets itself (``auto.offset.reset``, the cache size, the commit interval,
the thread count, its exception handlers). ``LISTED_DEFAULTS`` holds those names with ksqlDB's defaults, as
``ConfigDef.convertToString`` prints them (a list comma-joined, a class by its name); a definition without a
default (``ksql.persistence.default.format.value``, ``ksql.persistence.wrap.single.values``,
``ksql.metrics.extension``) is left out unless set - ``ConfigDef.convertToString`` gives null for it and the
listing's maps hold no null - and, once set (SET, a request's properties, the configuration), listed with that
value and never among the defaults.

The table is for the listing only: what the engine does with a property it leaves unset is
``ksqlpy.properties.DEFAULT_PROPERTIES``' (and each reader's own default), and the listing shows that value
where the engine has one - ksqlpy's own default wins over ksqlDB's where they differ (the thread count).
"""

from __future__ import annotations

from typing import Any

_SYSTEM_TOPICS = ("_confluent.*,__confluent.*,_schemas,__consumer_offsets,__transaction_state,connect-configs,"
                  "connect-offsets,connect-status,connect-statuses")
_INT_MAX = "2147483647"

LISTED_DEFAULTS: dict[str, str] = {
    # KsqlConfig's definitions
    "ksql.access.validator.enable": "auto",
    "ksql.any.key.name.enabled": "false",
    "ksql.assert.schema.default.timeout.ms": "1000",
    "ksql.assert.topic.default.timeout.ms": "1000",
    "ksql.authorization.cache.expiry.time.secs": "30",
    "ksql.authorization.cache.max.entries": "10000",
    "ksql.cast.strings.preserve.nulls": "true",
    "ksql.client.ip.port.configuration.enabled": "false",
    "ksql.connect.url": "http://localhost:8083",
    "ksql.connect.worker.config": "",
    "ksql.create.or.replace.enabled": "true",
    "ksql.deployment.type": "selfManaged",
    "ksql.endpoint.migrate.query": "true",
    "ksql.error.classifier.regex": "",
    "ksql.extension.dir": "ext",
    "ksql.fail.on.deserialization.error": "false",
    "ksql.fail.on.production.error": "true",
    "ksql.headers.columns.enabled": "true",
    "ksql.hidden.topics": _SYSTEM_TOPICS,
    "ksql.insert.into.values.enabled": "true",
    "ksql.internal.topic.min.insync.replicas": "1",
    "ksql.internal.topic.replicas": "1",
    "ksql.json_sr.converter.deserializer.enabled": "true",
    "ksql.lambdas.enabled": "true",
    "ksql.metastore.backup.location": "",
    "ksql.metric.reporters": "",
    "ksql.metrics.tags.custom": "",
    "ksql.nested.error.set.null": "true",
    "ksql.new.query.planner.enabled": "false",
    "ksql.output.topic.name.prefix": "",
    "ksql.persistence.default.format.key": "KAFKA",
    "ksql.persistent.prefix": "query_",
    "ksql.properties.overrides.denylist": "",
    "ksql.pull.queries.enable": "true",
    "ksql.query.cleanup.shutdown.timeout.ms": "30000",
    "ksql.query.error.max.queue.size": "10",
    "ksql.query.persistent.active.limit": _INT_MAX,
    "ksql.query.persistent.max.bytes.buffering.total": "-1",
    "ksql.query.pull.enable.standby.reads": "false",
    "ksql.query.pull.forwarding.timeout.ms": "20000",
    "ksql.query.pull.interpreter.enabled": "true",
    "ksql.query.pull.limit.clause.enabled": "true",
    "ksql.query.pull.max.allowed.offset.lag": "9223372036854775807",
    "ksql.query.pull.max.concurrent.requests": _INT_MAX,
    "ksql.query.pull.max.hourly.bandwidth.megabytes": _INT_MAX,
    "ksql.query.pull.max.qps": _INT_MAX,
    "ksql.query.pull.metrics.enabled": "true",
    "ksql.query.pull.range.scan.enabled": "true",
    "ksql.query.pull.router.thread.pool.size": "50",
    "ksql.query.pull.stream.enabled": "true",
    "ksql.query.pull.table.scan.enabled": "true",
    "ksql.query.pull.thread.pool.size": "50",
    "ksql.query.push.v2.enabled": "false",
    "ksql.query.push.v2.registry.installed": "false",
    "ksql.query.retry.backoff.initial.ms": "15000",
    "ksql.query.retry.backoff.max.ms": "900000",
    "ksql.query.status.running.threshold.seconds": "300",
    "ksql.query.transient.max.bytes.buffering.total": "-1",
    "ksql.queryanonymizer.logs_enabled": "true",
    "ksql.readonly.topics": _SYSTEM_TOPICS,
    "ksql.rowpartition.rowoffset.enabled": "true",
    "ksql.runtime.feature.shared.enabled": "false",
    "ksql.schema.registry.url": "",
    "ksql.service.id": "default_",
    "ksql.shared.runtimes.count": "8",
    "ksql.sink.window.change.log.additional.retention": "1000000",
    "ksql.source.table.materialization.enabled": "true",
    "ksql.suppress.buffer.size.bytes": "-1",
    "ksql.suppress.enabled": "true",
    "ksql.timestamp.throw.on.invalid": "false",
    "ksql.transient.prefix": "transient_",
    "ksql.transient.query.cleanup.service.enable": "true",
    "ksql.transient.query.cleanup.service.initial.delay.seconds": "600",
    "ksql.transient.query.cleanup.service.period.seconds": "600",
    "ksql.udf.collect.metrics": "false",
    "ksql.udf.enable.security.manager": "true",
    "ksql.udfs.enabled": "true",
    "ksql.variable.substitution.enable": "true",
    # the server's (KsqlRestConfig) settings a user tunes
    "ksql.heartbeat.enable": "false",
    "ksql.healthcheck.interval.ms": "5000",
    "ksql.lag.reporting.enable": "false",
    "ksql.max.push.queries": "100",
    "ksql.queries.file": "",
    "ksql.server.command.response.timeout.ms": "5000",
    # what ksqlDB hands Kafka Streams (its own defaults, and the Streams settings users tune per query)
    "ksql.streams.auto.offset.reset": "latest",
    "ksql.streams.bootstrap.servers": "localhost:9092",
    "ksql.streams.buffered.records.per.partition": "1000",
    "ksql.streams.cache.max.bytes.buffering": "10000000",
    "ksql.streams.commit.interval.ms": "2000",
    "ksql.streams.default.deserialization.exception.handler":
        "io.confluent.ksql.errors.LogMetricAndContinueExceptionHandler",
    "ksql.streams.default.production.exception.handler":
        "io.confluent.ksql.errors.ProductionExceptionHandlerUtil$LogAndFailProductionExceptionHandler",
    "ksql.streams.max.task.idle.ms": "0",
    "ksql.streams.num.standby.replicas": "0",
    "ksql.streams.num.stream.threads": "4",
    "ksql.streams.processing.guarantee": "at_least_once",
    "ksql.streams.task.timeout.ms": "300000",
}


def listed(effective: dict[str, Any]) -> dict[str, Any]:
    """The listing's name -> value: ``effective`` (the engine's resolution: its defaults, the configuration,
    the session and request) over ``LISTED_DEFAULTS``. ksqlDB's deserialization handler follows
    ``ksql.fail.on.deserialization.error`` (no handler when it is true: Kafka's default fails)."""
    out: dict[str, Any] = dict(LISTED_DEFAULTS)
    fail = str(effective.get("ksql.fail.on.deserialization.error", "false")).strip().lower() == "true"
    if fail:
        out["ksql.streams.default.deserialization.exception.handler"] = (
            "org.apache.kafka.streams.errors.LogAndFailExceptionHandler")
    if str(effective.get("ksql.fail.on.production.error", "true")).strip().lower() == "false":
        out["ksql.streams.default.production.exception.handler"] = (
            "io.confluent.ksql.errors.ProductionExceptionHandlerUtil$LogAndContinueProductionExceptionHandler")
    out.update(effective)
    return out
