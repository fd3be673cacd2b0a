"""From an aggregate's state record to output rows: the post-aggregation projection and HAVING.

The projection is generated once per query over the post-aggregation row (group key columns, one column
per aggregate, WINDOWSTART/WINDOWEND for windowed aggregations, ROWTIME). One generator writes both paths:
the fast one computes every output in one expression; when it raises, the slow one evaluates each column
on its own, so an expression that fails on one row yields NULL for that column and a processing-log entry,
as ksqlDB does; the row still goes out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ksqlpy.codegen_cache import compiled
from ksqlpy.expr import bound as B
from ksqlpy.expr.codegen import Codegen
from ksqlpy.expr.failures import PredicateSite, ProjectionSite
from ksqlpy.expr.printer import format_bound
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.logical import OutputColumn, RowSchema
from ksqlpy.runtime.processing_log import ProcessingLog

Projector = Callable[[tuple], tuple]


class InlineProjection(NamedTuple):
    """The projection as code a generated batch loop pastes in (``runtime.agg_loop``): the number of row
    columns (read as ``c0``, ``c1``...), the key and value tuple expressions, and the globals they use."""

    n_columns: int
    key_code: str
    value_code: str
    consts: dict[str, Any]


@dataclass
class Projection:
    """``project(row) -> (group_0 tuple, group_1 tuple, ..., passes_having)``; ``inline`` when a batch loop
    may paste the projection in (no HAVING, a key and a value group)."""

    project: Projector
    inline: InlineProjection | None


def build_projector(schema: RowSchema, registry: FunctionRegistry, groups: list[list[OutputColumn]],
                    having: B.Expr | None, plog: ProcessingLog, query_id: str) -> Projection:
    """The projection of ``groups`` (and ``having``) over the post-aggregation row ``schema``; calls resolve
    against the engine's function ``registry``."""
    n = len(schema.columns)
    names = [f"c{i}" for i in range(n)]
    unpack = f"{', '.join(names)}{',' if n == 1 else ''} = row"
    consts: dict[str, Any] = {}

    def paths(safe: bool) -> tuple[list[list[str]], str]:
        cg = Codegen(names, consts, registry, safe=safe)
        outs = [[cg.text(c.expr) for c in cols] for cols in groups]
        passes = f"({cg.text(having)}) is True" if having is not None else "True"
        return outs, passes

    fast_outs, fast_having = paths(safe=False)
    safe_outs, safe_having = paths(safe=True)

    def tup(items: list[str]) -> str:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    fast = ["def _fast(row):", "    " + unpack,
            f"    return ({', '.join(tup(o) for o in fast_outs)}, {fast_having})"]
    safe = ["def _safe(row, _s):", "    " + unpack]
    def site(what: object) -> str:
        name = f"_w{len(consts)}"
        consts[name] = what
        return name

    for g, (cols, codes) in enumerate(zip(groups, safe_outs, strict=True)):
        safe += [f"    o{g}_{k} = _s({site(ProjectionSite(format_bound(c.expr), c.name, k))}, lambda: {code})"
                 for k, (c, code) in enumerate(zip(cols, codes, strict=True))]
    having_site = site(PredicateSite(format_bound(having) if having is not None else "true"))
    safe.append(f"    _h = _s({having_site}, lambda: {safe_having})")
    safe.append("    return (" + ", ".join(tup([f"o{g}_{k}" for k in range(len(cols))])
                                       for g, cols in enumerate(groups)) + ", _h is True)")
    ns = dict(consts)
    exec(compiled("\n".join(fast + safe), "<ksqlpy-aggregate-project>"), ns)  # noqa: S102
    fast_fn, safe_fn = ns["_fast"], ns["_safe"]

    def project(row: tuple) -> tuple:
        try:
            return fast_fn(row)
        except Exception:  # noqa: BLE001 - slow path: per column, failures become NULL
            def guard(what: object, f: Callable[[], Any]) -> Any:
                try:
                    return f()
                except Exception as e:  # noqa: BLE001
                    plog.expression_error(query_id, what, e, row)
                    return None

            return safe_fn(row, guard)

    inline = None
    if having is None and len(groups) == 2:
        inline = InlineProjection(n, tup(fast_outs[0]), tup(fast_outs[1]), consts)
    return Projection(project, inline)
