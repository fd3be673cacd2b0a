"""Engine results as ksqlDB's /ksql entities (``@type`` + ``statementText`` + ``warnings`` + payload).

The engine's payloads are already close to ksqlDB's; this module fills in what the wire needs exactly:
SchemaInfo objects with ``fields``/``memberSchema`` always present, RunningQuery objects for read/write
queries, query descriptions under ksqlDB's field names, and ``currentStatus`` for distributed statements.
"""

from __future__ import annotations

from typing import Any

from ksqlpy import types as T
from ksqlpy.engine.results import StatementResult

Entity = dict[str, Any]


def schema_info(t: Any) -> dict[str, Any]:
    """ksqlDB's SchemaInfo for a SQL type (or normalizes an engine-made partial one)."""
    if isinstance(t, dict):
        out = {"type": t.get("type"), "fields": None, "memberSchema": None}
        if t.get("fields") is not None:
            out["fields"] = [{"name": f["name"], "schema": schema_info(f["schema"])} for f in t["fields"]]
        if t.get("memberSchema") is not None:
            out["memberSchema"] = schema_info(t["memberSchema"])
        if t.get("parameters") is not None:
            out["parameters"] = t["parameters"]
        return out
    out = {"type": t.name, "fields": None, "memberSchema": None}
    if isinstance(t, T.Array):
        out["memberSchema"] = schema_info(t.element)
    elif isinstance(t, T.Map):
        out["memberSchema"] = schema_info(t.value)
    elif isinstance(t, T.Struct):
        out["fields"] = [{"name": n, "schema": schema_info(ft)} for n, ft in t.fields]
    elif isinstance(t, T.Decimal):
        out["parameters"] = {"precision": t.precision, "scale": t.scale}
    return out


