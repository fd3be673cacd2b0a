"""Vectorized functions in the generated batch code: one call per batch instead of one per record.

A function declared ``vectorized=...`` resolves with a ``batch_impl`` (one column per argument -> one list of
results, ``ksqlpy.udf.batch``). While the fast path of a pipeline is generated, each call of such a function
whose arguments only read the record's own columns is collected here; the generated function then, before
its per-record loop, gathers the arguments of every record of the batch (a plain column is one
``map(itemgetter)``, in C), calls the function once, and the loop reads its result by record index (no
call per record) - or, in a stage with nothing else to compute per record, the results are zipped into the
output without a loop (``ksqlpy.plan.codegen._columnar``).

Semantics are those of the per-record form: if gathering the arguments or the batch call raises, every
result of the batch is ``RETRY_RECORD`` and the loop calls the function record by record (its one-record
form) - as for a record the batch form itself did not compute (a NULL a NumPy argument cannot hold) - so a
failing record gets NULL and a processing-log entry naming the function, only for the records that reach
the call: the chosen branch of a CASE, the records a WHERE keeps. The batch call itself sees every record
of the batch (also records a WHERE drops or a CASE does not choose), so a vectorized function must not
have side effects.
"""

from __future__ import annotations

import builtins
import functools
import io
import keyword
import operator
import re
import struct
import tokenize
from dataclasses import dataclass, field
from typing import Any

from ksqlpy.functions.registry import RETRY_RECORD, PartialBatch
from ksqlpy.plan.column_rows import ColumnRows, column_of

_COLUMN = re.compile(r"^c\d+$")
_TEMP = re.compile(r"^_t\d+$")
_ALLOWED = set(dir(builtins)) | set(keyword.kwlist) - {"lambda", "yield", "await"}


@dataclass
class BatchCall:
    var: str  # the local holding the batch's results (``RETRY_RECORD``: one call for that record)
    impl: str  # the const name of the batch form
    args: list[str]  # per-record code of each argument
    dtypes: list[str | None]  # per argument: the NumPy dtype to gather a plain column into (None: a list)


@dataclass
class BatchCalls:
    """Collects the vectorized calls of one generated pipeline (``Codegen.batch``)."""

    consts: dict[str, Any]
    calls: list[BatchCall] = field(default_factory=list)
    reads: dict[str, str] = field(default_factory=dict)  # checked read -> plain read (``unchecked``)

    def call(self, batch_impl: Any, const: Any, arg_codes: list[str], row_code: str) -> str:
        """The code the per-record loop uses for this call: the batch result, or ``row_code`` when the
        arguments read more than the record's columns (lambda parameters, earlier outputs...)."""
        if not arg_codes or not all(self._batchable(a) for a in arg_codes):
            return row_code
        impl = const(batch_impl, "vf")
        for c in self.calls:
            if c.impl == impl and c.args == arg_codes:  # the same call twice: computed once
                return self._read(c.var, row_code)
        var = f"_vr{len(self.calls)}"
        dtypes = list(getattr(batch_impl, "dtypes", None) or [None] * len(arg_codes))
        self.calls.append(BatchCall(var, impl, list(arg_codes), dtypes))
        return self._read(var, row_code)

    def _read(self, var: str, row_code: str) -> str:
        """Record ``_i``'s result: the batch's, or the one-record call when the batch did not compute it."""
        checked = f"(_vt if (_vt := {var}[_i]) is not _RETRY else {row_code})"
        self.reads[checked] = f"{var}[_i]"
        return checked

    def unchecked(self, code: str) -> str:
        """``code`` reading the batch results without checking for ``RETRY_RECORD`` (for the loop run when
        every batch call computed every record, ``_vok``)."""
        for checked, plain in self.reads.items():
            code = code.replace(checked, plain)
        return code

    def _batchable(self, code: str) -> bool:
        names = _names(code)
        return names is not None and all(
            _COLUMN.match(n) or _TEMP.match(n) or n in self.consts or n in _ALLOWED for n in names)

    def prelude(self, unpack: list[str], columns: dict[str, int]) -> list[str]:
        """Lines run once per batch before the per-record loop: gather arguments, call, keep results.
        ``unpack``: the loop's lines that load a record's columns; ``columns``: ``c<i>`` -> row position
        (columns read straight from the row tuples, without a Python loop)."""
        if not self.calls:
            return []
        lines = ["try:"]
        gathered: dict[tuple[str, str | None], str] = {}
        looped: list[tuple[str, str]] = []
        for c in self.calls:
            for arg, dtype in zip(c.args, c.dtypes, strict=True):
                if arg not in columns:
                    dtype = None  # computed per record into a list; the batch form converts it
                if (arg, dtype) in gathered:
                    continue
                name = f"_va{len(gathered)}"
                gathered[arg, dtype] = name
                if arg in columns:
                    if dtype is None:
                        lines.append(f"    {name} = _vcolumn(rows, {columns[arg]})")
                    else:
                        lines.append(f"    {name} = _vgather(rows, {columns[arg]}, {dtype!r})")
                elif _names(arg) == set():  # a constant
                    lines.append(f"    {name} = [{arg}] * len(rows)")
                else:
                    looped.append((name, arg))
        if looped:
            for name, _ in looped:
                lines.append(f"    {name} = []")
            lines.append("    rows = _rows_of(rows)")
            lines.append("    for _i in range(len(rows)):")
            used = set().union(*(_names(arg) for _, arg in looped))
            lines += ["        " + u for u in unpack if not _loads_unused(u, used)]
            for name, arg in looped:
                lines.append(f"        {name}.append({arg})")
        lines.append("except Exception:")
        lines.append("    " + " = ".join(c.var for c in self.calls) + " = _PartialBatch([_RETRY] * len(rows))")
        lines.append("else:")
        for c in self.calls:
            args = ", ".join(gathered[a, d if a in columns else None] for a, d in zip(c.args, c.dtypes, strict=True))
            lines.append(f"    {c.var} = _vcall({c.impl}, len(rows), {args})")
        # every record computed by every batch call: the loop reads results without checking them
        lines.append("_vok = " + " and ".join(f"{c.var}.__class__ is not _PartialBatch" for c in self.calls))
        return lines


