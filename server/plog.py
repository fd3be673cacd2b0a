"""The processing log as a topic and a stream: failed records become rows users can query.

The engine's ``ProcessingLog`` calls its sink from inside a task's batch, often inside the batch's log
write transaction; producing there would nest write transactions. So the sink only queues entries and a
small thread writes them to the topic every ``FLUSH_S`` seconds, as ksqlDB's log4j appender would.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

import orjson

from ksqlpy.log.base import Log, ProducerRecord

LOG = logging.getLogger("ksqlpy.server.plog")
FLUSH_S = 0.1

# ksqlDB's ProcessingLogMessageSchema, as a CREATE STREAM column list
STREAM_COLUMNS = (
    "LOGGER STRING, LEVEL STRING, `TIME` BIGINT, MESSAGE STRUCT<"
    "`TYPE` INT, "
    "DESERIALIZATIONERROR STRUCT<TARGET STRING, ERRORMESSAGE STRING, RECORDB64 STRING, CAUSE ARRAY<STRING>, "
    "`TOPIC` STRING>, "
    "RECORDPROCESSINGERROR STRUCT<ERRORMESSAGE STRING, RECORD STRING, CAUSE ARRAY<STRING>>, "
    "PRODUCTIONERROR STRUCT<ERRORMESSAGE STRING>, "
    "SERIALIZATIONERROR STRUCT<TARGET STRING, ERRORMESSAGE STRING, RECORD STRING, CAUSE ARRAY<STRING>, "
    "`TOPIC` STRING>, "
    "KAFKASTREAMSTHREADERROR STRUCT<ERRORMESSAGE STRING, THREADNAME STRING, CAUSE ARRAY<STRING>>>"
)


def topic_name(props: dict[str, Any], service_id: str) -> str:
    return str(props.get("ksql.logging.processing.topic.name") or f"{service_id}ksql_processing_log")


def create_stream_sql(stream: str, topic: str) -> str:
    return (f"CREATE STREAM {stream} ({STREAM_COLUMNS}) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON', "
            "KEY_FORMAT='KAFKA');")


class TopicSink:
    """Queues processing-log entries and writes them to ``topic`` from a background thread."""

    def __init__(self, log: Log, topic: str) -> None:
        self.log = log
        self.topic = topic
        self.pending: deque[dict[str, Any]] = deque(maxlen=100_000)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ksqlpy-processing-log", daemon=True)

    def __call__(self, entry: dict[str, Any]) -> None:
        self.pending.append(entry)

    def start(self) -> None:
        self._thread.start()

    def flush(self) -> int:
        entries = []
        while self.pending:
            entries.append(self.pending.popleft())
        if not entries:
            return 0
        with self.log.transaction() as tx:
            tx.produce_many([ProducerRecord(self.topic, None, orjson.dumps(e), e.get("time")) for e in entries])
        return len(entries)

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_S):
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - losing log lines must not stop the server
                LOG.exception("could not write the processing log topic %s", self.topic)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        try:
            self.flush()
        except Exception:  # noqa: BLE001
            LOG.exception("could not flush the processing log")
