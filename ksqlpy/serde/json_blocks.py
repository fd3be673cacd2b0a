"""A batch of JSON values straight into a join's blocks, in C (``_jsonblocks.c``).

Why: a join's source batch went JSON -> msgspec struct (``json_fast``) -> block tuple (a generated lambda
per record); for q8's 80,000 persons and auctions that was about a fifth of the drain. The C loop parses
each object and writes its block - the value columns in order (NULL for those the query does not read, each
still checked), the timestamp, partition, offset and the key columns (``runtime.join_rows.block_builder``'s
layout) - with nothing in between.

It takes exactly what ``json_fast``'s typed decode takes, with the same values (an object of one key spelling
of the columns - ``json_fast.key_layouts`` -, each key at most once and unescaped, values null or of the
column's primitive type), so a batch it takes reads as the generic reader would read it. Anything else
answers None and the caller decodes the batch the usual way, which reports each bad record in the processing
log with its own text. A batch refused makes the next few skip the C path (doubling up to 64), as
``json_fast`` does. The extension is optional (setup.py builds it when a compiler is there); without it - or
with ``KSQLPY_NO_NATIVE=1`` or ``KSQLPY_NO_NATIVE_JSON=1`` - ``json_blocks`` answers None.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType

from ksqlpy.serde.json_fast import CHUNK, key_layouts
from ksqlpy.types import Primitive, SqlType

NATIVE: ModuleType | None = None
if all(os.environ.get(v, "") in ("", "0") for v in ("KSQLPY_NO_NATIVE", "KSQLPY_NO_NATIVE_JSON")):
    try:
        from ksqlpy.serde import _jsonblocks as NATIVE  # type: ignore[attr-defined,no-redef]
    except ImportError:  # not built: the msgspec path
        NATIVE = None

# the C type codes, for the column types json_fast's typed decode takes (``json_fast._TYPES``)
_CODES = {"BOOLEAN": "b", "INTEGER": "i", "DATE": "i", "BIGINT": "l", "TIMESTAMP": "l", "TIME": "t",
          "DOUBLE": "d", "STRING": "s"}
_MAX_SKIP = 64


class JsonBlocks:
    """``blocks(values, keys, timestamps, partition, offsets) -> (blocks, timestamps) | None``."""

    def __init__(self, layouts: list[tuple[bytes, ...]], types: bytes, read: bytes, ts_col: int) -> None:
        assert NATIVE is not None
        self.layouts = layouts
        self.types = types
        self.read = read
        self.ts_col = ts_col
        self.skip = 0
        self.backoff = 1
        self._blocks = NATIVE.blocks

    def __call__(self, values: list[bytes | None], keys: list[tuple] | None, timestamps: list[int],
                 partition: int, offsets: list[int]) -> tuple[list[tuple], list[int]] | None:
        if self.skip:
            self.skip -= 1
            return None
        n = len(values)
        layouts = self.layouts
        for j, names in enumerate(layouts):
            got = self._chunks(names, values, keys, timestamps, partition, offsets, n)
            if got is not None:
                if j:  # this spelling first from now on (a new list: tasks of other threads share this)
                    self.layouts = [names] + [x for x in layouts if x is not names]
                self.backoff = 1
                return got
        self.skip = self.backoff
        self.backoff = min(self.backoff * 2, _MAX_SKIP)
        return None

    def _chunks(self, names: tuple[bytes, ...], values: list, keys: list | None, timestamps: list[int],
                partition: int, offsets: list[int], n: int) -> tuple[list[tuple], list[int]] | None:
        # in chunks of ``json_fast.CHUNK`` records: between C calls the interpreter can go to another thread
        blocks, tss = self._blocks, None
        if n <= CHUNK:
            return blocks(values, names, self.types, self.read, keys, timestamps, self.ts_col, partition,  # type: ignore[no-any-return]
                          offsets, 0, n)
        out: list[tuple] = []
        tss = []
        for lo in range(0, n, CHUNK):
            got = blocks(values, names, self.types, self.read, keys, timestamps, self.ts_col, partition, offsets,
                         lo, min(n, lo + CHUNK))
            if got is None:
                return None
            out += got[0]
            tss += got[1]
        return out, tss


def json_blocks(columns: Sequence[tuple[str, SqlType]], read: Sequence[bool], ts_col: int | None) -> JsonBlocks | None:
    """The C block decoder for wrapped JSON values of ``columns`` (the source's value columns, in the
    block's order), ``read[i]``: whether column i goes into the block (else NULL there, still checked);
    ``ts_col``: the value column holding the record's timestamp (None: the record's own). None when the
    extension is not there or a column's type is not one it takes."""
    if NATIVE is None or not columns or len(columns) > 256:
        return None
    if any(not isinstance(t, Primitive) or t.name not in _CODES for _, t in columns):
        return None
    layouts = key_layouts([n for n, _ in columns])
    if not layouts:
        return None
    types = "".join(_CODES[t.name] for _, t in columns).encode()
    if ts_col is not None and types[ts_col:ts_col + 1] != b"l":
        return None
    return JsonBlocks([tuple(n.encode() for n in names) for names in layouts], types,
                      bytes(1 if r else 0 for r in read), -1 if ts_col is None else ts_col)

