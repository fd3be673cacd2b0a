"""Engine properties and their defaults (ksqlDB's names, so existing configs and SET statements work)."""

from __future__ import annotations

from typing import Any

DEFAULT_PROPERTIES: dict[str, Any] = {
    "ksql.service.id": "default_",
    "ksql.persistent.prefix": "query_",
    "ksql.transient.prefix": "transient_",
    "ksql.output.topic.name.prefix": "",
    "ksql.persistence.default.format.key": "KAFKA",
    "ksql.persistence.wrap.single.values": "true",
    "ksql.variable.substitution.enable": "true",
    "ksql.insert.into.values.enabled": "true",
    "ksql.create.or.replace.enabled": "true",
    "ksql.query.pull.table.scan.enabled": "true",
    "ksql.logging.processing.rows.include": "false",
    "ksql.logging.processing.stream.name": "KSQL_PROCESSING_LOG",
    "ksql.functions.collect_list.limit": 1000,
    "ksql.functions.collect_set.limit": 1000,
    "ksql.max.push.queries": 100,
    "auto.offset.reset": "latest",
    "processing.guarantee": "at_least_once",
    "cache.max.bytes.buffering": 10_000_000,
    "commit.interval.ms": 2000,
    "num.stream.threads": 1,
}


def as_bool(v: Any) -> bool:
    return v is True or str(v).strip().lower() == "true"
