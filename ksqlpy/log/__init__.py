"""Where records live: the ``Log`` interface and its implementations.

``open_log(config)`` picks the implementation from engine configuration: the embedded LMDB log unless
``bootstrap.servers`` points at Kafka.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ksqlpy.errors import KsqlError
from ksqlpy.log.base import (
    Headers,
    Log,
    LogTransaction,
    ProducerRecord,
    RecordBatch,
    TopicExistsError,
    TopicInfo,
    UnknownTopicError,
)
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.properties import resolve

__all__ = [
    "EmbeddedLog",
    "Headers",
    "Log",
    "LogTransaction",
    "ProducerRecord",
    "RecordBatch",
    "TopicExistsError",
    "TopicInfo",
    "UnknownTopicError",
    "default_log_dir",
    "open_log",
]


def default_log_dir() -> str:
    """Where the embedded log lives when ``log.dir`` is not configured (per user, survives restarts)."""
    return os.path.join(tempfile.gettempdir(), f"ksqlpy-{os.getuid() if hasattr(os, 'getuid') else 'user'}", "log")


def _truthy(v: Any) -> bool:
    return str(v).strip().lower() in ("1", "true", "yes", "on")


def _engine_tid(config: dict[str, Any]) -> str | None:
    """Under exactly_once_v2 the engine's own KafkaLog is transactional, with an id stable per data
    directory (a restarted engine fences its previous incarnation). Worker processes bring their own."""
    guarantee = str(resolve("processing.guarantee", config, default=""))
    if not guarantee.strip().lower().startswith("exactly_once"):
        return None
    import hashlib

    where = os.path.realpath(str(config.get("log.dir") or default_log_dir()))
    service = config.get("ksql.service.id", "default_")
    return f"_confluent-ksql-{service}engine-{hashlib.sha1(where.encode()).hexdigest()[:12]}"


def open_log(config: dict[str, Any]) -> Log:
    """The log the engine should use.

    Keys: ``bootstrap.servers`` (or ``ksql.streams.bootstrap.servers``: the Kafka log, see
    docs/kafka.md), ``log.dir`` (embedded log directory), ``log.map.size`` (LMDB map size in bytes),
    ``log.fsync`` (fsync every commit; default false). ``ksqlpy.transactional.id`` gives a KafkaLog a
    transactional producer (exactly-once transactions).
    """
    servers = resolve("bootstrap.servers", config)
    if servers:
        try:
            from ksqlpy.log.kafka import KafkaLog
        except ImportError as e:
            raise KsqlError(f"'bootstrap.servers' is set but confluent-kafka is not installed "
                            f"(pip install 'ksqlpy[kafka]'): {e}") from e
        return KafkaLog(config, transactional_id=config.get("ksqlpy.transactional.id") or _engine_tid(config))
    path = config.get("log.dir") or default_log_dir()
    map_size = config.get("log.map.size")
    return EmbeddedLog(path, map_size=int(map_size) if map_size else None,
                       fsync=_truthy(config.get("log.fsync", "false")))
