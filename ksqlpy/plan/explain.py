"""A logical plan as ksqlDB's EXPLAIN prints a query's plan (``executionPlan``).

One line per node, the sink first, each input two tabs deeper than the node reading it (ksqlDB's
``PlanSummary``)::

     > [ SINK ] | Schema: `ID` INTEGER KEY, `N` BIGINT | Logger: CTAS_T_0.T | ...
    \t\t > [ PROJECT ] | Schema: ... | Logger: CTAS_T_0.Aggregate.Project | ...
    \t\t\t\t > [ AGGREGATE ] | Schema: ... | Logger: CTAS_T_0.Aggregate.Aggregate | ...

The schema is ksqlDB's ``LogicalSchema`` text (names back-quoted, ``KEY`` after key columns); the logger
is the query id and the step's context, the names ksqlDB gives its steps. After them each line shows what
the node computes and what was decided about it: its bound expressions, the join flavour and which sides
are repartitioned, whether a re-key or a GROUP BY moves rows to other partitions, how a pull query reads
the table. A push or pull query has no sink: its plan starts at the projection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ksqlpy.expr.bound import Cast, ColumnRef, Expr
from ksqlpy.grammar.ast import WindowSpec
from ksqlpy.plan.logical import (
    Aggregate,
    ColumnRole,
    Filter,
    FlatMap,
    Join,
    PlanNode,
    Project,
    PullAccess,
    Rekey,
    RowSchema,
    Scan,
    Sink,
)

_ROLE_SUFFIX = {ColumnRole.KEY: " KEY", ColumnRole.HEADER: " HEADERS"}


def schema_text(schema: RowSchema) -> str:
    """ksqlDB's ``LogicalSchema.toString()``."""
    return ", ".join(f"`{c.name.replace('`', '``')}` {c.type}{_ROLE_SUFFIX.get(c.role, '')}" for c in schema.columns)


def plan_text(plan: Sink, query_id: str) -> str:
    """The plan of ``plan`` run as ``query_id``."""
    root: PlanNode = plan if plan.persistent else plan.input
    lines: list[str] = []
    _print(root, query_id, "", 0, lines)
    if not plan.persistent and plan.limit is not None:
        lines[0] += f" | Limit: {plan.limit}"
    return "".join(line + "\n" for line in lines)


def _expr(e: Expr) -> str:
    return str(e)


def _by_column_names(e: Expr) -> Expr:
    """HAVING over this plan's own columns (the aggregates as listed, the group keys by name) rather than as a
    failing record logs it (ksqlDB's per-occurrence internal names)."""
    return e.transform(lambda n: replace(n, display=None) if isinstance(n, ColumnRef) else n)


def _output(e: Expr) -> str:
    """An output column's expression; a conversion to the column's type shows (INSERT INTO a wider type)."""
    if isinstance(e, Cast) and e.implicit:
        return f"CAST({_expr(e.operand)} AS {e.type})"
    return _expr(e)


def _aliased(exprs: list[Expr], names: list[str], show: Callable[[Expr], str] = _expr) -> str:
    return "[" + ", ".join(f"{show(e)} AS {n}" for e, n in zip(exprs, names, strict=True)) + "]"


def _ms(v: int) -> str:
    return f"{v} ms"


def _window(w: WindowSpec) -> str:
    parts = [f"SIZE {_ms(w.size_ms)}"] if w.type != "SESSION" else [f"GAP {_ms(w.size_ms)}"]
    if w.advance_ms is not None:
        parts.append(f"ADVANCE BY {_ms(w.advance_ms)}")
    if w.retention_ms is not None:
        parts.append(f"RETENTION {_ms(w.retention_ms)}")
    if w.grace_ms is not None:
        parts.append(f"GRACE PERIOD {_ms(w.grace_ms)}")
    return f"{w.type} ({', '.join(parts)})"


def _yes(flag: bool) -> str:
    return "true" if flag else "false"


