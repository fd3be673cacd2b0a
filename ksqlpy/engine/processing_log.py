"""KSQL_PROCESSING_LOG for every front door: the processing log as a topic and a stream.

The engine's ``ProcessingLog`` (ksqlpy.runtime.processing_log) formats entries in ksqlDB's record layout;
this module decides where they go. With ``ksql.logging.processing.topic.auto.create`` the topic
``<service id>ksql_processing_log`` is created, and every entry is written to it; with
``ksql.logging.processing.stream.auto.create`` the ``KSQL_PROCESSING_LOG`` stream is declared over it, so
failed records become rows users query like any other. The server and the embedded shell both turn both
on by default (``FRONT_DOOR_DEFAULTS``); a bare ``Engine`` used as a library keeps entries in memory
(``engine.plog.entries``) unless its properties ask for the topic.

The sink is called from inside a task's batch, often inside the batch's log write transaction, where
producing would nest write transactions. So it only queues entries, and a small thread writes them every
``FLUSH_S`` seconds, as ksqlDB's log4j appender does.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from ksqlpy.engine.config import as_bool
from ksqlpy.log.base import Log, ProducerRecord

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine
    from ksqlpy.grammar import ast as A

LOG = logging.getLogger("ksqlpy.processing_log")
FLUSH_S = 0.1

# what the server and the shell start with (ksqlDB's docker images set the same)
FRONT_DOOR_DEFAULTS: dict[str, Any] = {
    "ksql.logging.processing.topic.auto.create": "true",
    "ksql.logging.processing.topic.partitions": 1,
    "ksql.logging.processing.stream.auto.create": "true",
    "ksql.logging.processing.stream.name": "KSQL_PROCESSING_LOG",
}

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
            except Exception:  # noqa: BLE001 - losing log lines must not stop the engine
                LOG.exception("could not write the processing log topic %s", self.topic)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        try:
            self.flush()
        except Exception:  # noqa: BLE001
            LOG.exception("could not flush the processing log")


def open_processing_log(engine: Engine, properties: dict[str, Any], service_id: str,
                        run: Callable[[A.Statement], Any]) -> TopicSink | None:
    """Create the topic and the stream as ``properties`` say, and send ``engine``'s entries to the topic.

    ``run`` executes the CREATE STREAM the way the front door records statements (the command topic), so
    the stream comes back on restart like any other. Returns the started sink (close it before the engine).
    """
    from ksqlpy import grammar

    log = engine.log
    topic = topic_name(properties, service_id)
    if as_bool(properties.get("ksql.logging.processing.topic.auto.create", "false")) and not log.topic_exists(topic):
        log.create_topic(topic, int(properties.get("ksql.logging.processing.topic.partitions", 1)), 1)
    if not log.topic_exists(topic):
        return None
    sink = TopicSink(log, topic)
    engine.plog.sink = sink
    sink.start()
    stream = str(properties.get("ksql.logging.processing.stream.name", "KSQL_PROCESSING_LOG")).upper()
    if (as_bool(properties.get("ksql.logging.processing.stream.auto.create", "false"))
            and engine.catalog.source(stream) is None):
        run(grammar.parse(create_stream_sql(stream, topic), None)[0])
    return sink
