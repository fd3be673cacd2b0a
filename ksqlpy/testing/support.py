"""What the runner can check at all: cases needing something we do not have are skipped, with a reason.

Skipping is decided here from the case text alone (before any engine runs); at run time only what the
harness's own serdes cannot write skips a case. An engine error, ``Unsupported: ...`` included, fails
the case: ksqlDB's harness would see a refusal. A skipped case is never counted as passed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ksqlpy.testing.model import Case, FormatSpec, TopicSpec

# Formats needing a schema registry or a binary schema we have no serde for yet.
UNSUPPORTED_FORMATS: frozenset[str] = frozenset()

# Formats the harness's own serdes (``specserde``, ``sr_codec``) can write and read.
SUPPORTED_FORMATS = frozenset({"JSON", "DELIMITED", "KAFKA", "NONE", "PROTOBUF_NOSR", "AVRO", "JSON_SR",
                               "PROTOBUF"})

_FORMAT_IN_SQL = re.compile(r"\b(?:KEY_FORMAT|VALUE_FORMAT|FORMAT)\s*=\s*'([^']*)'", re.IGNORECASE)


def static_skip_reason(case: Case) -> str | None:
    """Why ``case`` cannot be checked by this runner, or None if it can."""
    if not case.enabled:
        return "disabled in the QTT file (enabled: false)"
    if case.versions.get("max"):
        return f"describes old ksqlDB behaviour (versions.max={case.versions['max']})"
    if case.rest:
        return "REST case: needs --rest"
    fmt = unsupported_format(case)
    if fmt:
        return f"Unsupported format: {fmt}"
    for topic in case.topics:
        # PROTOBUF, AVRO and JSON_SR references are registered as subjects named like their imports / type
        # names / $ref names
        refs = [f for f in topic.schema_fields
                if f.endswith("References") and _side_format(topic, f) not in ("PROTOBUF", "AVRO", "JSON_SR")]
        if refs:
            return f"Unsupported: schema references (topics[].{refs[0]})"
    # properties never skip a case: ksqlDB's harness hands every one to its KsqlConfig (either spelling,
    # names it does not know ignored), so the engine decides
    return None


def _side_format(topic: TopicSpec, schema_field: str) -> str | None:
    spec = topic.key_format if schema_field.startswith("key") else topic.value_format
    return spec.format if spec is not None else None


def unsupported_format(case: Case) -> str | None:
    """The first unsupported format the case names in its statements, topics or post conditions."""
    for sql in case.statements:
        for m in _FORMAT_IN_SQL.finditer(sql):
            if m.group(1).upper() in UNSUPPORTED_FORMATS:
                return m.group(1).upper()
    specs: list[FormatSpec | None] = []
    for t in case.topics:
        specs += [t.key_format, t.value_format]
    if case.post:
        for s in case.post.sources:
            specs += [s.key_format, s.value_format]
        for t in case.post.topics:
            specs += [t.key_format, t.value_format]
    for spec in specs:
        if spec is not None and spec.format in UNSUPPORTED_FORMATS:
            return spec.format
    return None
