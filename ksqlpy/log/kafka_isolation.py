"""Probing a broker for transaction isolation.

Kafka hides an aborted transaction's records from ``read_committed`` consumers; some Kafka-protocol
brokers (tansu) accept transactions but show aborted records. Exactly-once then still commits offsets,
outputs and changelogs atomically and fences zombies, but readers (and state restores) can see the records
of aborted attempts - tests and operators need to know which kind of broker they talk to.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from confluent_kafka import Producer

from ksqlpy.log.kafka_config import producer_config

if TYPE_CHECKING:
    from ksqlpy.log.kafka import KafkaLog


def isolates_aborted(log: KafkaLog, timeout: float = 10.0) -> bool:
    """Produce and abort one record, commit another, and read the topic back: True if only the
    committed record is visible."""
    topic = f"_ksqlpy-isolation-probe-{uuid.uuid4().hex[:12]}"
    log.create_topic(topic, 1, 1, {"retention.ms": "60000"})
    probe = Producer(producer_config(log.config, **{"transactional.id": f"ksqlpy-probe-{uuid.uuid4().hex}"}))
    try:
        probe.init_transactions(timeout)
        probe.begin_transaction()
        probe.produce(topic, b"aborted", partition=0)
        probe.flush(timeout)
        probe.abort_transaction(timeout)
        probe.begin_transaction()
        probe.produce(topic, b"committed", partition=0)
        probe.commit_transaction(timeout)
        seen = []
        offset = 0
        while True:
            b = log.fetch(topic, 0, offset)
            if not b.offsets:
                break
            seen += b.values
            offset = b.next_offset
        return seen == [b"committed"]
    finally:
        del probe
        log.delete_topic(topic)