def _details(node: PlanNode) -> list[str]:
    """What the node computes and what was decided about it."""
    if isinstance(node, Sink):
        out = [f"Name: {node.name}"]
        t = node.target
        if t is not None:
            out += [f"Topic: {t.topic}", f"Formats: {t.key_format}/{t.value_format}"]
        return out
    if isinstance(node, Project):
        out = []
        if node.key:
            out.append("Key: " + _aliased([c.expr for c in node.key], [c.name for c in node.key], _output))
        out.append("Value: " + _aliased([c.expr for c in node.value], [c.name for c in node.value], _output))
        return out
    if isinstance(node, FlatMap):
        return ["Functions: [" + ", ".join(_expr(f) for f in node.functions) + "]"]
    if isinstance(node, Aggregate):
        out = ["Group by: " + _aliased(node.group_by, node.key_names),
               "Aggregates: [" + ", ".join(f"{a.text} AS {a.name}" for a in node.aggregates) + "]"]
        if node.window is not None:
            out.append(f"Window: {_window(node.window)}")
        if node.having is not None:
            out.append(f"Having: {_expr(_by_column_names(node.having))}")
        out += [f"Emit: {node.emit}", f"Repartition: {_yes(node.repartition)}"]
        return out
    if isinstance(node, Rekey):
        key = _aliased(node.exprs, node.names) if node.exprs else "NULL"
        return [f"Key: {key}", f"Repartition: {_yes(node.repartition)}"]
    if isinstance(node, Filter):
        return [f"Predicate: {_expr(node.predicate)}"]
    if isinstance(node, Join):
        on = " AND ".join(f"{_expr(a)} = {_expr(b)}" for a, b in zip(node.left_exprs, node.right_exprs, strict=True))
        out = [f"{node.kind} {node.flavor} ON {on}"]
        if node.within is not None:
            w = node.within
            within = f"Within: ({_ms(w.before_ms)}, {_ms(w.after_ms)})"
            if w.grace_ms is not None:
                within += f" GRACE PERIOD {_ms(w.grace_ms)}"
            out.append(within)
        sides = [s for s, moved in (("left", node.repartition_left), ("right", node.repartition_right)) if moved]
        out += [f"Repartition: {', '.join(sides) if sides else 'none'}", f"Key format: {node.key_format}"]
        return out
    if isinstance(node, Scan):
        src = node.source
        named = src.name if node.alias == src.name else f"{src.name} AS {node.alias}"
        out = [f"{src.kind} {named}", f"Topic: {src.topic}"]
        if node.access is PullAccess.KEY_LOOKUP:
            keys = ", ".join(_lookup_key(k, lo, hi) for k, lo, hi in node.lookup or [])
            out.append(f"Access: {node.access} [{keys}]")
        elif node.access is not None:
            out.append(f"Access: {node.access}")
        return out
    raise TypeError(f"not a plan node: {node!r}")


def _lookup_key(key: tuple, lo: int | None, hi: int | None) -> str:
    text = ", ".join(repr(v) for v in key)
    if len(key) != 1:
        text = f"({text})"
    if lo is not None or hi is not None:
        text += f" WINDOWSTART [{'' if lo is None else lo}, {'' if hi is None else hi}]"
    return text


_OPS: dict[type, str] = {Sink: "SINK", Project: "PROJECT", FlatMap: "FLAT_MAP", Aggregate: "AGGREGATE",
                         Rekey: "REKEY", Filter: "FILTER", Join: "JOIN", Scan: "SOURCE"}


def _context(node: PlanNode, scan_context: str, aggregated: bool) -> str:
    """ksqlDB's name for the step (its query context), ``.``-separated."""
    if isinstance(node, Sink):
        return node.name or "OUTPUT"
    if isinstance(node, Project):
        return "Aggregate.Project" if aggregated else "Project"
    if isinstance(node, Aggregate):
        return "Aggregate.Aggregate"
    if isinstance(node, Rekey):
        return "PartitionBy"
    if isinstance(node, FlatMap):
        return "FlatMap"
    if isinstance(node, Filter):
        return "WhereFilter"
    if isinstance(node, Join):
        return f"{node.context}Join"
    return f"{scan_context}.Source"


def _print(node: PlanNode, query_id: str, scan_context: str, depth: int, lines: list[str]) -> None:
    aggregated = isinstance(node, Project) and any(isinstance(n, Aggregate) for n in node.walk())
    parts = [f"{chr(9) * (2 * depth)} > [ {_OPS[type(node)]} ]", f"Schema: {schema_text(node.schema)}",
             f"Logger: {query_id}.{_context(node, scan_context or 'KsqlTopic', aggregated)}", *_details(node)]
    lines.append(" | ".join(parts))
    if isinstance(node, Join):
        _print(node.left, query_id, f"{node.context}KafkaTopic_Left", depth + 1, lines)
        _print(node.right, query_id, f"{node.context}KafkaTopic_Right", depth + 1, lines)
        return
    for child in node.inputs:
        _print(child, query_id, scan_context, depth + 1, lines)
