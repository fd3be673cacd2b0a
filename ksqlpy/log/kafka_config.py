"""librdkafka client settings from ksqlpy (ksqlDB-style) configuration.

ksqlDB passes connection settings straight to its Kafka clients and lets ``ksql.streams.*``,
``consumer.*`` and ``producer.*`` prefixed properties tune them. We do the same, but librdkafka rejects
keys it does not know, so only connection-level keys are passed bare and everything client-specific
must be prefixed. Java-only spellings that have a direct librdkafka equivalent are translated.
"""

from __future__ import annotations

import logging
import re
from typing import Any

# librdkafka's own log lines (connection refused, rebalances...) go to Python logging, not stderr
LOGGER = logging.getLogger("ksqlpy.kafka")

# bare (or ``ksql.streams.``-prefixed) keys that every client gets
_COMMON_PREFIXES = ("bootstrap.servers", "security.protocol", "sasl.", "ssl.", "socket.", "client.id",
                    "client.rack", "metadata.", "reconnect.backoff", "retry.backoff", "broker.address",
                    "api.version", "enable.ssl.certificate.verification", "connections.max.idle.ms")
# Java client keys with no librdkafka meaning (JKS stores, JAAS files handled separately)
_JAVA_ONLY = ("ssl.truststore.", "ssl.keystore.", "ssl.key.password", "sasl.jaas.config",
              "sasl.client.callback", "sasl.login.", "ssl.endpoint.identification.algorithm",
              "ssl.protocol", "ssl.enabled.protocols", "ssl.trustmanager.", "ssl.keymanager.",
              "ssl.secure.random.implementation", "ssl.engine.factory.class", "ssl.principal.mapping.rules",
              "sasl.kerberos.service.name.")
# client-specific keys also accepted without a consumer./producer. prefix (as Kafka Streams does)
_CONSUMER_KEYS = ("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "fetch.min.bytes",
                  "fetch.max.bytes", "max.partition.fetch.bytes", "isolation.level", "fetch.wait.max.ms",
                  "group.instance.id", "partition.assignment.strategy", "fetch.queue.backoff.ms")
_PRODUCER_KEYS = ("linger.ms", "batch.size", "batch.num.messages", "compression.type", "acks",
                  "enable.idempotence", "transaction.timeout.ms", "delivery.timeout.ms", "message.timeout.ms",
                  "queue.buffering.max.messages", "queue.buffering.max.kbytes", "compression.level")
_RENAMED = {"fetch.max.wait.ms": "fetch.wait.max.ms"}  # Java name -> librdkafka name
_JAAS = re.compile(r'(username|password)\s*=\s*"((?:[^"\\]|\\.)*)"')

# consumer defaults: fetch.queue.backoff.ms=1000 (librdkafka's default) stalls Python consumers at
# ~0.2M records/s; 10 ms lets a backlog stream. Partition EOF events are how "caught up" is decided.
CONSUMER_DEFAULTS: dict[str, Any] = {
    "enable.auto.commit": False,
    "enable.auto.offset.store": False,
    "enable.partition.eof": True,
    "fetch.queue.backoff.ms": 10,
    "fetch.wait.max.ms": 20,  # the broker holds an empty fetch this long: bounds added-partition latency
    "queued.max.messages.kbytes": 65536,  # per consumer: a partition has a consumer of its own (kafka_fetch)
    "isolation.level": "read_committed",
    "auto.offset.reset": "earliest",
    "allow.auto.create.topics": False,
}
# producer defaults tuned for throughput: large batches, a short linger, compression, idempotence
PRODUCER_DEFAULTS: dict[str, Any] = {
    "linger.ms": 5,
    "batch.size": 1_000_000,
    "batch.num.messages": 100_000,
    "compression.type": "lz4",
    "queue.buffering.max.messages": 1_000_000,
    "queue.buffering.max.kbytes": 1_048_576,
    "enable.idempotence": True,
    "acks": "all",
}


def _is_common(key: str) -> bool:
    return key.startswith(_COMMON_PREFIXES) and not key.startswith(_JAVA_ONLY)


def _translate_jaas(value: str, out: dict[str, Any]) -> None:
    """``sasl.jaas.config`` (PLAIN / SCRAM login modules) -> sasl.username / sasl.password."""
    for name, v in _JAAS.findall(value):
        out.setdefault(f"sasl.{name}", v.replace('\\"', '"'))


def client_configs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{"common", "consumer", "producer", "admin"}`` librdkafka settings (without the defaults).

    Precedence, lowest first: bare keys, ``ksql.streams.<key>``, ``<client>.<key>``,
    ``ksql.streams.<client>.<key>`` (ksqlDB's order: the more specific wins).
    """
    common: dict[str, Any] = {}
    per: dict[str, dict[str, Any]] = {"consumer": {}, "producer": {}, "admin": {}}
    layers: list[list[tuple[str, Any]]] = [[], [], [], []]
    for k, v in config.items():
        if v is None:
            continue
        key = str(k)
        if key.startswith("ksql.streams."):
            rest = key[len("ksql.streams."):]
            head = rest.split(".", 1)[0]
            layers[3 if head in per and "." in rest else 1].append((rest, v))
        else:
            head = key.split(".", 1)[0]
            layers[2 if head in per and "." in key else 0].append((key, v))
    for layer in layers:
        for key, v in layer:
            if layer is layers[0] or layer is layers[1]:
                key = _RENAMED.get(key, key)
                if key in _CONSUMER_KEYS:
                    key = f"consumer.{key}"
                elif key in _PRODUCER_KEYS:
                    key = f"producer.{key}"
            head, _, rest = key.partition(".")
            rest = _RENAMED.get(rest, rest)
            if head in per and rest:
                if rest == "sasl.jaas.config":
                    _translate_jaas(str(v), per[head])
                elif not rest.startswith(_JAVA_ONLY):
                    per[head][rest] = v
            elif key == "sasl.jaas.config":
                _translate_jaas(str(v), common)
            elif key == "sasl.mechanism":
                common["sasl.mechanisms"] = v
            elif _is_common(key):
                common[key] = v
    return {"common": common, **per}


def consumer_config(config: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    c = client_configs(config)
    return {**CONSUMER_DEFAULTS, "logger": LOGGER, **c["common"], **c["consumer"], **overrides}


def producer_config(config: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    c = client_configs(config)
    return {**PRODUCER_DEFAULTS, "logger": LOGGER, **c["common"], **c["producer"], **overrides}


def admin_config(config: dict[str, Any]) -> dict[str, Any]:
    c = client_configs(config)
    return {"logger": LOGGER, **c["common"], **c["admin"]}
