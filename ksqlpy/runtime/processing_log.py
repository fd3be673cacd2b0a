"""The processing log: where records that could not be read or evaluated go, with their reason.

Entries follow ksqlDB's record shape (logger, level, time, message{type, ...}) so the
KSQL_PROCESSING_LOG stream can expose them. The engine decides where entries are written; this
object formats them and keeps a bounded in-memory tail for tests and the shell.
"""

from __future__ import annotations

import base64
import logging
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

import orjson

from ksqlpy.serde.base import deserialization_failure

_LOG = logging.getLogger("ksqlpy.processing")

DESERIALIZATION_ERROR = 0
RECORD_PROCESSING_ERROR = 1
PRODUCTION_ERROR = 2
SERIALIZATION_ERROR = 3


def _row_json(row: Any) -> str:
    """The failing row as ksqlDB logs it: a JSON array of its values (with rows.include)."""
    values = list(row) if isinstance(row, tuple | list) else [row]
    return orjson.dumps(values, default=str).decode()


def _causes(exc: BaseException) -> list[str]:
    """Every message of the exception chain, outermost first (ksqlDB's ``cause`` list). Only explicit causes
    (``raise ... from``) are followed, as Java's chain: the exception being handled when this one was raised
    (Python's implicit ``__context__``, e.g. the fast path's failure) is not its cause."""
    out: list[str] = []
    e: BaseException | None = exc
    while e is not None and len(out) < 10:
        text = str(e) or type(e).__name__
        if text not in out:
            out.append(text)
        e = e.__cause__
    return out


class ProcessingLog:
    def __init__(self, sink: Callable[[dict[str, Any]], None] | None = None, include_rows: bool = False,
                 keep: int = 1000) -> None:
        self.sink = sink
        self.include_rows = include_rows
        self.entries: deque[dict[str, Any]] = deque(maxlen=keep)
        self.count = 0
        self.by_query: Counter[str] = Counter()  # entries per query id (the processing-errors metric)
        # records a query could not deserialize (DESCRIBE EXTENDED's failed-messages, counted by ksqlDB's
        # deserialization exception handler; expression errors and excluded rows are not failed messages)
        self.failed_by_query: Counter[str] = Counter()
        self.failed_last_ms: dict[str, int] = {}  # the time of each query's last one (DESCRIBE's last-failed)
        # the same per topic the record came from (ksqlDB's StreamsErrorCollector.recordError(topic)): what
        # DESCRIBE EXTENDED's errorStats counts for the source over that topic
        self.failed_by_topic: Counter[str] = Counter()
        self.failed_topic_last_ms: dict[str, int] = {}

    def _emit(self, logger: str, message: dict[str, Any]) -> None:
        entry = {"logger": logger, "level": "ERROR", "time": int(time.time() * 1000), "message": message}
        _LOG.debug("%s: %s", logger, message)
        self.forwarded(entry)

    def forwarded(self, entry: dict[str, Any]) -> None:
        """Take an entry made elsewhere (a worker process's processing log): counted per query, kept, and
        written to the sink like one of ours."""
        self.count += 1
        parts = str(entry.get("logger", "")).split(".")
        if len(parts) > 1:
            self.by_query[parts[1]] += 1
            message = entry.get("message")
            if isinstance(message, dict) and message.get("type") == DESERIALIZATION_ERROR:
                self.failed_by_query[parts[1]] += 1
                self.failed_last_ms[parts[1]] = int(entry.get("time") or 0)
                topic = (message.get("deserializationError") or {}).get("topic")
                if topic:
                    self.failed_by_topic[topic] += 1
                    self.failed_topic_last_ms[topic] = int(entry.get("time") or 0)
        self.entries.append(entry)
        if self.sink is not None:
            try:
                self.sink(entry)
            except Exception:  # noqa: BLE001 - the processing log must never stop a query
                _LOG.exception("could not write processing log entry")

    @staticmethod
    def _empty(kind: int) -> dict[str, Any]:
        return {"type": kind, "deserializationError": None, "recordProcessingError": None,
                "productionError": None, "serializationError": None, "kafkaStreamsThreadError": None}

    def deserialization_error(self, query_id: str, target: str, exc: BaseException, data: bytes | None,
                              topic: str, fmt: str | None = None) -> None:
        """A record whose key or value (``target``) ``fmt`` could not read; the message and causes are the
        format's (``serde.base.deserialization_failure``)."""
        message, cause = deserialization_failure(fmt, target, topic, exc)
        msg = self._empty(DESERIALIZATION_ERROR)
        msg["deserializationError"] = {
            "target": target,
            "errorMessage": message,
            "recordB64": base64.b64encode(data).decode() if (data is not None and self.include_rows) else None,
            "cause": cause,
            "topic": topic,
        }
        self._emit(f"processing.{query_id}.KsqlTopic.Source.deserializer", msg)

    def record_error(self, query_id: str, message: str, row: Any = None, step: str = "Project",
                     cause: list[str] | None = None) -> None:
        msg = self._empty(RECORD_PROCESSING_ERROR)
        msg["recordProcessingError"] = {
            "errorMessage": message,
            "record": _row_json(row) if (row is not None and self.include_rows) else None,
            "cause": list(cause or []),
        }
        self._emit(f"processing.{query_id}.{step}", msg)

    def expression_error(self, query_id: str, what: Any, exc: BaseException, row: Any = None,
                         step: str = "Project") -> None:
        """An expression of one record failed (the record goes on with NULL there, or is dropped for a
        failing WHERE). ``what`` says where (``ksqlpy.expr.failures``): its ``message()`` is logged with the
        error's messages as the cause, as ksqlDB logs it; a plain name is logged with the error."""
        message = getattr(what, "message", None)
        if callable(message):
            self.record_error(query_id, message(), row, step, cause=_causes(exc))
        else:
            self.record_error(query_id, f"Error computing expression {what}: {exc}", row, step, cause=_causes(exc))

    def query_error(self, query_id: str, exc: BaseException) -> None:
        """A query stopped on an unexpected error (ksqlDB's KAFKA_STREAMS_THREAD_ERROR, type 4)."""
        msg = self._empty(4)
        # ksqlDB's words for it; the cause chain says what happened
        msg["kafkaStreamsThreadError"] = {"errorMessage": "Unhandled exception caught in streams thread",
                                          "threadName": "ksqlpy-engine", "cause": _causes(exc)}
        self._emit(f"processing.{query_id}", msg)

    def serialization_error(self, query_id: str, target: str, exc: BaseException, topic: str) -> None:
        msg = self._empty(SERIALIZATION_ERROR)
        msg["serializationError"] = {"target": target, "errorMessage": f"Error serializing message to topic: "
                                     f"{topic}. {exc}", "record": None, "cause": [str(exc)], "topic": topic}
        self._emit(f"processing.{query_id}.KsqlTopic.Sink.serializer", msg)
