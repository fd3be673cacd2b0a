"""Engine results and values in ksqlDB's REST JSON shapes (reference §1.0 and §1.1).

The embedded backend uses this so the renderer has one input format for both backends.
"""

from __future__ import annotations

import base64
import decimal
from typing import Any

from ksqlpy.cli.backend import Entity

# StatementResult.kind -> (REST @type, key holding ``data``)
_LIST_KINDS = {
    "streams": ("streams", "streams"),
    "tables": ("tables", "tables"),
    "queries": ("queries", "queries"),
    "kafka_topics": ("kafka_topics", "topics"),
    "kafka_topics_extended": ("kafka_topics_extended", "topics"),
    "function_names": ("function_names", "functions"),
    "source_descriptions": ("source_descriptions", "sourceDescriptions"),
    "query_descriptions": ("query_descriptions", "queryDescriptions"),
    "sourceDescription": ("sourceDescription", "sourceDescription"),
    "queryDescription": ("queryDescription", "queryDescription"),
    "type_list": ("type_list", "types"),
}


def _command_id(statement: str) -> str:
    """ksqlDB's ``<type>/<entity>/<action>`` id, best effort from the statement's first words."""
    from ksqlpy.cli.lexer import code_tokens

    words = [t.text.upper() for t in code_tokens(statement)[:8]]
    if not words:
        return ""
    action = {"CREATE": "create", "INSERT": "create", "DROP": "drop", "ALTER": "alter"}.get(words[0], "execute")
    if words[0] in ("TERMINATE", "PAUSE", "RESUME"):
        return f"{words[0].lower()}/{words[1] if len(words) > 1 else 'ALL'}/execute"
    kind = next((w.lower() for w in words if w in ("STREAM", "TABLE", "TYPE")), "stream")
    skip = {"CREATE", "DROP", "ALTER", "OR", "REPLACE", "SOURCE", "STREAM", "TABLE", "TYPE", "IF", "NOT",
            "EXISTS", "INSERT", "INTO"}
    name = next((w for w in words if w not in skip), "")
    return f"{kind}/{name}/{action}"


def to_entities(result: Any) -> list[Entity]:
    """One engine StatementResult as the REST entities a server would return for it."""
    kind = result.kind
    stmt = result.statement
    warnings = [{"message": w} for w in (result.warnings or [])]
    base: Entity = {"statementText": stmt, "warnings": warnings}
    if kind == "currentStatus":
        message = result.message or ""
        if message.startswith("Cannot add "):  # IF NOT EXISTS on an existing source
            return [{"@type": "warning_entity", "statementText": stmt, "message": message}]
        # CommandStatusEntity's field order: its warnings come last
        return [{"@type": "currentStatus", "statementText": stmt, "commandId": _command_id(stmt),
                 "commandStatus": {"status": "SUCCESS", "message": message, "queryId": result.query_id},
                 "commandSequenceNumber": -1, "warnings": warnings}]
    if kind == "warning_entity":  # IF NOT EXISTS on an existing source: its message is the warning
        return [{"@type": "warning_entity", "statementText": stmt, "message": result.message, "warnings": []}]
    if kind == "message":
        out: list[Entity] = []
        if result.message:
            out.append({"@type": "cli_message", **base, "message": result.message})
        elif warnings:
            out.append({"@type": "cli_message", **base, "message": ""})
        return out
    if kind == "properties":
        return [{"@type": "properties", **base, **result.data}]
    if kind == "variables":
        data = result.data or {}
        rows = [{"name": k, "value": v} for k, v in data.items()] if isinstance(data, dict) else data
        return [{"@type": "variables", **base, "variables": rows}]
    if kind in ("assert_topic", "assert_schema", "connector_info", "drop_connector", "connector_list",
                "connector_plugins_list", "connector_description"):
        return [{"@type": kind, **base, **(result.data or {})}]
    if kind == "describe_function":
        return [{"@type": "describe_function", **base, **(result.data or {})}]
    if kind in _LIST_KINDS:
        type_name, key = _LIST_KINDS[kind]
        return [{"@type": type_name, **base, key: _rest_shape(kind, result.data)}]
    return [{"@type": kind, **base, "message": result.message, "data": result.data}]


