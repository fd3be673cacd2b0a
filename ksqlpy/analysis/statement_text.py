"""A CREATE ... AS SELECT statement printed the way ksqlDB prints the statement it planned.

ksqlDB ends the errors it finds while planning a query's physical form (a sink key format that cannot
hold the key, for example) with ``Statement: <the rewritten statement>``: every column qualified by its
source, every select item named, one clause per line::

    CREATE TABLE OUTPUT WITH (KEY_FORMAT='KAFKA') AS SELECT
      TEST.F1 K1,
      COUNT(*) TOTAL
    FROM TEST TEST
    GROUP BY TEST.F1
    EMIT CHANGES
"""

from __future__ import annotations

from typing import Any

from ksqlpy.analysis.written import qualified
from ksqlpy.expr.format import format_expression
from ksqlpy.grammar.ast import CreateAsSelect, Query, WindowSpec
from ksqlpy.plan.logical import Scan, Sink


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _window(w: WindowSpec) -> str:
    """Each duration in the unit it was written in (ksqlDB keeps the TimeUnit: ``SIZE 1 SECONDS``)."""
    def ms(what: str, v: int) -> str:
        return w.printed.get(what, f"{v} MILLISECONDS")

    parts = [f"SIZE {ms('size', w.size_ms)}"] if w.type != "SESSION" else [ms("size", w.size_ms)]
    if w.advance_ms is not None:
        parts.append(f"ADVANCE BY {ms('advance', w.advance_ms)}")
    if w.retention_ms is not None:
        parts.append(f"RETENTION {ms('retention', w.retention_ms)}")
    if w.grace_ms is not None:
        parts.append(f"GRACE PERIOD {ms('grace', w.grace_ms)}")
    return f"WINDOW {w.type} ( {', '.join(parts)} )"


def create_as_text(stmt: CreateAsSelect, plan: Sink) -> str:
    """The statement as ksqlDB prints it after analysis."""
    q: Query = stmt.query
    scan = plan.bottom
    alias = scan.alias if isinstance(scan, Scan) else plan.input_source.name
    head = f"CREATE {stmt.kind} {stmt.name}"
    if stmt.properties:
        head += " WITH (" + ", ".join(f"{k}={_literal(v)}" for k, v in stmt.properties.items()) + ")"
    lines = [f"{head} AS SELECT"]
    items = [f"  {text} {name}" for text, name in plan.project.printed]
    lines.append(",\n".join(items))
    if plan.project.printed_from is not None:  # a join: printed by the join analysis
        lines += plan.project.printed_from
        lines.append(f"EMIT {q.emit or 'CHANGES'}")
        return "\n".join(lines)
    source = q.source
    lines.append(f"FROM {source.name} {source.alias or source.name}")
    if q.window is not None:
        lines.append(_window(q.window))
    if q.where is not None:
        lines.append(f"WHERE {format_expression(qualified(q.where, alias))}")
    if q.group_by:
        lines.append("GROUP BY " + ", ".join(format_expression(qualified(g, alias)) for g in q.group_by))
    if q.partition_by:
        lines.append("PARTITION BY " + ", ".join(format_expression(qualified(p, alias)) for p in q.partition_by))
    if q.having is not None:
        lines.append(f"HAVING {format_expression(qualified(q.having, alias))}")
    lines.append(f"EMIT {q.emit or 'CHANGES'}")  # a persistent query always emits changes unless FINAL
    return "\n".join(lines)
