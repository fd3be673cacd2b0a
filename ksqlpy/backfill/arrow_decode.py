"""A log batch decoded straight into Arrow columns, for the native tier's first stage.

The streaming reader (``runtime.reader.SourceReader``) turns every record into a row tuple, and the
grouping pipeline then builds a group key and arguments per record: Python objects per record that the
native tier only converts into Arrow columns again. ``ArrowDecoder`` reads a batch's raw bytes into the
columns in C instead - pyarrow's JSON reader over the values joined by newlines, numpy over the fixed-size
KAFKA keys - and answers only when it can prove every column identical to what the streaming reader and
the grouping pipeline would give; otherwise it returns None and the caller decodes the batch the usual
way (with its coercions and processing-log entries). The proof is by construction, as ``serde.json_fast``
makes it:

* the query's grouping reads plain columns only: no WHERE, one group key column and aggregate arguments
  that are columns of the source (key or value), the record's own timestamp (no ``TIMESTAMP`` column), no header
  columns, a source that is not windowed;
* the value is wrapped JSON whose columns are BOOLEAN, INT, BIGINT or STRING - exactly the types for which
  pyarrow's typed reader accepts the same JSON values the streaming reader passes through unchanged
  (``true``/``false``; integers within 32/64 bits; strings) and refuses everything it would coerce (a
  string for a number, a fraction, an exponent, an overflow, a number for a string) or reject;
* every column is in the schema under one spelling of the object keys (``json_fast.key_layouts``: the
  column names or their lower-case forms, which ksqlDB's case-insensitive lookup maps column by column);
  any other key (``"Price"`` next to ``"price"``, an unknown field) and a repeated key fail the batch;
* the strings are valid UTF-8 (pyarrow's reader does not check it: the columns are validated when the
  batch is not pure ASCII);
* each value is one line that starts with ``{`` (a raw newline, a tombstone, an empty or non-object value -
  ``null`` even crashes pyarrow's reader - fails the batch before the reader sees it), and the reader
  returns one row per record;
* the key is KAFKA: BIGINT or INT of exactly 8 or 4 bytes each, STRING valid UTF-8 (the streaming reader
  replaces invalid bytes; pyarrow's cast refuses them), or no key column; no record has a null key or
  headers, none a negative timestamp, and no group key column is NULL (the streaming grouper logs those).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pj

from ksqlpy.expr import bound as B
from ksqlpy.log.base import RecordBatch
from ksqlpy.log.embedded import RawBatch
from ksqlpy.log.record_codec import HEADER_SIZE
from ksqlpy.plan.logical import ColumnRole
from ksqlpy.plan.topology import GroupStage
from ksqlpy.serde.base import ValueKeySerde
from ksqlpy.serde.json_fast import key_layouts
from ksqlpy.serde.json_format import JsonValueSerde
from ksqlpy.serde.kafka_format import KafkaValueSerde
from ksqlpy.types import Primitive

_ARROW = {"BOOLEAN": pa.bool_(), "INTEGER": pa.int32(), "BIGINT": pa.int64(), "STRING": pa.string()}
# KAFKA's INT and BIGINT keys: big-endian on the wire, read into native-order numpy arrays
_KEY_WIDTH = {"INTEGER": (np.dtype(">i4"), np.int32), "BIGINT": (np.dtype(">i8"), np.int64)}
# a line of the joined values that does not start or end an object, or a carriage return (a line break too)
_NOT_OBJECT_LINE = re.compile(rb"\n[^{]|[^}]\n|\r")
_HEAD = np.arange(HEADER_SIZE)
_OPEN, _CLOSE, _SPACE, _NEWLINE = ord("{"), ord("}"), ord(" "), ord("\n")
_READ = pj.ReadOptions(use_threads=False, block_size=1 << 30)  # (one block: the batch is already in memory)


@dataclass(frozen=True)
class Decoded:
    """A batch's group key and aggregate argument columns (Arrow) and its timestamps (numpy)."""

    keys: list[pa.Array]
    args: list[pa.Array]
    timestamps: np.ndarray


