"""ksqlDB's DELIMITED format: one CSV record per row, as ksqlDB's commons-csv settings write it.

Reading: fields split on the delimiter with CSV quoting (``"a,b"``, ``""`` for a quote); the field
count must equal the column count; an empty field is NULL for every type (STRING too); BOOLEAN is
``true`` in any case and anything else false (Java's ``Boolean.parseBoolean``); numbers, DECIMAL,
DATE (days), TIME (ms of day), TIMESTAMP (epoch ms) parse as Java does; BYTES are base64. An empty
record (zero bytes) is read as a single NULL field, which is what a row of one NULL writes.

Writing: NULL is an empty unquoted field; DOUBLE as Java's ``Double.toString`` (``1.0E10``), DECIMAL
as a plain string, BYTES as base64. Quoting follows commons-csv's MINIMAL mode as used by ksqlDB (the
conformance outputs show the rule, e.g. ``"-1",a,1`` and ``-101`` unquoted in a later field):

* the first field is quoted if it is empty or starts with anything but an ASCII letter or digit;
* any field is quoted if it starts with a character <= ``#``, contains the delimiter, a quote, CR
  or LF, or ends with a character <= space. Quotes inside are doubled.
"""

from __future__ import annotations

import base64
import binascii
import decimal
from collections.abc import Callable, Sequence
from typing import Any

from ksqlpy.serde.base import Columns, SerdeError, ValueSerde
from ksqlpy.serde.coerce import decimal_from_text, fit_decimal, parse_java_double, parse_java_int
from ksqlpy.serde.formats import resolve_delimiter, type_text
from ksqlpy.serde.javatext import decimal_to_plain, double_to_string
from ksqlpy.types import Decimal, SqlType


def parse_record(s: str, delim: str) -> list[str]:
    """Fields of the first CSV record of ``s`` (commons-csv DEFAULT rules with ``delim``)."""
    fields: list[str] = []
    i, n = 0, len(s)
    while True:
        if i < n and s[i] == '"':
            parts = []
            i += 1
            while True:
                j = s.find('"', i)
                if j < 0:
                    raise SerdeError("Invalid DELIMITED record: EOF reached before encapsulated token finished")
                parts.append(s[i:j])
                if j + 1 < n and s[j + 1] == '"':
                    parts.append('"')
                    i = j + 2
                else:
                    i = j + 1
                    break
            fields.append("".join(parts))
            while i < n and s[i] != delim and s[i] not in "\r\n" and s[i].isspace():
                i += 1
            if i < n and s[i] != delim and s[i] not in "\r\n":
                raise SerdeError(
                    f"Invalid DELIMITED record: invalid char {s[i]!r} between encapsulated token and delimiter"
                )
        else:
            j = i
            while j < n and s[j] != delim and s[j] not in "\r\n":
                j += 1
            fields.append(s[i:j])
            i = j
        if i >= n or s[i] != delim:
            return fields
        i += 1
        if i == n:
            fields.append("")
            return fields


def _needs_quote(s: str, first: bool, delim: str) -> bool:
    if not s:
        return first
    c = s[0]
    if first and not (c.isascii() and c.isalnum()):
        return True
    if c <= "#":
        return True
    if delim in s or '"' in s or "\n" in s or "\r" in s:
        return True
    return s[-1] <= " "


def quote_field(s: str, first: bool, delim: str) -> str:
    """A non-null field as ksqlDB's CSV printer writes it."""
    if _needs_quote(s, first, delim):
        return '"' + s.replace('"', '""') + '"'
    return s


# -- per-type text conversions

