"""The case model: what one expanded QTT case asks for, as plain dataclasses.

Record keys and values stay *specs*: the JSON the file gave (numbers exact), turned into bytes or
compared against decoded bytes by ``specserde`` and ``compare``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

Header = tuple[str, bytes | None]


@dataclass(frozen=True)
class Window:
    """A record's window: ``type`` is 'time' (tumbling/hopping) or 'session', as QTT writes it."""

    start: int
    end: int
    type: str

    def __str__(self) -> str:
        return f"{self.type}[{self.start},{self.end}]"


@dataclass
class TestRecord:
    """An input to produce or an expected output. ``timestamp``/``headers`` None: not specified."""

    __test__ = False  # not a pytest class

    topic: str
    key: Any = None
    value: Any = None
    timestamp: int | None = None
    window: Window | None = None
    headers: list[Header] | None = None


@dataclass
class ExpectedException:
    """``expectedException``: a Java class name and the text the error message must contain - either may
    be left out, not both (ksqlDB's ExpectedExceptionNode, from memory); without a type any error matches."""

    type: str | None
    message: str | None = None
    cause: str | None = None
    cause_message: str | None = None


@dataclass
class FormatSpec:
    """A key or value format as ``post`` writes it: a name or ``{"format", "features", ...}``."""

    format: str
    features: frozenset[str] | None = None
    window_type: str | None = None
    window_size: int | None = None
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass
class TopicSpec:
    """A topic of the ``topics`` section, or of ``post.topics.topics``."""

    name: str
    partitions: int | None = None
    replicas: int | None = None
    key_format: FormatSpec | None = None
    value_format: FormatSpec | None = None
    schema_fields: tuple[str, ...] = ()  # schema registry fields present (schema, valueSchema, ...)
    schemas: dict[str, Any] = field(default_factory=dict)  # their values, by field name


@dataclass
class PostSource:
    """A source that must exist after the statements ran, as ``post.sources`` describes it."""

    name: str
    type: str | None = None
    schema: str | None = None
    key_format: FormatSpec | None = None
    value_format: FormatSpec | None = None
    key_features: frozenset[str] | None = None
    value_features: frozenset[str] | None = None
    is_source: bool | None = None


@dataclass
class PostConditions:
    sources: list[PostSource] = field(default_factory=list)
    topics: list[TopicSpec] = field(default_factory=list)
    blacklist: str | None = None


@dataclass
class Case:
    """One expanded case. ``skip_reason``/``error`` are decided before anything runs."""

    file: str
    name: str
    statements: list[str] = field(default_factory=list)
    inputs: list[TestRecord] = field(default_factory=list)
    outputs: list[TestRecord] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    topics: list[TopicSpec] = field(default_factory=list)
    expected_exception: ExpectedException | None = None
    post: PostConditions | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    rest: bool = False
    responses: list[Any] | None = None  # REST files: expected responses per statement
    expected_error: dict[str, Any] | None = None  # REST files: expected HTTP error
    input_conditions: dict[str, Any] | None = None  # REST files
    skip_reason: str | None = None
    error: str | None = None  # the case itself is malformed

    @property
    def id(self) -> str:
        return f"{self.file} :: {self.name}"


def header_from_spec(spec: Any) -> Header:
    """``{"KEY": "k", "VALUE": "<base64>"|null}`` -> (key, bytes|None)."""
    if not isinstance(spec, dict) or "KEY" not in spec:
        raise ValueError(f"bad header {spec!r}: expected {{'KEY': ..., 'VALUE': base64|null}}")
    value = spec.get("VALUE")
    return str(spec["KEY"]), None if value is None else base64.b64decode(value)


def header_to_spec(header: Header) -> dict[str, Any]:
    key, value = header
    return {"KEY": key, "VALUE": None if value is None else base64.b64encode(value).decode("ascii")}
