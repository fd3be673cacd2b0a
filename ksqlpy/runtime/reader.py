"""Turning a fetched RecordBatch into the column tuples a pipeline consumes.

Deserialization and timestamp extraction happen here, once per batch; a record that cannot be read
goes to the processing log and is skipped, never stopping the query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlRuntimeError
from ksqlpy.functions import javatime
from ksqlpy.log.base import RecordBatch
from ksqlpy.plan.column_rows import ColumnRows
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.types import TIMESTAMP

_EMPTY = ((),)


@dataclass
class DecodedBatch:
    """Parallel lists of the records that survived decoding."""

    rows: list[tuple]
    timestamps: list[int]
    partitions: list[int]
    offsets: list[int]
    headers: list[Any]
    tombstones: list[bool]
    # indices (ascending) of the records whose Kafka key is null (absent), as opposed to a key whose columns
    # are all NULL: their key columns read NULL, and a query that keeps the key writes it back as null
    null_keys: list[int] = field(default_factory=list)
    # a table join's changes: per record its key's previous joined row (None: none), which a GROUP BY over
    # the join takes back (``group_by.Grouper``); None when the batch carries no previous rows
    olds: list[tuple | None] | None = None


class SourceReader:
    """Decodes batches of one source's topic into row tuples in the source's input-schema order
    (key columns, value columns, header columns, then WINDOWSTART/WINDOWEND for windowed sources)."""

    def __init__(self, source: Source, key_serde: Any, value_serde: Any, plog: ProcessingLog, query_id: str,
                 *, keep_tombstones: bool, throw_on_invalid_timestamp: bool = False,
                 fail_on_deserialization: bool = False) -> None:
        self.source = source
        # ksql.fail.on.deserialization.error: a record that cannot be read stops the query once logged
        self.fail_on_deserialization = fail_on_deserialization
        # ksql.timestamp.throw.on.invalid: a timestamp that cannot be extracted stops the query (as Kafka
        # Streams' fatal TimestampExtractor error) instead of logging and skipping the record
        self.throw_on_invalid_timestamp = throw_on_invalid_timestamp
        self.key_serde = key_serde
        self.value_serde = value_serde
        self.plog = plog
        self.query_id = query_id
        self.keep_tombstones = keep_tombstones
        self.n_keys = len(source.key_columns)
        self.n_values = len(source.value_columns)
        self.header_cols = source.header_columns
        self.windowed = source.windowed is not None
        self.is_table = source.kind == "TABLE"
        self.ts_index: int | None = None  # row index of a BIGINT/TIMESTAMP timestamp column (fast path)
        self.ts_extract = self._timestamp_extractor()
        # the consumer reads whole columns (a stage without a per-record loop): batches whose every value
        # the serde decodes into structs are handed over as ``ColumnRows``, row tuples built only if read
        self.columnar = False

    def _timestamp_extractor(self) -> Callable[[tuple], int | None] | None:
        col = self.source.timestamp_column
        if not col:
            return None
        names = [c.name for c in self.source.key_columns] + [c.name for c in self.source.value_columns]
        if col not in names:
            return None
        idx = names.index(col)
        ctype = (self.source.key_columns + self.source.value_columns)[idx].type
        fmt = self.source.timestamp_format
        if fmt:
            parse = javatime.timestamp_parser(fmt)

            def from_string(row: tuple) -> int | None:
                v = row[idx]
                return None if v is None else parse(v)

            return from_string
        if ctype == TIMESTAMP or ctype.name == "BIGINT":
            self.ts_index = idx
            self.ts_get = itemgetter(idx)
            return lambda row: row[idx]
        return None

    def decode(self, batch: RecordBatch) -> DecodedBatch:
        """The batch's readable records as row tuples (bad ones go to the processing log).

        One ``deserialize_batch`` call per column of the batch, then - in the common case of no bad
        record, no tombstone, no null key, no headers and no window - the rows are assembled with
        C-level list operations. Anything else takes the per-record path, with identical results.
        """
        ks, vs = self.key_serde, self.value_serde
        try:
            keys, kerr = ks.deserialize_batch(batch.keys)
            if self.columnar and self.columns_apply(keys, kerr):
                columnar = self._decode_columns(batch, keys)
                if columnar is not None:
                    return columnar
            values, verr = vs.deserialize_batch(batch.values)
        except Exception:  # noqa: BLE001 - a serde raised past its batch API: per-record path reports it
            return self._decode_records(batch, None, None)
        nk = self.n_keys
        # ``all(rows)`` is ``None not in rows`` for non-empty tuples, without a rich comparison per row
        # (~5 ns a row against ~30); a None key is a null Kafka key
        if (kerr or verr or self.windowed or self.header_cols
                or (not all(values) if self.n_values else None in values)
                or (nk and not all(keys))):
            return self._decode_records(batch, keys, values, {i for i, _ in kerr}, {i for i, _ in verr})
        n = len(values)
        try:
            # tuple.__add__ also checks that every key and value is a tuple (else: per-record path)
            rows = list(map(tuple.__add__, keys, values)) if nk else list(map(tuple.__add__, values, _EMPTY * n))
        except TypeError:
            return self._decode_records(batch, keys, values, (), ())
        if self.ts_index is not None:
            tss = list(map(self.ts_get, rows))
            try:
                bad = min(tss) < 0  # (BIGINT and TIMESTAMP columns read as int; a None raises TypeError)
            except TypeError:
                bad = True
            if bad:
                return self._decode_records(batch, keys, values, (), ())
        elif self.ts_extract is not None:
            return self._decode_records(batch, keys, values, (), ())
        else:
            tss = batch.timestamps
        return DecodedBatch(rows, tss, [batch.partition] * n, batch.offsets, batch.headers, [False] * n)

    def columns_apply(self, keys: list, kerr: list) -> bool:
        """Whether the batch may be read as columns: every key read and present, no window or header
        columns, no timestamp but a BIGINT/TIMESTAMP column's (anything else: the row path decides)."""
        return not (kerr or self.windowed or self.header_cols
                    or (self.ts_extract is not None and self.ts_index is None)
                    or (self.n_keys and not all(keys)))

    def _decode_columns(self, batch: RecordBatch, keys: list) -> DecodedBatch | None:
        """The batch as ``ColumnRows`` when the value serde reads every record exactly as its row reader
        would - JSON into structs (``json_fast``: a plain object of the columns' primitive types, nothing to
        coerce, no tombstone), DELIMITED into columns (no quoting, every field parsed); None: decode it as
        rows."""
        vs = self.value_serde
        structs_of = getattr(vs, "deserialize_structs", None)  # JSON
        columns_of = getattr(vs, "deserialize_columns", None)  # DELIMITED
        if structs_of is not None:
            structs = structs_of(batch.values)
            rows = None if structs is None else ColumnRows(keys if self.n_keys else None, self.n_keys, structs)
        elif columns_of is not None:
            columns = columns_of(batch.values)
            rows = (None if columns is None
                    else ColumnRows(keys if self.n_keys else None, self.n_keys, value_columns=columns))
        else:
            return None
        if rows is None:
            return None
        n = len(rows)
        if self.ts_index is not None:
            tss = rows.column(self.ts_index)
            try:
                if min(tss) < 0:  # (a None raises TypeError)
                    return None
            except TypeError:
                return None
        else:
            tss = batch.timestamps
        return DecodedBatch(rows, tss, [batch.partition] * n, batch.offsets, batch.headers,  # type: ignore[arg-type]
                            [False] * n)

    def _decode_records(self, batch: RecordBatch, keys: list | None, values: list | None,
                        kbad: set[int] | tuple = (), vbad: set[int] | tuple = ()) -> DecodedBatch:
        """Record by record: ``keys``/``values`` are the batch-decoded columns (None: decode here),
        ``kbad``/``vbad`` the indices whose decoding failed (decoded again here for the error)."""
        out = DecodedBatch([], [], [], [], [], [])
        ks, vs = self.key_serde, self.value_serde
        for i in range(len(batch.offsets)):
            kb, vb = batch.keys[i], batch.values[i]
            try:
                key = ks.deserialize(kb) if keys is None or i in kbad else keys[i]
            except Exception as e:  # noqa: BLE001 - bad records go to the processing log
                self.plog.deserialization_error(self.query_id, "key", e, kb, batch.topic, getattr(ks, "format", None))
                if self.fail_on_deserialization:
                    raise KsqlRuntimeError(_FAIL_ON_DESERIALIZATION) from e
                continue
            if vb is None:
                value = None
            else:
                try:
                    value = vs.deserialize(vb) if values is None or i in vbad else values[i]
                except Exception as e:  # noqa: BLE001
                    self.plog.deserialization_error(self.query_id, "value", e, vb, batch.topic,
                                                    getattr(vs, "format", None))
                    if self.fail_on_deserialization:
                        raise KsqlRuntimeError(_FAIL_ON_DESERIALIZATION) from e
                    continue
            if self.windowed:
                key, ws, we = key if key is not None else (None, None, None)
            null_key = key is None and self.n_keys > 0
            if null_key:
                if self.is_table:
                    continue  # a table ignores records without a key (a key of NULL columns is a key)
                key = (None,) * self.n_keys
            tomb = value is None
            if tomb:
                if not self.keep_tombstones:
                    continue
                value = (None,) * self.n_values
            row = tuple(key) + tuple(value)
            if self.header_cols:
                row += tuple(self._header_values(batch.headers[i]))
            if self.windowed:
                row += (ws, we)
            ts = batch.timestamps[i]
            if self.ts_extract is not None and not tomb:
                try:
                    ts = self.ts_extract(row)
                except Exception as e:  # noqa: BLE001
                    if self.throw_on_invalid_timestamp:
                        raise KsqlRuntimeError(_fatal_timestamp(batch, i, e)) from e
                    self.plog.record_error(self.query_id, _NO_TIMESTAMP, row, cause=[str(e)])
                    continue
                if ts is None or ts < 0:
                    if self.throw_on_invalid_timestamp:
                        raise KsqlRuntimeError(_fatal_timestamp(batch, i, f"invalid timestamp {ts}"))
                    if ts is None:  # ksqlDB's extractor fails on a NULL column (logged); Kafka Streams drops a
                        # negative timestamp without an entry
                        self.plog.record_error(self.query_id, _NO_TIMESTAMP, row,
                                               cause=["Timestamp column value is null"])
                    continue
            if null_key:
                out.null_keys.append(len(out.rows))
            out.rows.append(row)
            out.timestamps.append(ts)
            out.partitions.append(batch.partition)
            out.offsets.append(batch.offsets[i])
            out.headers.append(batch.headers[i])
            out.tombstones.append(tomb)
        return out

    def _header_values(self, headers: Any) -> list[Any]:
        vals = []
        for c in self.header_cols:
            if c.headers:
                vals.append([{"KEY": k, "VALUE": v} for k, v in (headers or [])])
            else:
                found = None
                for k, v in headers or []:
                    if k == c.header_key:
                        found = v
                vals.append(found)
        return vals


# ksqlDB's LoggingTimestampExtractor
_NO_TIMESTAMP = "Failed to extract timestamp from row"

# Kafka Streams' RecordDeserializer when its handler says FAIL
_FAIL_ON_DESERIALIZATION = ("Deserialization exception handler is set to fail upon a deserialization error. If you "
                            "would rather have the streaming pipeline continue after a deserialization error, please "
                            "set the default.deserialization.exception.handler appropriately.")


def _fatal_timestamp(batch: RecordBatch, i: int, cause: object) -> str:
    """Kafka Streams' wording for a timestamp extractor that failed with throw-on-invalid set."""
    return (f"Fatal user code error in TimestampExtractor callback for record {{topic={batch.topic}, "
            f"partition={batch.partition}, offset={batch.offsets[i]}}}: {cause}")