def field_infos(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for f in fields or []:
        info = {"name": f["name"], "schema": schema_info(f["schema"])}
        for extra in ("type", "headerKey"):
            if f.get(extra) is not None:
                info[extra] = f[extra]
        out.append(info)
    return out


def running_query(engine: Any, query_id: str) -> dict[str, Any]:
    q = engine.queries.get(query_id)
    if q is None:
        return {"queryString": "", "sinks": [], "sinkKafkaTopics": [], "id": query_id, "statusCount": {},
                "queryType": "PERSISTENT", "state": "UNKNOWN"}
    return {"queryString": q.statement_text, "sinks": [q.sink_name], "sinkKafkaTopics": [q.sink.topic], "id": q.query_id,
            "statusCount": {q.state: 1}, "queryType": "PERSISTENT", "state": q.state}


def source_description(engine: Any, d: dict[str, Any]) -> dict[str, Any]:
    out = dict(d)
    out["fields"] = field_infos(d.get("fields") or [])
    out["readQueries"] = [running_query(engine, q["id"]) for q in d.get("readQueries") or []]
    out["writeQueries"] = [running_query(engine, q["id"]) for q in d.get("writeQueries") or []]
    out.setdefault("queryOffsetSummaries", [])
    out.setdefault("sourceConstraints", [])
    out.setdefault("clusterStatistics", [])
    out.setdefault("clusterErrorStats", [])
    return out


def query_description(engine: Any, d: dict[str, Any], host: str) -> dict[str, Any]:
    qid = d.get("id") or ""
    q = engine.queries.get(qid)
    window = d.get("windowType")
    if q is not None and getattr(q.sink, "windowed", None) is not None:
        window = q.sink.windowed.type
    service = engine.prop("ksql.service.id", "default_")
    prefix = engine.prop("ksql.persistent.prefix", "query_")
    state = d.get("state", "RUNNING")
    extra = {"backfill": d["backfill"]} if "backfill" in d else {}  # a running Spark backfill's progress
    return {
        **extra,
        "id": qid, "statementText": d.get("queryString", ""), "windowType": window,
        "fields": field_infos(d.get("fields") or []), "sources": list(d.get("sources") or []),
        "sinks": list(d.get("sinks") or []), "topology": d.get("topology", ""),
        "executionPlan": d.get("executionPlan", ""), "overriddenProperties": d.get("overriddenProperties") or {},
        "ksqlHostQueryStatus": {host: state} if qid and not d.get("_hostless") else {},
        "queryType": d.get("queryType", "PERSISTENT"),
        "queryErrors": list(d.get("queryErrors") or []), "tasksMetadata": list(d.get("tasksMetadata") or []),
        "consumerGroupId": d.get("consumerGroupId") or (f"_confluent-ksql-{service}{prefix}{qid}" if qid else ""),
        "state": state,
    }


def properties_entity(data: dict[str, Any]) -> dict[str, Any]:
    """SHOW PROPERTIES as the engine listed it (``session_statements.properties_listing``)."""
    return {"properties": data["properties"], "overwrittenProperties": data["overwrittenProperties"],
            "defaultProperties": data["defaultProperties"]}


def current_status(statement: str, command_id: str, seq: int, result: StatementResult,
                   status: str = "SUCCESS") -> Entity:
    return {"@type": "currentStatus", "statementText": statement, "commandId": command_id,
            "commandStatus": {"status": status, "message": result.message, "queryId": result.query_id},
            "commandSequenceNumber": seq, "warnings": [{"message": w} for w in result.warnings]}


def variables_entity(statement: str, variables: dict[str, str]) -> Entity:
    """SHOW VARIABLES: ksqlDB's VariablesList, one ``{name, value}`` per variable in definition order."""
    return {"@type": "variables", "statementText": statement, "warnings": [],
            "variables": [{"name": k, "value": v} for k, v in variables.items()]}


def warning_entity(statement: str, message: str) -> Entity:
    return {"@type": "warning_entity", "statementText": statement, "message": message, "warnings": []}


def to_entity(engine: Any, result: StatementResult, *, overrides: dict[str, Any], host: str) -> Entity | None:
    """A local (non-distributed) statement's entity, or None for statements that yield none."""
    kind, data = result.kind, result.data
    base: Entity = {"statementText": result.statement, "warnings": [{"message": w} for w in result.warnings]}
    if kind == "message":
        return None
    if kind == "warning_entity":  # its message is the warning: not repeated in ``warnings``
        return warning_entity(result.statement, result.message)
    if kind == "currentStatus":
        return {"@type": "currentStatus", **base, "statementText": result.injected_text or result.statement,
                "commandId": "", "commandSequenceNumber": -1,
                "commandStatus": {"status": "SUCCESS", "message": result.message, "queryId": result.query_id}}
    if kind in ("streams", "tables"):
        return {"@type": kind, **base, kind: data}
    if kind == "queries":
        return {"@type": "queries", **base, "queries": data}
    if kind in ("kafka_topics", "kafka_topics_extended"):
        return {"@type": kind, **base, "topics": data}
    if kind == "function_names":
        return {"@type": "function_names", **base, "functions": data}
    if kind == "describe_function":
        return {"@type": "describe_function", **base, **(data or {})}
    if kind == "type_list":
        types = {name: schema_info(t) for name, t in engine.catalog.types().items()}
        return {"@type": "type_list", **base, "types": types}
    if kind == "variables":
        rows = [{"name": k, "value": v} for k, v in (data or {}).items()] if isinstance(data, dict) else data
        return {"@type": "variables", **base, "variables": rows}
    if kind == "properties":
        return {"@type": "properties", **base, **properties_entity(data)}
    if kind == "sourceDescription":
        return {"@type": "sourceDescription", **base, "sourceDescription": source_description(engine, data)}
    if kind == "source_descriptions":
        return {"@type": "source_descriptions", **base,
                "sourceDescriptions": [source_description(engine, d) for d in data]}
    if kind == "queryDescription":
        return {"@type": "queryDescription", **base, "queryDescription": query_description(engine, data, host)}
    if kind == "query_descriptions":
        return {"@type": "query_descriptions", **base,
                "queryDescriptions": [query_description(engine, d, host) for d in data]}
    if kind in ("assert_topic", "assert_schema"):
        return {"@type": kind, **base, **data}
    if kind == "connector_description":
        return {"@type": kind, **base, **data,
                "sources": [source_description(engine, d) for d in data["sources"]]}
    if kind in ("connector_info", "drop_connector", "connector_list", "connector_plugins_list"):
        return {"@type": kind, **base, **data}
    if kind == "terminate_query":
        return {"@type": "terminate_query", **base, "queryId": result.query_id, "wasTerminated": True}
    return {"@type": kind, **base, "message": result.message}
