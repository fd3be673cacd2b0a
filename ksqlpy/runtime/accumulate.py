"""The aggregate calls of one query as generated functions over one state record.

A state record is a list ``[max timestamp, group key tuple, acc_0, acc_1, ...]``: the max timestamp of the
records that contributed (the output timestamp of an aggregate update), the key (so closed windows and
table scans can be emitted without decoding store keys), then one accumulator per aggregate call.

``add``/``undo`` update the record in place: UDAFs may mutate list/dict accumulators in place and return
them (see ``ksqlpy.functions.aggregates``), so anything needed from the *previous* value (the HAVING
outcome of the old row) must be computed before calling them. The functions are generated once per
query so a record costs one call per aggregate, not a loop over a list of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ksqlpy.codegen_cache import compiled

try:  # a list out of the cyclic GC (C, runtime/_ssjoin.c); without the extension records stay tracked
    from ksqlpy.runtime._ssjoin import untrack  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - the optional extension not built

    def untrack(obj: Any) -> Any:
        return obj


TS, KEY, FIRST = 0, 1, 2


class Accumulators:
    """``new/add/undo/merge/results`` for a fixed list of resolved aggregates."""

    def __init__(self, resolved: Sequence[Any], arg_counts: Sequence[int]) -> None:
        self.resolved = list(resolved)
        ns: dict[str, Any] = {}
        inits, adds, undos, merges, results = [], [], [], [], []
        pos = 0
        for i, (r, n) in enumerate(zip(self.resolved, arg_counts, strict=True)):
            ns[f"i{i}"], ns[f"a{i}"], ns[f"r{i}"] = r.init, r.add, r.result
            args = "".join(f", a[{pos + j}]" for j in range(n))
            pos += n
            slot = FIRST + i
            inits.append(f"i{i}()")
            adds.append(f"    r[{slot}] = a{i}(r[{slot}]{args})")
            if r.undo is not None:
                ns[f"u{i}"] = r.undo
                undos.append(f"    r[{slot}] = u{i}(r[{slot}]{args})")
            else:
                undos.append("    raise _NoUndo()")
            if r.merge is not None:
                ns[f"m{i}"] = r.merge
                merges.append(f"    x[{slot}] = m{i}(x[{slot}], y[{slot}])")
            else:
                merges.append("    raise _NoMerge()")
            results.append(f"r{i}(r[{slot}])")
        ns["_NoUndo"] = _NoUndo
        ns["_NoMerge"] = _NoMerge
        ns["_untrack"] = untrack
        tuple_src = ", ".join(results) + ("," if len(results) == 1 else "")
        src = "\n".join([
            "def new(key, ts):",
            f"    return _untrack([ts, key, {', '.join(inits)}])",
            "def add(r, a, ts):",
            *adds,
            "    if ts > r[0]:",
            "        r[0] = ts",
            "    return r",
            "def undo(r, a):",
            *undos,
            "    return r",
            "def merge(x, y):",
            *merges,
            "    if y[0] > x[0]:",
            "        x[0] = y[0]",
            "    return x",
            "def results(r):",
            f"    return ({tuple_src})",
        ])
        exec(compiled(src, "<ksqlpy-accumulators>"), ns)  # noqa: S102 - generated from resolved UDAFs
        self.new: Callable[[tuple, int], list[Any]] = ns["new"]
        self.add: Callable[[list[Any], tuple, int], list[Any]] = ns["add"]
        self.undo: Callable[[list[Any], tuple], list[Any]] = ns["undo"]
        self.merge: Callable[[list[Any], list[Any]], list[Any]] = ns["merge"]
        self.results: Callable[[list[Any]], tuple] = ns["results"]
        self._counts = list(arg_counts)

    def inline_add(self, rec: str, args: str, ns: dict[str, Any], indent: str) -> list[str]:
        """Source lines updating the accumulators of ``rec`` with the argument tuple ``args`` (not the
        timestamp), for a generated loop: a UDAF whose ``add`` carries an ``inline`` template (COUNT, SUM,
        MIN, MAX) is written out, any other is called; ``ns`` receives what the lines refer to."""
        lines: list[str] = []
        pos = 0
        for i, (r, n) in enumerate(zip(self.resolved, self._counts, strict=True)):
            acc = f"{rec}[{FIRST + i}]"
            vals = {f"v{j}": f"{args}[{pos + j}]" for j in range(n)}
            pos += n
            template = getattr(r.add, "inline", None)
            if template is None:
                ns[f"q_add{i}"] = r.add
                call_args = "".join(f", {v}" for v in vals.values())
                lines.append(f"{indent}{acc} = q_add{i}({acc}{call_args})")
                continue
            code = template.format(acc=acc, t=f"q_t{i}", **vals)
            lines.extend(indent + ln for ln in code.split("\n"))
        return lines

    def inline_results(self, rec: str, ns: dict[str, Any]) -> list[str]:
        """One expression per aggregate for its result from ``rec`` (``ns`` receives the functions)."""
        out = []
        for i, r in enumerate(self.resolved):
            acc = f"{rec}[{FIRST + i}]"
            template = getattr(r.result, "inline", None)
            if template is not None:
                out.append(template.format(acc=acc))
            else:
                ns[f"q_res{i}"] = r.result
                out.append(f"q_res{i}({acc})")
        return out


class _NoUndo(Exception):
    pass


class _NoMerge(Exception):
    pass

