"""The compatibility rule a schema registry applies when a subject gets a new version.

Confluent's registry checks every new version of a subject against the versions before it under the
subject's compatibility level (its own config, else the global one; BACKWARD by default) and refuses an
incompatible one with HTTP 409 / error code 409: ``Schema being registered is incompatible with an earlier
schema for subject "<subject>", details: [...]``. Levels:

- NONE: no check; BACKWARD: the new schema reads data written with the latest; FORWARD: the latest reads
  data written with the new one; FULL: both. The ``*_TRANSITIVE`` levels check every earlier version.

Each schema type has its own notion (``compat_avro``: Avro's schema resolution; ``compat_protobuf`` and
``compat_json``: Confluent's schema diffs). A schema of another type than the latest is incompatible.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from ksqlpy.schema_registry import RegisteredSchema, SchemaRegistryError


class Level(Enum):
    NONE = "NONE"
    BACKWARD = "BACKWARD"
    BACKWARD_TRANSITIVE = "BACKWARD_TRANSITIVE"
    FORWARD = "FORWARD"
    FORWARD_TRANSITIVE = "FORWARD_TRANSITIVE"
    FULL = "FULL"
    FULL_TRANSITIVE = "FULL_TRANSITIVE"

    @property
    def transitive(self) -> bool:
        return self.value.endswith("_TRANSITIVE")

    @property
    def backward(self) -> bool:
        return self.value.startswith(("BACKWARD", "FULL"))

    @property
    def forward(self) -> bool:
        return self.value.startswith(("FORWARD", "FULL"))


DEFAULT_LEVEL = Level.BACKWARD  # Confluent's registry's global default
INVALID_LEVEL_CODE = 42203


def parse_level(text: Any) -> Level:
    """A level by name (any case); SchemaRegistryError with Confluent's 42203 text otherwise."""
    try:
        return Level(str(text).strip().upper())
    except ValueError:
        raise InvalidLevelError(f"Invalid compatibility level. Valid values are none, backward, forward, full, "
                                f"backward_transitive, forward_transitive, and full_transitive: {text}") from None


class InvalidLevelError(SchemaRegistryError):
    error_code = INVALID_LEVEL_CODE

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{message}; error code: {INVALID_LEVEL_CODE}")


class IncompatibleSchemaError(SchemaRegistryError):
    """Confluent's 409: the schema is incompatible with an earlier version of the subject."""

    error_code = 409

    def __init__(self, subject: str, details: list[str]) -> None:
        self.subject = subject
        self.details = details
        # the registry's message; a client (Confluent's RestClientException) reads it with the code appended
        self.message = (f'Schema being registered is incompatible with an earlier schema for subject "{subject}", '
                        f"details: [{', '.join(details)}]")
        super().__init__(f"{self.message}; error code: {self.error_code}")


Loader = Callable[[str], str | None]  # a referenced schema's text by name (protobuf imports)


def _problems(reader: RegisteredSchema, writer: RegisteredSchema, loader: Loader | None) -> list[tuple[str, str]]:
    """(error type, description) of why data written with ``writer`` is not readable with ``reader``: for
    PROTOBUF and JSON the diff of the writer (original) to the reader (update)."""
    if reader.schema_type != writer.schema_type:
        return [("TYPE_MISMATCH", f"Incompatible because of different schema type: {writer.schema_type} and "
                                  f"{reader.schema_type}")]
    try:
        if reader.schema_type == "AVRO":
            from ksqlpy.schema_registry.compat_avro import incompatibilities as avro

            return [(i.kind, _avro_text(i.kind, i.path, i.detail))
                    for i in avro(json.loads(reader.schema), json.loads(writer.schema))]
        if reader.schema_type == "PROTOBUF":
            from ksqlpy.schema_registry.compat_protobuf import incompatibilities as proto
            from ksqlpy.serde.protobuf_schema import parse_proto

            return [(d.kind, f"The new schema has a change at path '{d.path}' that is not compatible")
                    for d in proto(parse_proto(writer.schema, loader), parse_proto(reader.schema, loader))]
        from ksqlpy.schema_registry.compat_json import incompatibilities as jsonc

        return [(d.kind, f"Found incompatible change: Difference{{jsonPath='{d.path}', type={d.kind}}}")
                for d in jsonc(json.loads(writer.schema), json.loads(reader.schema))]
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        return [("UNREADABLE_SCHEMA", f"The schema could not be compared: {e}")]


def _avro_text(kind: str, path: str, detail: str) -> str:
    """Confluent's description of an Avro incompatibility (reader = the new schema in a BACKWARD check)."""
    if kind == "READER_FIELD_MISSING_DEFAULT_VALUE":
        return (f"The field '{detail}' at path '{path}' in the new schema has no default value and is missing "
                "in the old schema")
    if kind == "NAME_MISMATCH":
        return f"The name of the schema has changed (path '{path}')"
    if kind == "MISSING_UNION_BRANCH":
        return f"The new schema is missing a type inside a union field at path '{path}' in the old schema"
    if kind == "MISSING_ENUM_SYMBOLS":
        return f"The new schema is missing enum symbols '{detail}' at path '{path}' in the old schema"
    if kind == "FIXED_SIZE_MISMATCH":
        return f"The size of FIXED type field at path '{path}' in the new schema does not match with the old schema"
    return f"The type (path '{path}') of a field in the new schema does not match with the old schema"


def check(subject: str, new: RegisteredSchema, earlier: Sequence[RegisteredSchema], level: Level,
          loader: Loader | None = None) -> None:
    """Raise IncompatibleSchemaError when ``new`` may not follow ``earlier`` (oldest first) under ``level``."""
    if level is Level.NONE or not earlier:
        return
    against = list(reversed(earlier)) if level.transitive else [earlier[-1]]
    for old in against:
        found: list[tuple[str, str]] = []
        if level.backward:
            found += _problems(new, old, loader)
        if level.forward:
            found += _problems(old, new, loader)
        if found:
            details = [f"{{errorType:'{kind}', description:'{text}'}}" for kind, text in found]
            details += [f"{{oldSchemaVersion: {old.version}}}", f"{{oldSchema: '{old.schema}'}}",
                        f"{{compatibility: '{level.value}'}}"]
            raise IncompatibleSchemaError(subject, details)
