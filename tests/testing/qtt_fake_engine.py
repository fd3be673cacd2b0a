"""A tiny stand-in for ``ksqlpy.engine.Engine`` so the runner can be tested on its own.

It understands just enough SQL for the runner's tests:

- ``CREATE STREAM|TABLE N (cols) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', KEY_FORMAT=..., PARTITIONS=n,
  WINDOW_TYPE=..., WINDOW_SIZE=n)`` registers a source (the topic must exist unless PARTITIONS is given);
- ``CREATE STREAM|TABLE N [WITH (PARTITIONS=n)] AS SELECT * FROM S;`` starts a copy query: JSON values
  have their field names upper-cased (as ksqlDB's sink schema does), other bytes are copied as they are;
- statements starting with ``BOOM`` fail to parse, ``FAIL`` fails as a statement, ``NEEDS`` raises an
  ``Unsupported:`` error (a failure like any other); a JSON input value with field ``explode`` fails processing, one with field
  ``complain`` is written to the processing log (``plog.entries``) and skipped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ksqlpy.catalog import Catalog, Column, Source, WindowInfo
from ksqlpy.errors import KsqlParseError, KsqlRuntimeError, KsqlStatementError
from ksqlpy.log.base import ProducerRecord
from ksqlpy.log.embedded import EmbeddedLog
from ksqlpy.testing.schema import parse_schema

_CREATE = re.compile(r"^\s*CREATE\s+(STREAM|TABLE)\s+(\w+)\s*(?:\((.*?)\))?\s*(?:WITH\s*\((.*?)\))?\s*"
                     r"(?:AS\s+SELECT\s+\*\s+FROM\s+(\w+))?\s*;?\s*$", re.IGNORECASE | re.DOTALL)


class FakeEngine:
    def __init__(self, data_dir: str, properties: dict[str, Any] | None = None) -> None:
        self.properties = dict(properties or {})
        self.log = EmbeddedLog(data_dir + "/log")
        self.catalog = Catalog()
        self.queries: list[tuple[Source, Source, dict[int, int]]] = []  # (from, to, next offset per partition)
        self.drains = 0
        self.plog = _Plog()
        self.executed: list[str] = []

    def execute(self, sql: str) -> list[Any]:
        self.executed.append(sql)
        head = sql.strip().upper()
        if head.startswith("BOOM"):
            line = 1 + len(sql) - len(sql.lstrip("\n")) if sql.startswith("\n") else 1
            raise KsqlParseError("mismatched input 'BOOM' expecting CREATE", line=line, column=1)
        if head.startswith("FAIL"):
            raise KsqlStatementError("Statement failed on purpose")
        if head.startswith("NEEDS"):
            raise KsqlStatementError("Unsupported: a feature the fake does not have")
        m = _CREATE.match(sql)
        if not m:
            raise KsqlParseError(f"cannot parse {sql!r}", line=1, column=1)
        kind, name, cols, with_clause, from_name = m.groups()
        props = {k.upper(): v.strip("'") for k, v in re.findall(r"(\w+)\s*=\s*('[^']*'|\d+)", with_clause or "")}
        partitions = int(props["PARTITIONS"]) if "PARTITIONS" in props else None
        if from_name:
            src = self.catalog.require(from_name.upper())
            topic = props.get("KAFKA_TOPIC", name.upper())
            sink = Source(name.upper(), kind.upper(), topic, list(src.columns), key_format=src.key_format,
                          value_format=src.value_format, windowed=src.windowed,
                          created_by_query=f"Q_{name.upper()}")
            if not self.log.topic_exists(topic):
                self.log.create_topic(topic, partitions or 1)
            self.catalog.add_source(sink)
            self.queries.append((src, sink, {}))
            return []
        topic = props.get("KAFKA_TOPIC", name.upper())
        if not self.log.topic_exists(topic):
            if partitions is None:
                raise KsqlStatementError(f"Kafka topic does not exist: {topic}")
            self.log.create_topic(topic, partitions)
        columns = [Column(c.name, c.type, key=c.key) for c in parse_schema(cols or "")]
        window = None
        if "WINDOW_TYPE" in props:
            size = props.get("WINDOW_SIZE")
            window = WindowInfo(props["WINDOW_TYPE"].upper(), int(size) if size else None)
        self.catalog.add_source(Source(name.upper(), kind.upper(), topic, columns,
                                       key_format=props.get("KEY_FORMAT", "KAFKA").upper(),
                                       value_format=props.get("VALUE_FORMAT", "JSON").upper(), windowed=window))
        return []

    def drain(self, timeout_s: float = 10.0) -> None:
        self.drains += 1
        for src, sink, positions in self.queries:
            info = self.log.describe_topic(src.topic)
            assert info is not None
            for p in range(info.partitions):
                offset = positions.get(p, 0)
                batch = self.log.fetch(src.topic, p, offset, 10000)
                for i in range(len(batch)):
                    value = batch.values[i]
                    if value is not None and src.value_format == "JSON":
                        doc = json.loads(value)
                        if isinstance(doc, dict):
                            if "explode" in doc:
                                raise KsqlRuntimeError("Exception caught in process: value exploded")
                            if "complain" in doc:
                                self.plog.entries.append(
                                    {"message": {"recordProcessingError": {"errorMessage": "value complained"}}})
                                continue
                            value = json.dumps({k.upper(): v for k, v in doc.items()}).encode()
                    self.log.produce(ProducerRecord(sink.topic, batch.keys[i], value, batch.timestamps[i],
                                                    batch.headers[i], partition=p))
                if len(batch):
                    positions[p] = batch.next_offset

    def close(self) -> None:
        self.log.close()


class _Plog:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []


def factory(data_dir: str, properties: dict[str, Any]) -> FakeEngine:
    return FakeEngine(data_dir, properties)