class ArrowDecoder:
    """``decoder(batch) -> Decoded | None``; build one with ``ArrowDecoder.of`` (None: never applies)."""

    def __init__(self, key_type: str | None, layouts: list[pa.Schema], keys: list[int], args: list[int],
                 n_keys: int) -> None:
        self.key_type = key_type  # the KAFKA key column's type, or None for a source without key columns
        self.layouts = layouts  # the value's explicit schemas, one per spelling of the object keys
        self.keys = keys  # source column index of each group key column
        self.args = args  # source column index of each aggregate argument
        self.n_keys = n_keys
        self.batches = 0  # batches decoded here / handed back (for tests and profiles)
        self.refused = 0

    @classmethod
    def of(cls, group: GroupStage, source: Any, key_serde: Any, value_serde: Any) -> ArrowDecoder | None:
        """The decoder for a grouping stage over ``source``, or None when its shape is not covered."""
        if group.table or group.where is not None or source.windowed is not None or source.header_columns:
            return None
        if source.timestamp_column:
            return None
        n_keys, n_values = len(source.key_columns), len(source.value_columns)
        carried = [c for c in group.input_schema.columns if c.role is not ColumnRole.SYSTEM]
        if len(carried) != n_keys + n_values:
            return None
        position = {id(c): i for i, c in enumerate(carried)}

        def column(expr: Any) -> int | None:
            if not isinstance(expr, B.ColumnRef) or not 0 <= expr.index < len(group.input_schema.columns):
                return None
            return position.get(id(group.input_schema.columns[expr.index]))

        keys = [column(c.expr) for c in group.keys]
        args = [column(c.expr) for c in group.args]
        if len(keys) != 1 or None in keys or None in args:  # (a composite key crosses as its encoded bytes)
            return None
        key_type: str | None = None
        if n_keys:
            inner = key_serde._inner if isinstance(key_serde, ValueKeySerde) else key_serde
            if not isinstance(inner, KafkaValueSerde) or n_keys != 1:
                return None
            key_type = source.key_columns[0].type.name
            if key_type not in _KEY_WIDTH and key_type != "STRING":
                return None
        if not isinstance(value_serde, JsonValueSerde) or not value_serde.wrap or not n_values:
            return None
        columns = [(c.name, c.type) for c in source.value_columns]
        if any(not isinstance(t, Primitive) or t.name not in _ARROW for _, t in columns):
            return None
        layouts = [pa.schema([(k, _ARROW[t.name]) for k, (_, t) in zip(names, columns, strict=True)])
                   for names in key_layouts([n for n, _ in columns])]
        if not layouts:
            return None
        return cls(key_type, layouts, keys, args, n_keys)  # type: ignore[arg-type]

    def __call__(self, batch: RecordBatch | RawBatch) -> Decoded | None:
        got = self._decode(batch) if isinstance(batch, RecordBatch) else self._raw(batch)
        if got is None:
            self.refused += 1
        else:
            self.batches += 1
        return got

    def _decode(self, batch: RecordBatch) -> Decoded | None:
        n = len(batch.offsets)
        if not n or batch.headers.count(None) != n:
            return None
        ts = np.fromiter(batch.timestamps, np.int64, n)
        if ts.min() < 0:
            return None
        key_col = self._key(batch.keys, n)
        if key_col is None and self.n_keys:
            return None
        values = self._values(batch.values, n)
        if values is None:
            return None
        cols = ([key_col] if self.n_keys else []) + values
        keys = [cols[i] for i in self.keys]
        if any(k.null_count for k in keys):
            return None
        return Decoded(keys, [cols[i] for i in self.args], ts)

    def _raw(self, batch: RawBatch) -> Decoded | None:
        """A batch as the embedded log stores it, without a Python object per record: numpy reads each
        record's header (``record_codec``: timestamp, key and value lengths, header count) and key, and
        blanks the header and key bytes between the values - a newline, then spaces, which JSON reads as
        whitespace - so the chunk's own bytes become the newline-delimited values pyarrow reads. Only
        fixed-size KAFKA keys (INT, BIGINT), records without headers and with a value."""
        width = _KEY_WIDTH.get(self.key_type or "")
        if width is None or not batch.count:
            return None
        big, native = width
        skip = HEADER_SIZE + big.itemsize  # (record header, key) before each value
        keys, tss, texts = [], [], []
        for data, positions in batch.segments:
            pos = np.frombuffer(positions, np.uint32).astype(np.int64)
            pos -= pos[0]
            starts, ends = pos[:-1], pos[1:]
            buf = np.frombuffer(data, np.uint8).copy()
            head = buf[starts[:, None] + _HEAD]
            kl = head[:, 8:12].copy().view("<i4").ravel()
            vl = head[:, 12:16].copy().view("<i4").ravel()
            hc = head[:, 16:18].copy().view("<u2").ravel()
            if ((kl != big.itemsize).any() or hc.any() or (vl < 2).any() or (vl != ends - starts - skip).any()
                    or (buf[starts + skip] != _OPEN).any() or (buf[ends - 1] != _CLOSE).any()):
                return None  # (a tombstone, a value too short for an object, headers: the streaming reader)
            tss.append(head[:, 0:8].copy().view("<i8").ravel())
            keys.append(buf[starts[:, None] + np.arange(HEADER_SIZE, skip)].copy().view(big).ravel())
            buf[starts[:, None] + np.arange(skip)] = _SPACE
            buf[starts] = _NEWLINE
            texts.append(buf[skip:].tobytes() if not texts else buf.tobytes())
        ts = np.concatenate(tss)
        if ts.min() < 0:
            return None
        joined = b"".join(texts)
        n = batch.count
        if joined.count(b"\n") != n - 1 or b"\r" in joined:  # (a raw newline inside a value: not one per line)
            return None
        values = self._parse(joined, n)
        if values is None:
            return None
        cols = [pa.array(np.concatenate(keys).astype(native))] + values
        group = [cols[i] for i in self.keys]
        if any(k.null_count for k in group):
            return None
        return Decoded(group, [cols[i] for i in self.args], ts)

    def _key(self, keys: list[bytes | None], n: int) -> pa.Array | None:
        if not self.n_keys:
            return None
        try:
            joined = b"".join(keys)  # type: ignore[arg-type]  # (a null key raises TypeError)
        except TypeError:
            return None
        width = _KEY_WIDTH.get(self.key_type or "")
        if width is not None:
            big, native = width
            if len(joined) != n * big.itemsize or set(map(len, keys)) != {big.itemsize}:  # type: ignore[arg-type]
                return None
            return pa.array(np.frombuffer(joined, big).astype(native))
        try:
            return pa.array(keys, pa.binary()).cast(pa.string())  # (invalid UTF-8 raises)
        except (pa.ArrowInvalid, TypeError):
            return None

    def _values(self, values: list[bytes | None], n: int) -> list[pa.Array] | None:
        try:
            joined = b"\n".join(values)  # type: ignore[arg-type]  # (a tombstone raises TypeError)
        except TypeError:
            return None
        if joined[:1] != b"{" or joined[-1:] != b"}" or joined.count(b"\n") != n - 1 or _NOT_OBJECT_LINE.search(joined):
            return None
        return self._parse(joined, n)

    def _parse(self, joined: bytes, n: int) -> list[pa.Array] | None:
        """The value columns of ``n`` newline-delimited JSON objects (each line checked to hold one)."""
        for j, schema in enumerate(self.layouts):
            try:
                table = pj.read_json(pa.BufferReader(joined), read_options=_READ,
                                     parse_options=pj.ParseOptions(explicit_schema=schema,
                                                                   unexpected_field_behavior="error"))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
                continue
            if table.num_rows != n:
                return None
            columns = [c.combine_chunks() for c in table.columns]
            if not joined.isascii():  # pyarrow's reader passes invalid UTF-8 through; the streaming one refuses it
                try:
                    for c in columns:
                        if c.type == pa.string():
                            c.validate(full=True)
                except pa.ArrowInvalid:
                    return None
            if j:  # this spelling first from now on
                self.layouts = [schema] + [s for s in self.layouts if s is not schema]
            return columns
        return None
