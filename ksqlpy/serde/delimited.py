"""ksqlDB's DELIMITED format: one CSV record per row, as ksqlDB's commons-csv settings write it.

Reading: fields split on the delimiter with CSV quoting (``"a,b"``, ``""`` for a quote); the field
count must equal the column count; an empty field is NULL for every type (STRING too); BOOLEAN is
``true`` in any case and anything else false (Java's ``Boolean.parseBoolean``); numbers, DECIMAL,
DATE (days), TIME (ms of day), TIMESTAMP (epoch ms) parse as Java does; BYTES are base64. Text with no
CSV record in it - zero bytes, or only line breaks (commons-csv skips empty lines) - fails the record with
``No fields in record``, whatever the column count (ksqlDB's KsqlDelimitedDeserializer, from memory: no
record from ``CSVParser.parse`` is that error, before the column count is compared); so the zero bytes a
row of one NULL column writes do not read back, in ksqlDB as here. Empty lines before the first record are
skipped.

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
from itertools import repeat
from typing import Any

from ksqlpy.codegen_cache import compiled
from ksqlpy.javatext import decimal_to_plain, double_to_string
from ksqlpy.serde.base import ColumnCountMismatch, Columns, FormatRuleError, SerdeError, ValueSerde
from ksqlpy.serde.coerce import decimal_from_text, fit_decimal, parse_java_double, parse_java_int
from ksqlpy.serde.formats import resolve_delimiter, type_text
from ksqlpy.types import Decimal, SqlType
from ksqlpy.utf16 import JAVA_UTF8


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
        if name in _INT_TYPES or name == "DOUBLE":  # Java's Integer/Long.parseLong, Double.parseDouble
            return SerdeError(f'For input string: "{s}"')
        return SerdeError(f"Invalid DELIMITED field{where}: can't parse {s!r} as {type_text(t)}")

    if name == "STRING":
        return lambda s: s
    if name == "BOOLEAN":
        return lambda s: s.lower() == "true"
    if name in ("INTEGER", "DATE", "BIGINT", "TIME", "TIMESTAMP"):
        lo, hi = (-(2**31), 2**31 - 1) if name in ("INTEGER", "DATE") else (-(2**63), 2**63 - 1)

        def p_int(s: str) -> int:
            if s.isdecimal() and len(s) < 10:
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
            return fit_decimal(d, t)
        return p_decimal
    if name == "BYTES":
        def p_bytes(s: str) -> bytes:
            try:
                return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
            except (binascii.Error, ValueError):
                raise bad(s) from None
        return p_bytes
    raise FormatRuleError(f"The 'DELIMITED' format does not support type '{name}'")


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


_INT_TYPES = {"INTEGER": 10, "DATE": 10, "BIGINT": 19, "TIME": 19, "TIMESTAMP": 19}  # name -> digits < this


def skip_empty_lines(s: str) -> str:
    """The text from its first record on (commons-csv's ignoreEmptyLines); none: ``No fields in record``."""
    s = s.lstrip("\r\n")
    if not s:
        raise SerdeError("No fields in record")
    return s


def _mismatch(n: int, got: int, s: str) -> SerdeError:
    return ColumnCountMismatch(n, got)


class DelimitedValueSerde(ValueSerde):
    """Rows as delimiter-separated text records; reader and writer are generated per schema."""

    format = "DELIMITED"

    def __init__(self, columns: Columns, *, delimiter: str | None = None) -> None:
        super().__init__(columns)
        self.delimiter = d = resolve_delimiter(delimiter)
        n = len(self.columns)
        ns: dict[str, Any] = {
            "SerdeError": SerdeError, "_parse": parse_record, "_mismatch": _mismatch, "D": d, "N": n,
            "_quote": quote_field, "JAVA_UTF8": JAVA_UTF8, "_first_line": skip_empty_lines,
        }
        fields, values, texts = [], [], []
        for i, (name, t) in enumerate(self.columns):
            ns[f"_p{i}"] = _parser(t, name)
            fields.append(f"f{i}")
            if t.name == "STRING":
                values.append(f"(f{i} or None)")
            elif t.name in _INT_TYPES:
                values.append(f"((int(f{i}) if f{i}.isdecimal() and len(f{i}) < {_INT_TYPES[t.name]} "
                              f"else _p{i}(f{i})) if f{i} else None)")
            else:
                values.append(f"(_p{i}(f{i}) if f{i} else None)")
            first = i == 0
            if t.name == "STRING":
                texts.append(f"('' if v{i} is None else _quote(v{i}, {first}, D))")
            elif t.name in _INT_TYPES and not first:
                texts.append(f"('' if v{i} is None else str(v{i}))")  # digits and '-' never need quotes
            else:
                ns[f"_t{i}"] = to_text
                texts.append(f"('' if v{i} is None else _quote(_t{i}(v{i}), {first}, D))")
        unpack = (", ".join(fields) + ("," if n == 1 else "")) if n else "_"
        tup = "(" + "".join(v + ", " for v in values) + ")"
        vs = (", ".join(f"v{i}" for i in range(n)) + ("," if n == 1 else "")) if n else "_"
        line = " + D + ".join(texts) if texts else "''"
        src = f"""
def _row(s):
    if not s or s[0] in '\\r\\n':
        s = _first_line(s)
    f = _parse(s, D) if ('"' in s or '\\n' in s or '\\r' in s) else s.split(D)
    if len(f) != N:
        raise _mismatch(N, len(f), s)
    {unpack} = f
    return {tup if n else "()"}

def deserialize(data):
    if data is None:
        return None
    # new String(bytes, UTF_8) before the CSV parser: malformed UTF-8 reads as U+FFFD (utf16.from_utf8)
    s = data.decode('utf-8', JAVA_UTF8) if data.__class__ is bytes else bytes(data).decode('utf-8', JAVA_UTF8)
    return _row(s)

def deserialize_batch(datas):
    rows = []
    errors = []
    append = rows.append
    i = -1
    for data in datas:
        i += 1
        if data is None:
            append(None)
            continue
        try:
            s = data.decode('utf-8', JAVA_UTF8)
            if not s or s[0] in '\\r\\n':
                s = _first_line(s)
            if '"' in s or '\\n' in s or '\\r' in s:
                f = _parse(s, D)
            else:
                f = s.split(D)
            if len(f) != N:
                raise _mismatch(N, len(f), s)
            {unpack} = f
            append({tup if n else "()"})
        except SerdeError as e:
            append(None)
            errors.append((i, str(e)))
        except (UnicodeDecodeError, AttributeError) as e:
            append(None)
            errors.append((i, 'Invalid DELIMITED record: ' + str(e)))
    return rows, errors

def serialize(r):
    if r is None:
        return None
    {vs} = r
    return ({line}).encode('utf-8', 'replace')

def serialize_batch(rows):
    return [serialize(r) for r in rows]
"""
        # compiled on first use, the reader and the writer each on its own (``_side``): a query makes a serde
        # for every source and sink it touches and uses one side of most
        cut = src.index("\ndef serialize(r):")
        self._sources = {"reader": src[:cut], "writer": src[cut:]}
        self._ns = ns
        self._sides: dict[str, dict[str, Any]] = {}
        self._column_parsers = [(t.name, ns[f"_p{i}"]) for i, (_, t) in enumerate(self.columns)]

    _SIDE_FUNCTIONS = {"reader": ("deserialize", "deserialize_batch"), "writer": ("serialize", "serialize_batch")}

    def _side(self, side: str) -> dict[str, Any]:
        """Compile (once per text: ``codegen_cache``) and bind one side; its functions replace the class's
        lazy methods on this instance."""
        got = self._sides.get(side)
        if got is None:
            got = dict(self._ns)
            exec(compiled(self._sources[side], f"<delimited serde {side} {[c for c, _ in self.columns]}>"), got)
            for name in self._SIDE_FUNCTIONS[side]:
                setattr(self, name, got[name])
            self._sides[side] = got
        return got

    @property
    def source(self) -> str:
        return self._sources["reader"] + self._sources["writer"]

    # Until first use these compile their side (see ``_side``); a method kept from before that forwards.
    def deserialize(self, data: bytes | None) -> tuple | None:
        return self._side("reader")["deserialize"](data)  # type: ignore[no-any-return]

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[tuple | None], list[tuple[int, str]]]:
        return self._side("reader")["deserialize_batch"](datas)  # type: ignore[no-any-return]

    def serialize(self, row: tuple | None) -> bytes | None:
        return self._side("writer")["serialize"](row)  # type: ignore[no-any-return]

    def serialize_batch(self, rows: Sequence[tuple | None]) -> list[bytes | None]:
        return self._side("writer")["serialize_batch"](rows)  # type: ignore[no-any-return]

    def deserialize_columns(self, datas: Sequence[bytes | None]) -> list[list[Any]] | None:
        """The batch as one list per column, or None when the row reader must read it.

        The row reader's rules, a column at a time in C (``map`` of its own field parsers): only a batch
        of UTF-8 ``bytes`` records without quotes or line breaks (plain ``split``), each with exactly the
        schema's number of fields; an empty field is NULL. Anything else - a null record, a quoted field,
        a field count or a value the parser refuses - gives None and the row reader reports the record."""
        n = len(self._column_parsers)
        if not n or not datas:
            return None
        try:
            texts = list(map(bytes.decode, datas))  # type: ignore[arg-type] # (a None or memoryview: TypeError)
            whole = "".join(texts)
            if "" in texts or '"' in whole or "\n" in whole or "\r" in whole:
                return None
            fields = list(map(str.split, texts, repeat(self.delimiter)))
            if set(map(len, fields)) != {n}:
                return None
            columns: list[list[Any]] = []
            for (name, parse), col in zip(self._column_parsers, zip(*fields, strict=True), strict=True):
                if name == "STRING":
                    columns.append([f or None for f in col] if "" in col else list(col))
                elif "" in col:
                    columns.append([parse(f) if f else None for f in col])
                elif (name in _INT_TYPES and all(map(str.isdecimal, col))
                      and max(map(len, col)) < _INT_TYPES[name]):
                    columns.append(list(map(int, col)))
                else:
                    columns.append(list(map(parse, col)))
        except Exception:  # noqa: BLE001 - the row reader reports the record
            return None
        return columns
