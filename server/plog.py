"""The processing log as a topic and a stream: the engine's (ksqlpy.engine.processing_log), named here for the
server's modules."""

from __future__ import annotations

from ksqlpy.engine.processing_log import (
    FLUSH_S,
    STREAM_COLUMNS,
    TopicSink,
    create_stream_sql,
    open_processing_log,
    topic_name,
)

__all__ = ["FLUSH_S", "STREAM_COLUMNS", "TopicSink", "create_stream_sql", "open_processing_log", "topic_name"]
