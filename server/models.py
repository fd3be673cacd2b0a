"""Request bodies, as pydantic models: they validate input and describe it in the OpenAPI schema.

Bodies are parsed by the handlers themselves (``parse_body``) because ksqlDB reads every body as JSON
whatever its Content-Type and answers problems with its own error envelope (400/40000), not FastAPI's 422.
The one rule for every endpoint is Jackson's reading of ksqlDB's request class (``ServerUtils
.deserialiseObject``): unknown fields ignored; a JSON ``null`` or absent field takes the class's default;
a number or boolean where a string is expected is read as its text (Jackson's scalar coercion), a
numeric string where a number is expected as that number; an object or array where a scalar is
expected, or a scalar where an object or array is expected, refuses the body; a required creator
property missing refuses it too. Every refusal is 400/40000 ``Invalid JSON in request: <detail>`` with
Jackson's wording of the detail (``BodyError.detail``; the WebSocket endpoint words it its own way).
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, ClassVar, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ksqlpy.server.errors import BAD_REQUEST, ServerError

Scalar = str | int | float | bool | None


class _Body(BaseModel):
    model_config = ConfigDict(extra="ignore")
    java_name: ClassVar[str]  # the ksqlDB class the body is read into, named in Jackson's messages
    required: ClassVar[tuple[str, ...]] = ()  # creator properties Jackson insists on


class KsqlRequest(_Body):
    """POST /ksql and /query (and the ``request`` parameter of /ws/query)."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.KsqlRequest"

    ksql: str = Field(default="", description="One or more ';'-terminated statements (absent or null: empty)")
    streamsProperties: dict[str, Any] = Field(default_factory=dict, description="Per-request property overrides")
    requestProperties: dict[str, Any] = Field(default_factory=dict, description="Internal flags (ignored)")
    sessionVariables: dict[str, Any] = Field(default_factory=dict, description="Initial ${var} substitutions")
    commandSequenceNumber: int | None = Field(default=None, description="Wait for this command before running")


class QueryStreamArgs(_Body):
    """POST /query-stream."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.QueryStreamArgs"
    required: ClassVar[tuple[str, ...]] = ("sql",)

    sql: str = Field(description="A single SELECT or PRINT statement")
    properties: dict[str, Any] = Field(default_factory=dict)
    sessionVariables: dict[str, Any] = Field(default_factory=dict)
    requestProperties: dict[str, Any] = Field(default_factory=dict)


class CloseQueryArgs(_Body):
    """POST /close-query."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.CloseQueryArgs"
    required: ClassVar[tuple[str, ...]] = ("queryId",)

    queryId: str


class TerminateArgs(_Body):
    """POST /ksql/terminate."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.ClusterTerminateRequest"

    deleteTopicList: list[str] = Field(default_factory=list)
    streamsProperties: dict[str, Any] = Field(default_factory=dict)


class InsertsStreamHeader(_Body):
    """First line of POST /inserts-stream."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.InsertsStreamArgs"
    required: ClassVar[tuple[str, ...]] = ("target",)

    target: str
    properties: dict[str, Any] = Field(default_factory=dict)


class HeartbeatMessage(_Body):
    """POST /heartbeat: another server of the cluster is alive (membership.py)."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.HeartbeatMessage"

    hostInfo: dict[str, Any] = Field(default_factory=dict)
    timestamp: int | None = None


class LagReportingMessage(_Body):
    """POST /lag: another server's state-store lags (membership.py)."""

    java_name: ClassVar[str] = "io.confluent.ksql.rest.entity.LagReportingMessage"

    hostInfo: dict[str, Any] = Field(default_factory=dict)
    hostStoreLags: dict[str, Any] = Field(default_factory=dict)


M = TypeVar("M", bound=_Body)


class BodyError(ServerError):
    """A body that cannot be read into its request class: 400/40000 with Jackson's ``detail``."""

    def __init__(self, detail: str) -> None:
        super().__init__(BAD_REQUEST, f"Invalid JSON in request: {detail}")
        self.detail = detail