def _parser(t: SqlType, col: str) -> Callable[[str], Any]:
    """Field text (non-empty) -> value for one column."""
    name = t.name
    where = f" for column {col}" if col else ""

    def bad(s: str) -> SerdeError:
        return SerdeError(f"Invalid DELIMITED field{where}: can't parse {s!r} as {type_text(t)}")

    if name == "STRING":
        return lambda s: s
    if name == "BOOLEAN":
        return lambda s: s.lower() == "true"
    if name in ("INTEGER", "DATE", "BIGINT", "TIME", "TIMESTAMP"):
        lo, hi = (-(2**31), 2**31 - 1) if name in ("INTEGER", "DATE") else (-(2**63), 2**63 - 1)

        def p_int(s: str) -> int:
            if s.isdigit() and len(s) < 10:
                return int(s)
            v = parse_java_int(s, lo, hi)
            if v is None:
                raise bad(s)
            return v
        return p_int
    if name == "DOUBLE":
        def p_double(s: str) -> float:
            v = parse_java_double(s)
            if v is None:
                raise bad(s)
            return v
        return p_double
    if isinstance(t, Decimal):
        def p_decimal(s: str) -> decimal.Decimal:
            d = decimal_from_text(s)
            if d is None:
                raise bad(s)
            return fit_decimal(d, t, col)
        return p_decimal
    if name == "BYTES":
        def p_bytes(s: str) -> bytes:
            try:
                return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
            except (binascii.Error, ValueError):
                raise bad(s) from None
        return p_bytes
    raise ValueError(f"The 'DELIMITED' format does not support type '{name}'")


def to_text(v: Any) -> str:
    """A non-null SQL value as DELIMITED text."""
    c = v.__class__
    if c is str:
        return v
    if c is bool:
        return "true" if v else "false"
    if c is int:
        return str(v)
    if c is float:
        return double_to_string(v)
    if c is decimal.Decimal:
        return decimal_to_plain(v)
    if isinstance(v, bytes | bytearray | memoryview):
        return base64.b64encode(v).decode("ascii")
    if isinstance(v, int):  # int subclasses
        return str(int(v))
    raise SerdeError(f"DELIMITED cannot write a value of type {type(v).__name__}: {v!r}")


class DelimitedValueSerde(ValueSerde):
    """Rows as delimiter-separated text records."""

    format = "DELIMITED"

    def __init__(self, columns: Columns, *, delimiter: str | None = None) -> None:
        super().__init__(columns)
        self.delimiter = d = resolve_delimiter(delimiter)
        self._parsers = [_parser(t, n) for n, t in self.columns]
        self._n = len(self.columns)
        self._d = d

    def _fields(self, s: str) -> list[str]:
        if '"' in s or "\n" in s or "\r" in s:
            return parse_record(s, self._d)
        return s.split(self._d)

    def deserialize(self, data: bytes | None) -> tuple | None:
        if data is None:
            return None
        try:
            s = data.decode("utf-8") if isinstance(data, bytes) else bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise SerdeError(f"Invalid DELIMITED record: not UTF-8 ({e})") from None
        fields = self._fields(s)
        if len(fields) != self._n:
            raise SerdeError(
                f"Column count mismatch on deserialization. expected: {self._n}, got: {len(fields)}"
                + (f" (record {s[:100]!r})" if s else "")
            )
        return tuple(p(f) if f else None for p, f in zip(self._parsers, fields, strict=True))

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[tuple | None], list[tuple[int, str]]]:
        rows: list[tuple | None] = []
        errors: list[tuple[int, str]] = []
        append = rows.append
        parsers, n, d = self._parsers, self._n, self._d
        for i, data in enumerate(datas):
            if data is None:
                append(None)
                continue
            try:
                s = data.decode("utf-8")
                if '"' in s or "\n" in s or "\r" in s:
                    fields = parse_record(s, d)
                else:
                    fields = s.split(d)
                if len(fields) != n:
                    raise SerdeError(
                        f"Column count mismatch on deserialization. expected: {n}, got: {len(fields)}"
                        + (f" (record {s[:100]!r})" if s else "")
                    )
                append(tuple([p(f) if f else None for p, f in zip(parsers, fields)]))  # noqa: B905
            except SerdeError as e:
                append(None)
                errors.append((i, str(e)))
            except (UnicodeDecodeError, AttributeError) as e:
                append(None)
                errors.append((i, f"Invalid DELIMITED record: {e}"))
        return rows, errors

    def serialize(self, row: tuple | None) -> bytes | None:
        if row is None:
            return None
        d = self._d
        out = []
        first = True
        for v in row:
            if v is None:
                out.append("")
            else:
                out.append(quote_field(to_text(v), first, d))
            first = False
        return d.join(out).encode("utf-8")
