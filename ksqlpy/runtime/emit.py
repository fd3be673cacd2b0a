"""From an aggregate's state record to output rows: the post-aggregation projection and HAVING.

The projection is compiled once per query over the post-aggregation schema (group key columns, one
column per aggregate, WINDOWSTART/WINDOWEND for windowed aggregations, ROWTIME). An expression that fails
on one row yields NULL for that column and a processing-log entry, as ksqlDB does; the row still goes out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ksqlpy.analysis.scope import scope_for
from ksqlpy.expr.compiler import ExprCompiler
from ksqlpy.plan.logical import OutputColumn, QueryPlan
from ksqlpy.runtime.processing_log import ProcessingLog

Projector = Callable[[tuple], tuple]


def build_projector(plan: QueryPlan, groups: list[list[OutputColumn]], having: exp.Expression | None,
                    plog: ProcessingLog, query_id: str) -> Projector:
    """``fn(row) -> (group_0 tuple, group_1 tuple, ..., passes_having)`` over the post-aggregation row."""
    assert plan.projection_schema is not None
    schema = plan.projection_schema
    consts: dict[str, Any] = {}
    comp = ExprCompiler(scope_for(schema, plan.alias, var="c"), consts, registry=plan.functions,
                        custom_types=plan.custom_types)
    names = [f"c{i}" for i in range(len(schema.columns))]
    unpack = f"    {', '.join(names)}{',' if len(names) == 1 else ''} = row"
    h = comp.compile_predicate(having).code if having is not None else "True"
    fast = ["def _fast(row):", unpack]
    safe = ["def _safe(row, _s):", unpack]
    outs_fast, outs_safe = [], []
    for g, cols in enumerate(groups):
        parts_f, parts_s = [], []
        for k, c in enumerate(cols):
            code = comp.compile(c.expr).code
            parts_f.append(code)
            safe.append(f"    o{g}_{k} = _s({c.name!r}, lambda: {code})")
            parts_s.append(f"o{g}_{k}")
        comma = "," if len(cols) == 1 else ""
        outs_fast.append("(" + ", ".join(parts_f) + comma + ")")
        outs_safe.append("(" + ", ".join(parts_s) + comma + ")")
    fast.append(f"    return ({', '.join(outs_fast)}, ({h}) is True)")
    safe.append(f"    _h = _s('HAVING', lambda: ({h}) is True)")
    safe.append(f"    return ({', '.join(outs_safe)}, _h is True)")
    ns = dict(consts)
    exec(compile("\n".join(fast + safe), "<ksqlpy-aggregate-project>", "exec"), ns)  # noqa: S102
    fast_fn, safe_fn = ns["_fast"], ns["_safe"]

    def project(row: tuple) -> tuple:
        try:
            return fast_fn(row)
        except Exception:  # noqa: BLE001 - slow path: per column, failures become NULL
            def guard(what: str, f: Callable[[], Any]) -> Any:
                try:
                    return f()
                except Exception as e:  # noqa: BLE001
                    plog.record_error(query_id, f"Error computing expression {what}: {e}", row)
                    return None

            return safe_fn(row, guard)

    project.fast = fast_fn  # type: ignore[attr-defined]  # hot loops call it inline, ``project`` on failure
    if having is None and len(groups) == 2:  # what a generated batch loop inlines (runtime.agg_loop)
        project.parts = (len(names), outs_fast[0], outs_fast[1], consts)  # type: ignore[attr-defined]
    return project