class _Kind(enum.Enum):
    """What Jackson reads a field as; decides which JSON values it coerces and which it refuses."""

    STRING = "java.lang.String"
    LONG = "java.lang.Long"
    MAP = "java.util.Map<java.lang.String,java.lang.Object>"
    LIST = "java.util.List<java.lang.String>"


def _kind(annotation: Any) -> _Kind:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) and len(args) == 1:
        annotation = args[0]
    origin = typing.get_origin(annotation) or annotation
    if origin is dict:
        return _Kind.MAP
    if origin is list:
        return _Kind.LIST
    if origin is int:
        return _Kind.LONG
    return _Kind.STRING


def _value_kind(v: Any) -> tuple[str, str]:
    """Jackson's name of a JSON value's shape and its first token."""
    if isinstance(v, dict):
        return "Object", "START_OBJECT"
    if isinstance(v, list):
        return "Array", "START_ARRAY"
    if isinstance(v, bool):
        return "Boolean", "VALUE_TRUE" if v else "VALUE_FALSE"
    if isinstance(v, int):
        return "Integer", "VALUE_NUMBER_INT"
    if isinstance(v, float):
        return "Floating-point", "VALUE_NUMBER_FLOAT"
    return "String", "VALUE_STRING"


def _mismatch(java: str, v: Any) -> str:
    shape, token = _value_kind(v)
    return f"Cannot deserialize value of type `{java}` from {shape} value (token `JsonToken.{token}`)"


def _coerce(kind: _Kind, v: Any) -> Any:
    """The field's value as Jackson reads it, or ValueError with its message."""
    if kind is _Kind.STRING:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return orjson.dumps(v).decode()
        if isinstance(v, str):
            return v
    elif kind is _Kind.LONG:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, float):  # ACCEPT_FLOAT_AS_INT: the fraction is dropped
            return int(v)
        if isinstance(v, str):
            try:
                return int(v.strip())
            except ValueError:
                raise ValueError(f'Cannot deserialize value of type `{kind.value}` from String "{v}": not a '
                                 f"valid `{kind.value}` value") from None
    elif kind is _Kind.MAP and isinstance(v, dict):
        return v
    elif kind is _Kind.LIST and isinstance(v, list):
        return [_coerce(_Kind.STRING, x) for x in v]
    raise ValueError(_mismatch(kind.value, v))


def parse_body(raw: bytes | str, model: type[M]) -> M:
    """Read a JSON body (of any endpoint) into ``model`` as Jackson reads it into ksqlDB's class; BodyError if it cannot."""
    if not (raw.strip() if raw else raw):
        raise BodyError("No content to map due to end-of-input")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise BodyError(f"{e.msg} at [line: {e.lineno}, column: {e.colno}]") from e
    if not isinstance(data, dict):
        if data is None:
            raise BodyError(f"Cannot deserialize value of type `{model.java_name}` from Null value")
        raise BodyError(_mismatch(model.java_name, data))
    fields = list(model.model_fields.items())
    values: dict[str, Any] = {}
    for index, (name, info) in enumerate(fields):
        if data.get(name) is None:
            if name in model.required:
                raise BodyError(f"Missing required creator property '{name}' (index {index})")
            continue  # absent or null: the class's default
        try:
            values[name] = _coerce(_kind(info.annotation), data[name])
        except ValueError as e:
            raise BodyError(f'{e} (through reference chain: {model.java_name}["{name}"])') from None
    return model.model_validate(values)


def body_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` describing a JSON request body of ``model`` (the handler parses it itself)."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


__all__ = ["BodyError", "CloseQueryArgs", "HeartbeatMessage", "InsertsStreamHeader", "KsqlRequest",
           "LagReportingMessage", "QueryStreamArgs", "ServerError", "TerminateArgs", "body_schema", "parse_body"]
