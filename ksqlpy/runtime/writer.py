"""Serializing a pipeline's output rows and producing them to the sink topic."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ksqlpy.log.base import LogTransaction, ProducerRecord
from ksqlpy.log.partitioner import key_hash
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.serde.base import SinkSchemaError


class SinkSerializationFailed(RuntimeError):
    """The query stops: a sink record could not be serialized with the sink's registered schema."""


class SinkWriter:
    """Writes ``(key_tuple, value_tuple | None, timestamp)`` rows (or windowed keys) to one topic."""

    def __init__(self, topic: str, key_serde: Any, value_serde: Any, plog: ProcessingLog, query_id: str,
                 *, windowed: bool = False, keyless: bool = False,
                 timestamp_from: tuple[int, int] | None = None, timestamp_parser: Any = None,
                 partitions: int = 1) -> None:
        self.topic = topic
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.plog = plog
        self.query_id = query_id
        self.windowed = windowed
        self.keyless = keyless
        # TIMESTAMP='col' on the sink: (0 = key group | 1 = value group, index) supplies each record's time
        self.ts_index = timestamp_from
        self.ts_parse = timestamp_parser
        # A windowed record goes to the partition of its base key, as Kafka Streams' WindowedStreamPartitioner
        # places it (all windows of a key together), not by the hash of the windowed key bytes.
        self.by_base_key = windowed and not keyless and partitions > 1
        self.partitions = partitions
        self.written = 0  # records produced (the query's produced-records metric)

    def _timestamp(self, key: Any, value: tuple) -> int:
        group, i = self.ts_index  # type: ignore[misc]
        v = (key[0] if self.windowed else key)[i] if group == 0 else value[i]
        if self.ts_parse is not None and v is not None:
            v = self.ts_parse(v)
        if v is None or v < 0:
            raise ValueError(f"timestamp is {v}")
        return int(v)

    def _serialization_failed(self, target: str, e: Exception) -> None:
        """Log a record the sink serde refused; a row its registered schema cannot hold fails the query,
        as ksqlDB's serializer exception does (Kafka Streams' "Unable to serialize record")."""
        self.plog.serialization_error(self.query_id, target, e, self.topic)
        if isinstance(e, SinkSchemaError):
            raise SinkSerializationFailed(
                f"Exception caught in process. topic={self.topic}: Unable to serialize record "
                f"({target}): Error serializing message to topic: {self.topic}. {e}") from e

    def _partition_of(self, base: bytes | None) -> int:
        return key_hash(base or b"") % self.partitions

    def _produce_by_base_key(self, tx: LogTransaction, bases: list[bytes | None], kbs: list[bytes | None],
                             vbs: list[bytes | None], tss: Any, hdrs: Any) -> None:
        """One columnar produce per partition, records of a partition in their order: one hash per
        distinct base key, then a stable sort of the record indices by partition (C-level maps and sort,
        no per-record bytecode)."""
        memo = {b: self._partition_of(b) for b in set(bases)}
        ps = list(map(memo.__getitem__, bases))
        topic = self.topic
        if len(set(memo.values())) == 1:
            tx.produce_batch(topic, ps[0], kbs, vbs, tss, hdrs)
            return
        order = sorted(range(len(ps)), key=ps.__getitem__)  # stable: a partition's records keep their order
        counts = Counter(ps)
        start = 0
        for p in sorted(counts):
            idx = order[start:start + counts[p]]
            start += counts[p]
            tx.produce_batch(topic, p, list(map(kbs.__getitem__, idx)), list(map(vbs.__getitem__, idx)),
                             list(map(tss.__getitem__, idx)), None if hdrs is None else list(map(hdrs.__getitem__, idx)))

    def encode(self, rows: list[tuple]) -> list[ProducerRecord]:
        out: list[ProducerRecord] = []
        ks, vs, topic = self.key_serde, self.value_serde, self.topic
        for row in rows:
            key, value, ts = row[0], row[1], row[2]
            headers = row[3] if len(row) > 3 else None
            partition = None
            if self.ts_index is not None and value is not None:
                try:
                    ts = self._timestamp(key, value)
                except Exception as e:  # noqa: BLE001
                    self.plog.record_error(self.query_id, f"Invalid timestamp for the sink: {e}", value)
                    continue
            try:
                if self.keyless or key is None:  # (None: a null Kafka key, kept from the input record)
                    kb = None
                elif self.windowed:
                    kb = ks.serialize(key[0], key[1], key[2])
                    if self.by_base_key:
                        partition = self._partition_of(ks.inner.serialize(key[0]))
                else:
                    kb = ks.serialize(key)
            except Exception as e:  # noqa: BLE001 - a bad record is skipped, unless the schema rules it out
                self._serialization_failed("key", e)
                continue
            try:
                vb = None if value is None else vs.serialize(value)
            except Exception as e:  # noqa: BLE001
                self._serialization_failed("value", e)
                continue
            out.append(ProducerRecord(topic, kb, vb, ts, headers or None, partition))
        return out

    def write(self, tx: LogTransaction, rows: list[tuple]) -> int:
        """Serialize and produce ``rows``; returns how many records were written.

        Common case (no TIMESTAMP column on the sink): one ``serialize_batch`` per column
        and one columnar ``produce_batch``. A batch with a record that fails to serialize (or any
        other case) goes record by record through ``encode``, which reports the bad ones.
        """
        if self.ts_index is None:
            try:
                cols = list(zip(*rows, strict=False))  # transposed in one C call: keys, values, timestamps(, headers)
                if not self.keyless and None in cols[0]:
                    raise LookupError("null keys: record by record")
                bases = None
                if self.keyless:
                    kbs = [None] * len(rows)
                elif self.by_base_key:
                    kbs, bases = self.key_serde.serialize_batch_with_base(cols[0])
                else:
                    kbs = self.key_serde.serialize_batch(cols[0])
                vbs = self.value_serde.serialize_batch(cols[1])
            except Exception:  # noqa: BLE001 - the per-record path below reports the bad record
                pass
            else:
                # (zip stops at the shortest row: the headers column is there only if every row has one)
                hdrs = cols[3] if len(cols) > 3 else [r[3] if len(r) > 3 else None for r in rows]
                if bases is None:
                    tx.produce_batch(self.topic, None, kbs, vbs, cols[2], hdrs if any(hdrs) else None)
                else:
                    self._produce_by_base_key(tx, bases, kbs, vbs, cols[2], hdrs if any(hdrs) else None)
                self.written += len(rows)
                return len(rows)
        records = self.encode(rows)
        tx.produce_many(records)
        self.written += len(records)
        return len(records)
