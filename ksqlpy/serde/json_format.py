"""ksqlDB's JSON format for values and keys, with per-schema generated code for the hot path.

Wrapped (the default for values and multi-column keys): one JSON object, a field per column, matched
case-insensitively on read (see ``coerce``) and written with the declared names in column order.
Unwrapped (WRAP_SINGLE_VALUE=false, single-column keys): the bare JSON value of the only column.

Writing: compact orjson output; DECIMAL as a JSON number keeping its scale (``1.10``), BYTES as base64,
DATE/TIME/TIMESTAMP as integers (days / ms of day / epoch ms), a DOUBLE as Java's ``Double.toString``
(``1.0E10``, ``1.0E-5``: Jackson writes a ``DoubleNode`` so), NaN and infinite DOUBLEs as the
strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (Jackson's default, as the conformance outputs
show). A null row, and a null unwrapped value, are written as a null record (no bytes), like ksqlDB.
On read, null bytes are a tombstone (None); the JSON text ``null`` is a tombstone when wrapped and a
row holding null when unwrapped.

orjson's output buffers are over-allocated; keeping thousands of them alive (a batch of records)
fragments the heap badly, so written records are copied to exact-size bytes (5x faster overall).

The generated batch reader inlines the common case - an object whose keys are exactly the column
names, checked by its size and plain subscripts - and sends other objects through ``_row``, which
matches keys case-insensitively with a lookup plan cached per key layout (``key_plan``). Either way
only values whose Python type is not already the column's go through a coercion call.

Before any of that, ``deserialize_batch`` offers the batch to ``json_fast`` (msgspec, typed structs in
C), which answers only for batches whose every record it can prove it reads exactly as this module does.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from ksqlpy import utf16
from ksqlpy.codegen_cache import compiled
from ksqlpy.serde.base import Columns, SerdeError, ValueSerde
from ksqlpy.serde.coerce import (
    MISSING,
    PLAIN_HIGH,
    PLAIN_LOW,
    NeedExact,
    cannot_convert,
    fast_names,
    java_double,
    json_converter,
    json_default,
    nonfinite_fixer,
)
from ksqlpy.serde.json_fast import Rows, fast_rows, fast_writer
from ksqlpy.types import Struct

_INLINE_CHECKS = {
    # column type -> condition under which the parsed value is already the SQL value
    "BOOLEAN": "{v}.__class__ is bool",
    "INTEGER": "{v}.__class__ is int and -2147483648 <= {v} <= 2147483647",
    "DATE": "{v}.__class__ is int and -2147483648 <= {v} <= 2147483647",
    "BIGINT": "{v}.__class__ is int and -9223372036854775808 <= {v} <= 9223372036854775807",
    "TIME": "{v}.__class__ is int and 0 <= {v} <= 86400000",
    "TIMESTAMP": "{v}.__class__ is int and -9223372036854775808 <= {v} <= 9223372036854775807",
    "DOUBLE": "{v}.__class__ is float and {v}",  # (a zero may be orjson's -0.0: the converter decides)
    "STRING": "{v}.__class__ is str",
}


_MAX_PLANS = 1024


def key_plan(names: list[str], keys: tuple[str, ...], cache: dict) -> tuple[str | None, ...]:
    """For each column, the key of an object with ``keys`` that ksqlDB reads it from (or None).

    ksqlDB looks the column name up among the object's keys as they are, and if absent among the keys
    upper-cased (a later key wins) - so a key spelled exactly as the column always wins, an upper-case
    name otherwise takes the last key that upper-cases to it, and a name with lower-case letters only
    matches itself (reference 4.2, KsqlJsonDeserializer's field matching).
    """
    last: dict[str, str] = {}
    for k in keys:
        last[k.upper()] = k
    exact = set(keys)
    plan = tuple(n if n in exact else last.get(n) for n in names)
    if len(cache) >= _MAX_PLANS:
        cache.clear()
    cache[keys] = plan
    return plan


def _exact_loads(data: bytes) -> Any:
    return json.loads(data, parse_float=decimal.Decimal)


_MARK = "\ue000\ue001\ue002"  # private-use characters around a lone surrogate's hex while orjson writes
_MARKED = re.compile(_MARK.encode() + rb"([0-9a-f]{4})")


def dumps_refused(obj: Any) -> bytes:
    """The JSON of a value orjson refused: a map with a NULL key (Jackson writes it as "null") or a string
    holding a lone surrogate (half of a character cut by a unit-indexed function, see ``ksqlpy.utf16``),
    which Jackson's UTF-8 writer escapes as ``\\ud83d`` and orjson cannot write at all."""
    try:
        return orjson.dumps(obj, default=json_default, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        marked = _marked(obj)
        if marked is obj:
            raise
        out = orjson.dumps(marked, default=json_default, option=orjson.OPT_NON_STR_KEYS)
        return _MARKED.sub(rb"\\u\1", out)


def _marked(v: Any) -> Any:
    """``v`` with each lone surrogate in its strings (keys too) as ``_MARK`` and its hex; ``v`` itself if none."""
    if isinstance(v, str):
        return utf16.SURROGATE.sub(lambda m: f"{_MARK}{ord(m.group()):04x}", v) if utf16.has_surrogate(v) else v
    if isinstance(v, dict):
        items = [(_marked(k), _marked(x)) for k, x in v.items()]
        if all(k is k0 and x is x0 for (k, x), (k0, x0) in zip(items, v.items(), strict=True)):
            return v
        return dict(items)
    if isinstance(v, list):
        out = [_marked(x) for x in v]
        return v if all(a is b for a, b in zip(out, v, strict=True)) else out
    return v


def _invalid(e: Exception) -> SerdeError:
    return SerdeError(f"Invalid JSON: {e}")


def _no_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


def _exact_or_invalid(data: bytes, e: Exception) -> Any:
    """A record orjson refuses, read again with exact decimals. Jackson (ksqlDB's reader, exact BigDecimal
    mode) takes any number literal, orjson none past a double's range (``1e400``): such a record is read;
    anything else orjson refuses stays invalid JSON (NaN and Infinity too, which Jackson refuses). A record
    of no JSON at all (zero bytes, blanks) is Jackson's ``MissingNode``; content after the first value is
    not read."""
    if not bytes(data).strip(b" \t\r\n"):
        return MISSING
    if isinstance(e, orjson.JSONDecodeError) and e.msg == "unexpected content after document":
        # Jackson's readTree reads the first value and stops (FAIL_ON_TRAILING_TOKENS is off); only a root
        # number or true/false/null must be followed by a blank (``5x`` fails, ``5 x`` is 5)
        head = e.doc[:e.pos]
        if not (head.lstrip()[:1] in ("{", "[", '"') or head[-1:].isspace()):
            raise _invalid(e) from None
        data = head.encode()
    try:
        return json.loads(data, parse_float=decimal.Decimal, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise _invalid(e) from None


_COMMON_SOURCE = """
def _describe(d):
    from ksqlpy.serde.coerce import json_text, node_name
    return node_name(d) + ' ' + json_text(d)[:100]

def deserialize(data):
    if data is None:
        return None
    try:
        d = _loads(data)
    except JSONDecodeError as e:
        return _row(_exact_or_invalid(data, e))
    try:
        return _row(d)
    except NeedExact:
        return _row(_exact_loads(data))
"""

_BATCH_TEMPLATE = """
def {fname}(datas):
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
{body}
        except NeedExact:
            try:
                append(_row(_exact_loads(data)))
            except (SerdeError, ValueError) as e:
                append(None)
                errors.append((i, str(e)))
        except SerdeError as e:
            append(None)
            errors.append((i, str(e)))
        except JSONDecodeError as e:
            try:
                append(_row(_exact_or_invalid(data, e)))
            except (SerdeError, ValueError) as e2:
                append(None)
                errors.append((i, str(e2)))
    return rows, errors
"""


_DISPATCH = """
def deserialize_batch(datas):
    for data in datas:
        if data is not None:
            try:
                d = _loads(data)
            except JSONDecodeError:
                break
            if d.__class__ is dict and len(d) == {n} and d.keys() == _lower_keys:
                return _batch_lower(datas)
            break
    return _batch_exact(datas)
"""


def _with_fast_path(fast: Callable[[Sequence[bytes | None]], Rows | None],
                    generic: Callable[[Sequence[bytes | None]], tuple[list, list]]
                    ) -> Callable[[Sequence[bytes | None]], tuple[list, list]]:
    """deserialize_batch trying msgspec's typed decode first (``json_fast``), else the generic reader."""

    def deserialize_batch(datas: Sequence[bytes | None]) -> tuple[list, list]:
        rows = fast(datas)
        return (rows, []) if rows is not None else generic(datas)

    return deserialize_batch


def _with_fast_writer(fast: Callable[[Sequence[tuple]], list[bytes]],
                      generic: Callable[[Sequence[tuple | None]], list[bytes | None]]
                      ) -> Callable[[Sequence[tuple | None]], list[bytes | None]]:
    """serialize_batch through msgspec structs (``json_fast``); a batch with a null row or an odd value
    goes through the generic writer (the same bytes, or its error)."""

    def serialize_batch(rows: Sequence[tuple | None]) -> list[bytes | None]:
        try:
            return fast(rows)  # type: ignore[arg-type, return-value]
        except Exception:  # noqa: BLE001 - the generic writer raises the error the caller reports
            return generic(rows)

    return serialize_batch


class JsonValueSerde(ValueSerde):
    """JSON rows; ``wrap`` False means the single column's bare value."""

    format = "JSON"

    def __init__(self, columns: Columns, *, wrap: bool = True) -> None:
        super().__init__(columns)
        if not wrap and len(self.columns) != 1:
            raise ValueError("an unwrapped JSON serde needs exactly one column")
        self.wrap = wrap
        # the reader and the writer are generated and compiled on first use, each on its own (``_reading``,
        # ``_writing``): a query makes a serde for every source, sink and internal topic it touches and
        # uses one side of most of them (a source is only read, a sink only written); compiling both
        # sides of every serde was ~3 ms a serde of query set-up
        self._reader: dict[str, Any] | None = None
        self._writer: dict[str, Any] | None = None
        fast = fast_rows(self.columns) if wrap else None  # (its msgspec decoders are built on first use too)
        self._fast = fast
        # the batch as structs, one field per column (None: decode rows): for readers that build columns
        self.deserialize_structs: Callable[[Sequence[bytes | None]], list | None] | None = (
            fast.structs if fast is not None else None)

    def _namespace(self) -> dict[str, Any]:
        return {
            "_loads": orjson.loads, "_dumps": orjson.dumps, "_default": json_default, "_nsk": orjson.OPT_NON_STR_KEYS,
            "_exact_loads": _exact_loads, "_exact_or_invalid": _exact_or_invalid, "NeedExact": NeedExact,
            "SerdeError": SerdeError, "JSONDecodeError": orjson.JSONDecodeError, "_invalid": _invalid,
            "_copy": bytes, "_mv": memoryview, "_jd": java_double, "_refused": dumps_refused,
        }

    def _reading(self) -> dict[str, Any]:
        """Generate, compile (once per text: ``codegen_cache``) and bind the reader: ``_row``,
        ``deserialize``, ``deserialize_batch`` replace the class's lazy methods on this instance."""
        ns = self._reader
        if ns is not None:
            return ns
        ns = self._namespace()
        wrap = self.wrap
        names = [n for n, _ in self.columns]
        row_type = Struct(tuple(self.columns))
        ns["_not_row"] = lambda d: cannot_convert(d, row_type, "")  # ksqlDB: the record is not the row's STRUCT
        for i, (n, t) in enumerate(self.columns):
            ns[f"_c{i}"] = json_converter(t, f".{n}" if wrap else "")
        src = self._reader_source(names, ns) if wrap else self._unwrapped_reader_source()
        src += self._common_source()
        src += self._batch_source()
        lower = self._lower_names(names) if wrap else None
        if lower is not None:
            # producers commonly write lower-case keys: a second inlined loop for them, chosen per
            # batch by the first record's keys (any record that differs still goes through _row)
            ns["_lower_keys"] = frozenset(lower)
            src = src.replace("def deserialize_batch(datas):", "def _batch_exact(datas):")
            src += self._batch_source(lower, "_batch_lower")
            src += _DISPATCH.replace("{n}", str(len(names)))
        exec(compiled(src, f"<json serde reader {names}>"), ns)  # once per text (codegen_cache)
        ns["__source__"] = src
        self._row = ns["_row"]  # type: ignore[method-assign]
        self.deserialize = ns["deserialize"]  # type: ignore[method-assign]
        batch = ns["deserialize_batch"]
        if self._fast is not None:
            batch = _with_fast_path(self._fast, batch)
        self.deserialize_batch = ns["_deserialize_batch"] = batch  # type: ignore[method-assign]
        self._reader = ns
        return ns

    def _writing(self) -> dict[str, Any]:
        """As ``_reading`` for the writer: ``serialize``, ``serialize_batch``."""
        ns = self._writer
        if ns is not None:
            return ns
        ns = self._namespace()
        names = [n for n, _ in self.columns]
        src = self._writer_source(names, ns)
        exec(compiled(src, f"<json serde writer {names}>"), ns)  # once per text (codegen_cache)
        ns["__source__"] = src
        self.serialize = ns["serialize"]  # type: ignore[method-assign]
        batch = ns["serialize_batch"]
        write = fast_writer(self.columns) if self.wrap else None
        if write is not None:
            batch = _with_fast_writer(write, batch)
        self.serialize_batch = ns["_serialize_batch"] = batch  # type: ignore[method-assign]
        self._writer = ns
        return ns

    @property
    def source(self) -> str:
        """The generated reader and writer (generating both)."""
        return self._reading()["__source__"] + self._writing()["__source__"]

    # Until first use these build their side, which then replaces them on the instance; a caller that
    # kept the bound method before that goes through one more call to the generated function.
    def _row(self, d: Any) -> tuple | None:
        return self._reading()["_row"](d)  # type: ignore[no-any-return]

    def deserialize(self, data: bytes | None) -> tuple | None:
        return self._reading()["deserialize"](data)  # type: ignore[no-any-return]

    def deserialize_batch(self, datas: Sequence[bytes | None]) -> tuple[list[tuple | None], list[tuple[int, str]]]:
        return self._reading()["_deserialize_batch"](datas)  # type: ignore[no-any-return]

    def serialize(self, row: tuple | None) -> bytes | None:
        return self._writing()["serialize"](row)  # type: ignore[no-any-return]

    def serialize_batch(self, rows: Sequence[tuple | None]) -> list[bytes | None]:
        return self._writing()["_serialize_batch"](rows)  # type: ignore[no-any-return]

    # -- code generation
    def _reader_source(self, names: list[str], ns: dict[str, Any]) -> str:
        """``_row(parsed) -> tuple``: any object, through a per-key-layout lookup plan.

        Records of one producer share their key layout, so the case-insensitive matching is worked
        out once per distinct ``tuple(keys)`` (``key_plan``) and cached; a record then costs one
        dict lookup plus a subscript per column, whatever the case of its keys.
        """
        plans: dict[tuple[str, ...], tuple[str | None, ...]] = {}
        ns["_plans"] = plans
        ns["_plan"] = lambda ks: key_plan(names, ks, plans)
        n = len(names)
        if n == 0:
            return ("def _row(d):\n    if d.__class__ is dict:\n        return ()\n    if d is None:\n"
                    "        return None\n    raise _not_row(d)\n")
        tup = "(" + "".join(f"v{i}, " for i in range(n)) + ")"
        lines = [
            "def _row(d):",
            "    if d.__class__ is dict:",
            "        ks = tuple(d)",
            "        p = _plans.get(ks)",
            "        if p is None:",
            "            p = _plan(ks)",
            "        " + "".join(f"k{i}, " for i in range(n)) + "= p",
        ]
        for i, (_, t) in enumerate(self.columns):
            lines.append(f"        v{i} = None if k{i} is None else d[k{i}]")
            check = _INLINE_CHECKS.get(t.name)
            if check:
                lines.append(f"        if not ({check.format(v=f'v{i}')}):")
                lines.append(f"            v{i} = _c{i}(v{i})")
            else:
                lines.append(f"        v{i} = _c{i}(v{i})")
        lines.append(f"        return {tup}")
        lines += [
            "    if d is None:",
            "        return None",
            "    raise _not_row(d)",
        ]
        return "\n".join(lines) + "\n"

    @staticmethod
    def _lower_names(names: list[str]) -> list[str] | None:
        """The lower-cased column names, when an object with exactly those keys reads (by ksqlDB's
        upper-casing rule) column i from key i; None if the names do not allow that shortcut."""
        lower = [n.lower() for n in names]
        if (not names or lower == names or fast_names(names) is None or len(set(lower)) != len(lower)
                or any(lo.upper() != n for lo, n in zip(lower, names, strict=True))):
            return None
        return lower

    def _batch_source(self, keys: list[str] | None = None, fname: str = "deserialize_batch") -> str:
        """deserialize_batch with the common case inlined in the loop (no call per record).

        The common case: an object with exactly ``keys`` (default: the column names) as keys - checked
        by its size and plain subscripts (cheaper than a key-set comparison); anything else goes
        through ``_row``.
        """
        n = len(self.columns)
        names = keys if keys is not None else [c for c, _ in self.columns]
        if n and self.wrap and fast_names([c for c, _ in self.columns]) is not None:
            tup = "(" + "".join(f"v{i}, " for i in range(n)) + ")"
            ind = " " * 16
            lines = [
                "            d = _loads(data)",
                f"            if d.__class__ is dict and len(d) == {n}:",
                "                try:",
            ]
            lines += [f"{ind}    v{i} = d[{name!r}]" for i, name in enumerate(names)]
            lines += [
                f"{ind}except KeyError:",
                f"{ind}    append(_row(d))",
                f"{ind}    continue",
            ]
            for i, (_, t) in enumerate(self.columns):
                check = _INLINE_CHECKS.get(t.name)
                if check:
                    lines.append(f"{ind}if not ({check.format(v=f'v{i}')}):")
                    lines.append(f"{ind}    v{i} = _c{i}(v{i})")
                else:
                    lines.append(f"{ind}v{i} = _c{i}(v{i})")
            lines += [
                f"{ind}append({tup})",
                "            else:",
                "                append(_row(d))",
            ]
            body = "\n".join(lines)
        else:
            body = "            append(_row(_loads(data)))"
        return _BATCH_TEMPLATE.replace("{body}", body).replace("{fname}", fname)

    def _unwrapped_reader_source(self) -> str:
        return "def _row(d):\n    return (_c0(d),)\n"

    @staticmethod
    def _common_source() -> str:
        return _COMMON_SOURCE

    def _writer_source(self, names: list[str], ns: dict[str, Any]) -> str:
        """serialize / serialize_batch; DOUBLE values are written as ksqlDB (Jackson) writes them
        (``coerce.java_double``): NaN and infinities as the strings "NaN", "Infinity", "-Infinity" - orjson
        alone would write null - and Double.toString's exponent forms (``1.0E10``, ``1.0E-5``)."""
        fixes: list[str] = []
        fixed: set[int] = set()
        for i, (_, t) in enumerate(self.columns):
            if t.name == "DOUBLE":
                fixes.append(f"v{i} = r[{i}]\n    if v{i} and not {PLAIN_LOW!r} <= abs(v{i}) < {PLAIN_HIGH!r}:\n"
                             f"        v{i} = _jd(v{i})")
                fixed.add(i)
            else:
                fixer = nonfinite_fixer(t)
                if fixer is not None:
                    ns[f"_fix{i}"] = fixer
                    fixes.append(f"v{i} = _fix{i}(r[{i}])")
                    fixed.add(i)
        if self.wrap:
            obj = "{" + ", ".join(f"{n!r}: {f'v{i}' if i in fixed else f'r[{i}]'}" for i, n in enumerate(names)) + "}"
        else:
            obj = "v0" if 0 in fixed else "r[0]"
        null_check = "r is None" if self.wrap else "r is None or r[0] is None"
        if fixes:
            body = "\n    ".join(fixes)
            return f"""
def serialize(r):
    if {null_check}:
        return None
    {body}
    try:
        return _copy(_mv(_dumps({obj}, default=_default)))
    except TypeError:  # a map with a NULL key or a lone surrogate: dumps_refused
        return _copy(_mv(_refused({obj})))

def serialize_batch(rows):
    return [None if {null_check} else serialize(r) for r in rows]
"""
        return f"""
def serialize(r):
    if {null_check}:
        return None
    try:
        return _copy(_mv(_dumps({obj}, default=_default)))
    except TypeError:  # a map with a NULL key or a lone surrogate: dumps_refused (the batch path falls back here)
        return _copy(_mv(_refused({obj})))

def serialize_batch(rows):
    return [None if {null_check} else _copy(_mv(_dumps({obj}, default=_default))) for r in rows]
"""
