"""SHOW / DESCRIBE / EXPLAIN payloads, shaped like ksqlDB's REST entities."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar import ast as A

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine


def _schema_type(t: Any) -> dict[str, Any]:
    from ksqlpy import types as T

    if isinstance(t, T.Array):
        return {"type": "ARRAY", "memberSchema": _schema_type(t.element)}
    if isinstance(t, T.Map):
        return {"type": "MAP", "memberSchema": _schema_type(t.value)}
    if isinstance(t, T.Struct):
        return {"type": "STRUCT", "fields": [{"name": n, "schema": _schema_type(ft)} for n, ft in t.fields]}
    if isinstance(t, T.Decimal):
        return {"type": "DECIMAL", "parameters": {"precision": t.precision, "scale": t.scale}}
    name = {"INTEGER": "INTEGER", "STRING": "STRING"}.get(t.name, t.name)
    return {"type": name}


def fields(source: Source) -> list[dict[str, Any]]:
    out = []
    for c in source.columns:
        f: dict[str, Any] = {"name": c.name, "schema": _schema_type(c.type)}
        if c.key:
            f["type"] = "KEY"
        elif c.headers or c.header_key is not None:
            f["type"] = "HEADER"
            if c.header_key is not None:
                f["headerKey"] = c.header_key
        out.append(f)
    return out


def source_summary(engine: Engine, s: Source) -> dict[str, Any]:
    return {"type": s.kind, "name": s.name, "topic": s.topic, "keyFormat": s.key_format,
            "valueFormat": s.value_format, "isWindowed": s.windowed is not None}


def describe_source(engine: Engine, s: Source, extended: bool) -> dict[str, Any]:
    info = engine.log.describe_topic(s.topic)
    readq = [{"queryString": engine.queries[q].sql, "id": q} for q in engine.catalog.queries_reading(s.name)
             if q in engine.queries]
    writeq = [{"queryString": engine.queries[q].sql, "id": q} for q in engine.catalog.queries_writing(s.name)
              if q in engine.queries]
    from ksqlpy.engine.metrics import offset_summaries, source_statistics

    statistics, error_stats = source_statistics(engine, s.name) if extended else ("", "")
    return {
        "name": s.name, "windowType": s.windowed.type if s.windowed else None, "readQueries": readq,
        "writeQueries": writeq, "fields": fields(s), "type": s.kind, "timestamp": s.timestamp_column or "",
        "statistics": statistics, "errorStats": error_stats, "extended": extended,
        "keyFormat": s.key_format,
        "valueFormat": s.value_format, "topic": s.topic, "partitions": info.partitions if info else 0,
        "replication": info.replicas if info else 0, "statement": s.sql,
        "queryOffsetSummaries": offset_summaries(engine, s.name) if extended else [],
        "sourceConstraints": [],
    }


def describe_function(reg: FunctionRegistry, name: str) -> dict[str, Any]:
    """DESCRIBE FUNCTION against the engine's registry ``reg``: ksqlDB's FunctionDescriptionList."""
    name = name.upper()
    fn = reg.get(name)
    if fn is None:
        raise KsqlStatementError(f"Can't find any functions with the name '{name}'")
    kind = "SCALAR" if name in reg.scalars else ("AGGREGATE" if name in reg.aggregates else "TABLE")
    variations = [{"arguments": v.arguments, "returnType": v.return_type, "description": v.description,
                   "argumentTypes": [a["type"] for a in v.arguments]} for v in fn.variations()]
    author = fn.author or ("ksqlpy" if fn.path == "internal" else "")  # a user function says its own
    return {"name": name, "description": fn.description, "author": author, "version": fn.version,
            "path": fn.path, "type": kind, "functions": variations}


def explain_query(engine: Engine, stmt: A.Explain) -> dict[str, Any]:
    if stmt.query_id is not None:
        q = engine.queries.get(stmt.query_id.upper())
        if q is None:
            raise KsqlStatementError(f"Query with id:{stmt.query_id} does not exist, use SHOW QUERIES to view the "
                                     "full set of queries.")
        return query_details(engine, q)
    inner = stmt.statement
    if isinstance(inner, (A.CreateAsSelect, A.InsertInto, A.SelectStatement)):
        from ksqlpy.analysis.query import analyze_query

        name = getattr(inner, "name", None) or getattr(inner, "target", None)
        plan = analyze_query(inner.query, engine.catalog, engine.session_state(), sink_name=name,
                             persistent=not isinstance(inner, A.SelectStatement), sql=inner.text)
        return {"queryString": inner.text, "id": "", "sinks": [name] if name else [], "sources": [plan.source.name],
                "fields": [], "executionPlan": plan_text(plan), "topology": "", "state": "UNKNOWN",
                "queryType": "PERSISTENT" if name else "PUSH", "overriddenProperties": {}}
    raise KsqlStatementError("The provided statement does not run a query: EXPLAIN needs a query id or a query")


def query_details(engine: Engine, q: Any) -> dict[str, Any]:
    """EXPLAIN <id> and SHOW QUERIES EXTENDED: the query, its plan, and per task its state and lag."""
    from ksqlpy.engine.metrics import tasks_metadata

    error = getattr(q, "error", None)
    return {"queryString": q.sql, "id": q.query_id, "sinks": [q.sink_name], "sources": q.source_names,
            "fields": fields(q.sink), "executionPlan": plan_text(q.plan), "topology": topology_text(q),
            "state": q.state, "queryType": "PERSISTENT",
            "overriddenProperties": dict(getattr(q, "overridden_properties", None) or {}),
            "tasksMetadata": tasks_metadata(engine, q),
            "queryErrors": [{"errorMessage": error, "type": "UNKNOWN"}] if error and q.state == "ERROR" else []}


def plan_text(plan: Any) -> str:
    lines = [" > [ SINK ] | Schema: " + ", ".join(f"{c.name} {c.type}" for c in plan.key + plan.value)]
    lines.append("\t\t > [ PROJECT ] | " + ", ".join(f"{c.expr} AS {c.name}" for c in plan.key + plan.value))
    if plan.aggregation is not None:
        lines.append("\t\t\t\t > [ AGGREGATE ] | GROUP BY " + ", ".join(str(e) for e in plan.aggregation.group_by))
    if plan.rekey is not None:
        lines.append("\t\t\t\t > [ REKEY ] | PARTITION BY " + ", ".join(str(e) for e in plan.rekey.exprs))
    if plan.where is not None:
        lines.append(f"\t\t\t\t\t\t > [ FILTER ] | {plan.where}")
    lines.append(f"\t\t\t\t\t\t\t\t > [ SOURCE ] | {plan.source.name} ({plan.source.topic})")
    return "\n".join(lines) + "\n"


def topology_text(q: Any) -> str:
    lines = ["Topologies:", "   Sub-topology: 0",
             f"    Source: KSTREAM-SOURCE-0000000000 (topics: [{q.plan.source.topic}])",
             f"    Sink: KSTREAM-SINK (topic: {q.sink.topic})"]
    return "\n".join(lines) + "\n"
