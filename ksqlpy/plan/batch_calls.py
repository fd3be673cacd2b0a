"""Vectorized functions in the generated batch code: one call per batch instead of one per record.

A function declared ``vectorized=True`` resolves with a ``batch_impl`` (one list per argument -> one list of
results). While the fast path of a pipeline is generated, each call of such a function whose arguments
only read the record's own columns is collected here; the generated function then, before its per-record
loop, gathers the arguments of every record of the batch (a plain column is one ``map(itemgetter)``),
calls the function once, and the loop reads its result by record index.

Semantics are those of the per-record form: if gathering the arguments or the batch call raises, the batch
falls back to calling the function record by record (its one-record form), so a failing record gets NULL and
a processing-log entry naming the function, only for the records that reach the call - the chosen branch of
a CASE, the records a WHERE keeps. The batch call itself sees every record of the batch (also records a
WHERE drops or a CASE does not choose), so a vectorized function must not have side effects.
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any

_COLUMN = re.compile(r"^c\d+$")
_TEMP = re.compile(r"^_t\d+$")
_ALLOWED = set(dir(builtins)) | set(keyword.kwlist) - {"lambda", "yield", "await"}


@dataclass
class BatchCall:
    var: str  # the local holding the batch's results (None: fall back to one call per record)
    impl: str  # the const name of the batch form
    args: list[str]  # per-record code of each argument


@dataclass
class BatchCalls:
    """Collects the vectorized calls of one generated pipeline (``Codegen.batch``)."""

    consts: dict[str, Any]
    calls: list[BatchCall] = field(default_factory=list)

    def call(self, batch_impl: Any, const: Any, arg_codes: list[str], row_code: str) -> str:
        """The code the per-record loop uses for this call: the batch result, or ``row_code`` when the
        arguments read more than the record's columns (lambda parameters, earlier outputs...)."""
        if not arg_codes or not all(self._batchable(a) for a in arg_codes):
            return row_code
        impl = const(batch_impl, "vf")
        for c in self.calls:
            if c.impl == impl and c.args == arg_codes:  # the same call twice: computed once
                return f"({c.var}[_i] if {c.var} is not None else {row_code})"
        var = f"_vr{len(self.calls)}"
        self.calls.append(BatchCall(var, impl, list(arg_codes)))
        return f"({var}[_i] if {var} is not None else {row_code})"

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
        gathered: dict[str, str] = {}
        looped: list[tuple[str, str]] = []
        for c in self.calls:
            for arg in c.args:
                if arg in gathered:
                    continue
                name = f"_va{len(gathered)}"
                gathered[arg] = name
                if arg in columns:
                    lines.append(f"    {name} = list(map(_itemgetter({columns[arg]}), rows))")
                elif _names(arg) == set():  # a constant
                    lines.append(f"    {name} = [{arg}] * len(rows)")
                else:
                    looped.append((name, arg))
        if looped:
            for name, _ in looped:
                lines.append(f"    {name} = []")
            lines.append("    for _i in range(len(rows)):")
            used = set().union(*(_names(arg) for _, arg in looped))
            lines += ["        " + u for u in unpack if not _loads_unused(u, used)]
            for name, arg in looped:
                lines.append(f"        {name}.append({arg})")
        lines.append("except Exception:")
        lines.append("    " + " = ".join(c.var for c in self.calls) + " = None")
        lines.append("else:")
        for c in self.calls:
            lines.append(f"    {c.var} = _vcall({c.impl}, {', '.join(gathered[a] for a in c.args)})")
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


def vcall(batch: Any, *cols: list[Any]) -> list[Any] | None:
    """Call a vectorized function on a batch; None (one call per record instead) if it raises."""
    try:
        return batch(*cols)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - the per-record fallback reports the failing records
        return None


__all__ = ["BatchCalls", "vcall"]