def schema_info(schema: Any) -> Any:
    """A type as ksqlDB's SchemaInfo serializes: ``fields`` and ``memberSchema`` always present (null when
    the type has none), at every depth."""
    if not isinstance(schema, dict):
        return schema
    out = {"type": schema.get("type"), "fields": None, "memberSchema": None}
    if schema.get("fields") is not None:
        out["fields"] = [{"name": f.get("name"), "schema": schema_info(f.get("schema"))} for f in schema["fields"]]
    if schema.get("memberSchema") is not None:
        out["memberSchema"] = schema_info(schema["memberSchema"])
    if schema.get("parameters") is not None:
        out["parameters"] = schema["parameters"]
    return out


def _field_infos(fields: Any) -> Any:
    if not isinstance(fields, list):
        return fields
    return [{**f, "schema": schema_info(f.get("schema"))} if isinstance(f, dict) else f for f in fields]


def _description(d: Any) -> Any:
    """A source description as a server writes it: SchemaInfo fields, the cluster statistics lists present
    (empty)."""
    if not isinstance(d, dict):
        return d
    out = {**d, "fields": _field_infos(d.get("fields"))} if "fields" in d else dict(d)
    out.setdefault("queryOffsetSummaries", [])
    out.setdefault("sourceConstraints", [])
    out.setdefault("clusterStatistics", [])
    out.setdefault("clusterErrorStats", [])
    return out


def _query_description(d: Any) -> Any:
    """A query description as a server writes it (ksqlDB's QueryDescription: its fields in their order, the
    statement as ``statementText``); the embedded engine has no hosts, so no host status."""
    if not isinstance(d, dict):
        return d
    extra = {"backfill": d["backfill"]} if "backfill" in d else {}  # a running Spark backfill's progress
    return {
        **extra,
        "id": d.get("id") or "", "statementText": d.get("statementText", d.get("queryString", "")),
        "windowType": d.get("windowType"), "fields": _field_infos(d.get("fields") or []),
        "sources": list(d.get("sources") or []), "sinks": list(d.get("sinks") or []),
        "topology": d.get("topology", ""), "executionPlan": d.get("executionPlan", ""),
        "overriddenProperties": d.get("overriddenProperties") or {}, "ksqlHostQueryStatus": {},
        "queryType": d.get("queryType", "PERSISTENT"), "queryErrors": list(d.get("queryErrors") or []),
        "tasksMetadata": list(d.get("tasksMetadata") or []), "consumerGroupId": d.get("consumerGroupId") or "",
        "state": d.get("state", "RUNNING"),
    }


def _rest_shape(kind: str, data: Any) -> Any:
    """The engine's data for a listing or description in the shape a server's entity has it (OUTPUT JSON
    prints it: the embedded shell's must read as a server's shell's)."""
    if kind == "type_list" and isinstance(data, dict):
        return {name: schema_info(t) for name, t in data.items()}
    if kind == "sourceDescription":
        return _description(data)
    if kind == "source_descriptions" and isinstance(data, list):
        return [_description(d) for d in data]
    if kind == "queryDescription":
        return _query_description(data)
    if kind == "query_descriptions" and isinstance(data, list):
        return [_query_description(d) for d in data]
    return data


def json_value(value: Any, sql_type: Any = None) -> Any:
    """A SQL value as ksqlDB's REST API writes it: TIMESTAMP/DATE/TIME as ISO strings, BYTES as
    base64, DECIMAL as a plain number, STRUCT/MAP as objects."""
    if value is None:
        return None
    name = getattr(sql_type, "name", None) if sql_type is not None else None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and name in ("TIMESTAMP", "DATE", "TIME"):
        from ksqlpy.functions import isotime

        if name == "TIMESTAMP":
            return isotime.format_timestamp_iso(value)
        if name == "DATE":
            return isotime.format_date_iso(value)
        return isotime.format_time_iso(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return value  # rendered without exponent by the renderer / JSON encoder
    if isinstance(value, dict):
        if name == "STRUCT":
            fields = dict(getattr(sql_type, "fields", ()) or ())
            return {k: json_value(v, fields.get(k)) for k, v in value.items()}
        vt = getattr(sql_type, "value", None)
        return {str(k): json_value(v, vt) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        et = getattr(sql_type, "element", None)
        return [json_value(v, et) for v in value]
    return value
