"""Request bodies, as pydantic models: they validate input and describe it in the OpenAPI schema.

Bodies are parsed by the handlers themselves (``parse_body``) because ksqlDB reads every body as JSON
whatever its Content-Type, ignores unknown fields and answers problems with its own error envelope
(400/40000), not FastAPI's 422.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ksqlpy.server.errors import ServerError, bad_request

Scalar = str | int | float | bool | None


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class KsqlRequest(_Body):
    """POST /ksql and /query (and the ``request`` parameter of /ws/query)."""

    ksql: str = Field(description="One or more ';'-terminated statements")
    streamsProperties: dict[str, Any] = Field(default_factory=dict, description="Per-request property overrides")
    sessionVariables: dict[str, Any] = Field(default_factory=dict, description="Initial ${var} substitutions")
    commandSequenceNumber: int | None = Field(default=None, description="Wait for this command before running")
    requestProperties: dict[str, Any] = Field(default_factory=dict, description="Internal flags (ignored)")


class QueryStreamArgs(_Body):
    """POST /query-stream."""

    sql: str = Field(description="A single SELECT or PRINT statement")
    properties: dict[str, Any] = Field(default_factory=dict)
    sessionVariables: dict[str, Any] = Field(default_factory=dict)
    requestProperties: dict[str, Any] = Field(default_factory=dict)


class CloseQueryArgs(_Body):
    """POST /close-query."""

    queryId: str


class TerminateArgs(_Body):
    """POST /ksql/terminate."""

    deleteTopicList: list[str] = Field(default_factory=list)
    streamsProperties: dict[str, Any] = Field(default_factory=dict)


class InsertsStreamHeader(_Body):
    """First line of POST /inserts-stream."""

    target: str
    properties: dict[str, Any] = Field(default_factory=dict)


M = TypeVar("M", bound=BaseModel)


def _describe(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err.get("loc", ())) or "body"
        parts.append(f"{loc}: {err.get('msg')}")
    return "; ".join(parts)


def parse_body(raw: bytes, model: type[M]) -> M:
    """Parse and validate a JSON body; any problem is a 400/40000 ``Invalid JSON in request``."""
    try:
        data = orjson.loads(raw) if raw.strip() else None
    except orjson.JSONDecodeError as e:
        raise bad_request(f"Invalid JSON in request: {e}") from e
    if not isinstance(data, dict):
        raise bad_request("Invalid JSON in request: expected a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise bad_request(f"Invalid JSON in request: {_describe(e)}") from e


def body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` describing a JSON request body of ``model`` (the handler parses it itself)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


__all__ = ["CloseQueryArgs", "InsertsStreamHeader", "KsqlRequest", "QueryStreamArgs", "ServerError",
           "TerminateArgs", "body_schema", "parse_body"]
