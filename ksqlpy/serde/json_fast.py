"""Fast paths for JSON rows on msgspec: reading into typed structs, writing from structs.

Reading: msgspec decodes each object straight into a typed struct in C.

Why: ``orjson.loads`` builds a dict per record and the generated reader then subscripts and type-checks
every field in Python; together ~1.2 µs per 176-byte record. msgspec parses, matches field names and
checks types in one C call per record (~0.45 µs) and ``astuple`` turns the struct into the row.

The fast path only answers when it can prove its rows are exactly what the generic reader
(``json_format``) would produce; otherwise it returns None and the caller decodes the batch the usual
way (with its coercions and processing-log messages). It proves it by construction:

* the struct lists every column under one spelling of the object keys - the column names, or their
  lower-case forms - for which ksqlDB's case-insensitive lookup (``json_format.key_plan``) maps column
  i to key i; unknown keys are forbidden, so an object with any other key (``"Price"``, an extra
  field) fails and goes the generic way;
* each column has a type for which msgspec's strict check accepts exactly the JSON values the generic
  reader passes through unchanged: BOOLEAN ``true``/``false``; INTEGER/DATE and BIGINT/TIME/TIMESTAMP
  integers within 32/64 bits, TIME within a day (a fraction, an exponent, a string or an overflow needs coercion: not here);
  DOUBLE numbers (an integer becomes its float, as ``float(v)`` does) - but a batch whose DOUBLEs hold a
  negative zero is left to the generic reader: the literal ``-0.0`` is the BigDecimal 0 to ksqlDB (0.0),
  an underflow such as ``-1e-400`` stays -0.0, and only the literal tells them apart (``coerce``); the
  check is a C-level ``0.0 in column`` per DOUBLE column, then the signs of the zeros if there are any;
  STRING strings; ``null`` or a missing key is NULL. Other column types (DECIMAL, BYTES, ARRAY, MAP, STRUCT) disable the fast path;
* any failure anywhere in the batch - malformed JSON, a tombstone, a type mismatch - abandons the
  whole batch to the generic reader, which then reports the bad records one by one.

A batch that failed makes the next few batches skip the fast path (doubling up to 64), so a topic
whose records never fit it costs almost nothing extra.

Writing (``fast_writer``): each row becomes a struct with the column names as its field names, encoded
by one C call into exact-size bytes (~0.2 µs against ~0.5 µs for an orjson dict plus the copy that keeps
its over-allocated buffers from fragmenting the heap). Only for columns whose values msgspec writes
byte for byte as the generic writer does - strings, booleans, integers, NULL, and DOUBLE in a batch whose
non-zero doubles are all of a magnitude in [1e-3, 1e7), where msgspec, orjson and Java's ``Double.toString``
agree (outside it ksqlDB writes ``1.0E10``, ``1.0E-5``: ``coerce.java_double``; checked per batch in C);
not the types written through a ``default`` hook.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import starmap
from operator import attrgetter, itemgetter
from typing import Annotated, Any

import msgspec

from ksqlpy.serde.coerce import PLAIN_HIGH, PLAIN_LOW, fast_names
from ksqlpy.types import Primitive, SqlType

_I32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
_I64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
_MS_OF_DAY = Annotated[int, msgspec.Meta(ge=0, le=86_400_000)]
_TYPES: dict[str, Any] = {
    "BOOLEAN": bool,
    "INTEGER": _I32,
    "DATE": _I32,
    "BIGINT": _I64,
    "TIME": _MS_OF_DAY,
    "TIMESTAMP": _I64,
    "DOUBLE": float,
    "STRING": str,
}
_MAX_SKIP = 64
# records per C-level map call: one call over a whole batch (10k records, ~5 ms) holds the GIL throughout,
# so a pull query's thread waits that long; between chunks the interpreter can hand it over
CHUNK = 1000

Rows = list[tuple]


def key_layouts(names: list[str]) -> list[list[str]]:
    """The key spellings a fast decoder may expect: the column names themselves and, when it reads
    the same columns, their lower-case forms (producers commonly write ``bidder`` for ``BIDDER``).

    A spelling qualifies when ksqlDB's lookup reads column i from key i for an object with exactly
    these keys: no two column names upper-case alike, and each lower-case key upper-cases back to its
    column's name.
    """
    if not names or fast_names(names) is None:
        return []
    layouts = [names]
    lower = [n.lower() for n in names]
    if lower != names and all(lo.upper() == n for lo, n in zip(lower, names, strict=True)):
        layouts.append(lower)
    return layouts


def _decoder(columns: list[tuple[str, SqlType]], keys: list[str]) -> msgspec.json.Decoder:
    fields = [(f"f{i}", _TYPES[t.name] | None, None) for i, (_, t) in enumerate(columns)]
    struct = msgspec.defstruct("JsonRow", fields, rename={f"f{i}": k for i, k in enumerate(keys)},
                               forbid_unknown_fields=True, gc=False)
    return msgspec.json.Decoder(struct)


class FastRows:
    """``fast(datas) -> rows | None``: the batch's rows as tuples, or None when the generic reader
    must decode it (see the module docstring for when).

    The msgspec decoders (a struct type each, ~0.25 ms) are built on the first batch: a serde is made
    for every source and sink a query touches, most of them never read."""

    def __init__(self, columns: list[tuple[str, SqlType]], layouts: list[list[str]]) -> None:
        self.columns = columns
        self.layouts = layouts
        self._decoders: list[msgspec.json.Decoder] | None = None
        self.skip = 0  # batches left to hand straight to the generic reader
        self.backoff = 1
        doubles = [i for i, (_, t) in enumerate(columns) if t.name == "DOUBLE"]
        self._double_cells = ([itemgetter(i) for i in doubles], [attrgetter(f"f{i}") for i in doubles])

    def __call__(self, datas: Sequence[bytes | None]) -> Rows | None:
        return self._decode(datas, True)

    def structs(self, datas: Sequence[bytes | None]) -> list[msgspec.Struct] | None:
        """The batch as msgspec structs (field ``f<i>`` is column i), or None as for rows: a reader that
        builds only the columns a stage reads (``ksqlpy.plan.column_rows``)."""
        return self._decode(datas, False)

    @property
    def decoders(self) -> list[msgspec.json.Decoder]:
        decs = self._decoders
        if decs is None:
            decs = self._decoders = [_decoder(self.columns, keys) for keys in self.layouts]
        return decs

    @decoders.setter
    def decoders(self, decs: list[msgspec.json.Decoder]) -> None:
        self._decoders = decs

    def _decode(self, datas: Sequence[bytes | None], as_rows: bool) -> list | None:
        if self.skip:
            self.skip -= 1
            return None
        astuple = msgspec.structs.astuple
        decs = self.decoders
        n = len(datas)
        for j, dec in enumerate(decs):
            try:
                if n <= CHUNK:
                    rows = (list(map(astuple, map(dec.decode, datas))) if as_rows  # type: ignore[arg-type]
                            else list(map(dec.decode, datas)))  # type: ignore[arg-type]
                else:
                    rows = []
                    for i in range(0, n, CHUNK):
                        part = map(dec.decode, datas[i:i + CHUNK])  # type: ignore[arg-type]
                        rows += map(astuple, part) if as_rows else part
            except Exception:  # noqa: BLE001 - anything unusual: the generic reader decides
                continue
            if _negative_zero(rows, self._double_cells[0 if as_rows else 1]):
                return None  # (a value the generic reader must see, not a batch the typed decode refused)
            if j:  # this spelling first from now on (a new list: tasks of other threads share this reader)
                self.decoders = [dec] + [d for d in decs if d is not dec]
            self.backoff = 1
            return rows
        self.skip = self.backoff
        self.backoff = min(self.backoff * 2, _MAX_SKIP)
        return None


def _negative_zero(rows: list, cells: list[Callable[[Any], Any]]) -> bool:
    """Whether a DOUBLE of the decoded batch is -0.0 (``0.0 in`` finds both zeros in C; signs only then)."""
    for cell in cells:
        if 0.0 in map(cell, rows):
            if any(v == 0.0 and math.copysign(1.0, v) < 0 for v in map(cell, rows)):
                return True
    return False


def fast_rows(columns: list[tuple[str, SqlType]]) -> FastRows | None:
    """A fast batch reader for wrapped JSON rows of ``columns``, or None if their types rule it out."""
    if not columns or any(not isinstance(t, Primitive) or t.name not in _TYPES for _, t in columns):
        return None
    layouts = key_layouts([n for n, _ in columns])
    if not layouts:
        return None
    return FastRows(columns, layouts)


_WRITABLE = frozenset(("BOOLEAN", "INTEGER", "BIGINT", "STRING", "DATE", "TIME", "TIMESTAMP", "DOUBLE"))
# msgspec writes a double of a magnitude in [PLAIN_LOW, PLAIN_HIGH) as the generic writer does (the shortest
# round-trip digits with a point, as Double.toString); outside it the generic writer writes Java's exponent
# form, and NaN and infinities as ksqlDB's strings (``coerce.java_double``)


class NotPlainDoubles(ValueError):
    """A DOUBLE column of the batch holds a value msgspec would not write as orjson does."""


def _check_doubles(rows: Sequence[tuple], i: int) -> None:
    """Raise unless every value of column ``i`` is NULL, zero or a finite number of magnitude in [1e-3, 1e7)."""
    values = list(filter(None, map(itemgetter(i), rows)))  # (NULL and zero need no check)
    if values:
        # NaN or an infinity anywhere (or a sum too large): not plain; starting from a float, a value that
        # is not a number (a Decimal, a string) raises TypeError
        total = sum(values, 0.0)
        if total - total != 0:
            raise NotPlainDoubles(i)
        sizes = list(map(abs, values))
        if max(sizes) >= PLAIN_HIGH or min(sizes) < PLAIN_LOW:
            raise NotPlainDoubles(i)


def fast_writer(columns: list[tuple[str, SqlType]]) -> Callable[[Sequence[tuple]], list[bytes]] | None:
    """``write(rows) -> values`` for wrapped JSON rows of ``columns`` (none of them None), or None when
    a column's type is not one msgspec writes exactly as orjson. Raises on anything unusual (a null
    row, a value of another type, a DOUBLE that is not finite or outside [1e-3, 1e7)): the caller then writes
    row by row."""
    if not columns or any(not isinstance(t, Primitive) or t.name not in _WRITABLE for _, t in columns):
        return None
    struct = msgspec.defstruct("JsonOut", [(f"f{i}", object) for i in range(len(columns))],
                               rename={f"f{i}": n for i, (n, _) in enumerate(columns)}, gc=False)
    encode = msgspec.json.Encoder().encode
    doubles = [i for i, (_, t) in enumerate(columns) if t.name == "DOUBLE"]

    def write(rows: Sequence[tuple]) -> list[bytes]:
        for i in doubles:
            _check_doubles(rows, i)
        if len(rows) <= CHUNK:
            return list(map(encode, starmap(struct, rows)))
        out: list[bytes] = []
        for i in range(0, len(rows), CHUNK):
            out += map(encode, starmap(struct, rows[i:i + CHUNK]))
        return out

    return write