def _names(code: str) -> set[str] | None:
    """The names a snippet reads (not attribute names); None if it does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    out: set[str] = set()
    after_dot = False
    for tok in tokens:
        if tok.type == tokenize.NAME and not after_dot and tok.string not in ("None", "True", "False"):
            out.add(tok.string)
        after_dot = tok.type == tokenize.OP and tok.string == "."
    return out


_SYSTEM_LOAD = re.compile(r"^(c\d+) = (?:tss|parts|offs)\[_i\]$")


def _loads_unused(line: str, used: set[str]) -> bool:
    m = _SYSTEM_LOAD.match(line)
    return m is not None and m.group(1) not in used


def vcall(batch: Any, n: int, *cols: list[Any]) -> list[Any]:
    """Call a vectorized function on a batch of ``n`` records; all ``RETRY_RECORD`` (one call per record
    instead) if it raises."""
    try:
        return batch(*cols)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - the per-record fallback reports the failing records
        return PartialBatch([RETRY_RECORD] * n)


# the struct codes whose packing converts exactly as the typed array would and refuses a NULL (``None``
# raises ``struct.error``, where ``np.fromiter`` turns it into NaN); ``?`` would take ``None`` for False
_PACK_CODES = {"float64": "d", "int64": "q", "int32": "i"}


@functools.lru_cache(maxsize=32)
def _packer(code: str, n: int) -> struct.Struct:
    return struct.Struct(f"{n}{code}")  # native order: the array's


def gather(rows: list[tuple[Any, ...]], pos: int, dtype: str) -> Any:
    """Column ``pos`` of the row tuples as a NumPy array of ``dtype``; a list if it does not convert (a
    NULL, an int out of range: the batch form then finds the records it cannot compute).

    Packed in C straight into the array (``Struct.pack_into`` over ``map(itemgetter)``): ~16 ns per value,
    against ~21 for ``np.fromiter`` over the same map, which also needs a NaN scan (it reads None as NaN)."""
    import numpy as np  # only functions declared vectorized="numpy" gather into arrays

    code = _PACK_CODES.get(dtype)
    # a batch held as columns (``ColumnRows``) packs from its column: ~6.5 ns a value against ~16
    values: Any = rows.column(pos) if rows.__class__ is ColumnRows else map(operator.itemgetter(pos), rows)
    if code is not None:
        arr = np.empty(len(rows), dtype=dtype)
        try:
            _packer(code, len(rows)).pack_into(arr, 0, *values)
        except struct.error:  # a NULL, a value out of the type's range
            pass
        else:
            return arr
    return column_of(rows, pos)


__all__ = ["RETRY_RECORD", "BatchCalls", "PartialBatch", "gather", "vcall"]
