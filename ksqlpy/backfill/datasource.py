"""A Spark Python DataSource over ksqlpy log partitions: ``spark.read.format("ksqlpy-log")``.

Each Spark input partition is one log partition's offset range ``[start, end)``, read in offset order
through the ``Log`` interface (EmbeddedLog by its directory, KafkaLog by its bootstrap servers: whatever
``ksqlpy.log.open_log`` opens from the ``log`` option), as Arrow batches of raw records:

    partition INT, offset BIGINT, timestamp BIGINT, key BINARY, value BINARY, headers BINARY

Decoding happens in the next stage with the source's serdes (``ksqlpy.backfill.stages``), because a bad
record must go to the processing log, not fail the read. ``headers`` is the record's header list pickled
(NULL when it has none). One range per partition keeps a partition's records in one task, in order: the
streaming runtime's stream time is a running max in offset order, which the stages reproduce.

Options: ``log`` (JSON: the log config), ``topic``, ``ranges`` (JSON ``{partition: [start, end]}``),
``batch`` (records per Arrow batch, default 10000).
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import BinaryType, IntegerType, LongType, StructField, StructType

NAME = "ksqlpy-log"

SCHEMA = StructType([
    StructField("partition", IntegerType(), False),
    StructField("offset", LongType(), False),
    StructField("timestamp", LongType(), False),
    StructField("key", BinaryType(), True),
    StructField("value", BinaryType(), True),
    StructField("headers", BinaryType(), True),
])

ARROW_SCHEMA = pa.schema([
    pa.field("partition", pa.int32(), False),
    pa.field("offset", pa.int64(), False),
    pa.field("timestamp", pa.int64(), False),
    pa.field("key", pa.binary()),
    pa.field("value", pa.binary()),
    pa.field("headers", pa.binary()),
])


class OffsetRange(InputPartition):
    def __init__(self, partition: int, start: int, end: int) -> None:
        super().__init__((partition, start, end))
        self.partition = partition
        self.start = start
        self.end = end


class LogDataSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return LogReader(dict(self.options))


class LogReader(DataSourceReader):
    def __init__(self, options: dict[str, str]) -> None:
        self.config: dict[str, Any] = json.loads(options["log"])
        self.topic = options["topic"]
        self.ranges = {int(p): (int(r[0]), int(r[1])) for p, r in json.loads(options["ranges"]).items()}
        self.batch = int(options.get("batch", 10000))

    def partitions(self) -> list[InputPartition]:
        return [OffsetRange(p, s, e) for p, (s, e) in sorted(self.ranges.items())]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, OffsetRange)
        yield from read_range(self.config, self.topic, partition.partition, partition.start, partition.end,
                              self.batch)


def read_range(config: dict[str, Any], topic: str, partition: int, start: int, end: int,
               batch: int = 10000) -> Iterator[pa.RecordBatch]:
    """Records ``[start, end)`` of one partition as Arrow batches, in offset order."""
    from ksqlpy.log import open_log

    log = open_log(config)
    try:
        offset = start
        while offset < end:
            b = log.fetch(topic, partition, offset, min(batch, end - offset))
            if not b.offsets:  # a gap (compaction, transaction markers on Kafka) up to the end: done
                break
            n = len(b.offsets)
            if b.offsets[-1] >= end:
                n = sum(1 for o in b.offsets if o < end)
            dumps = pickle.dumps
            headers = [dumps(h, pickle.HIGHEST_PROTOCOL) if h else None for h in b.headers[:n]]
            yield pa.RecordBatch.from_arrays([
                pa.array([partition] * n, pa.int32()),
                pa.array(b.offsets[:n], pa.int64()),
                pa.array(b.timestamps[:n], pa.int64()),
                pa.array(b.keys[:n], pa.binary()),
                pa.array(b.values[:n], pa.binary()),
                pa.array(headers, pa.binary()),
            ], schema=ARROW_SCHEMA)
            if n < len(b.offsets) or not n:
                break
            offset = b.offsets[n - 1] + 1
    finally:
        log.close()


def register(spark: Any) -> None:
    """Make ``format("ksqlpy-log")`` known to ``spark`` (idempotent)."""
    spark.dataSource.register(LogDataSource)
