"""``post`` conditions: the sources and topics that must (or must not) exist after a case ran.

As ksqlDB's post-condition matchers: each source listed must exist (others may too) with the type, the
schema (structural, see ``schema``), the key/value format name, the key's window type and size (a key
format without them means "not windowed"), the features and ``isSource`` the case gives; a format's
``fullSchemaName`` property is compared with the one the source's format holds (``actual_format``; other format
properties, e.g. PROTOBUF's ``unwrapPrimitives``, are not something the engine exposes: not compared).
Topics: existence, partition count, formats when a source over the topic tells us its formats (an
internal topic: as its query's plan step writes it, ``internal_format_diff``), and ``keySchema``/``valueSchema``
against the latest schema registered under ``<topic>-key|value`` (``registered_schema_diff``), internal
topics included. ``blacklist``: no topic name fully matches the regex.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ksqlpy.errors import KsqlError
from ksqlpy.serde.capabilities import key_unwraps
from ksqlpy.testing.compare import Mismatch
from ksqlpy.testing.model import FormatSpec, PostConditions, PostSource, TopicSpec
from ksqlpy.testing.schema import columns_of, parse_schema, schema_diff


def post_diff(post: PostConditions, engine: Any) -> Mismatch | None:
    """The first post condition ``engine`` does not meet, or None."""
    for expected in post.sources:
        m = source_diff(expected, find_source(engine, expected.name), engine)
        if m:
            return m
    topics = {t.name: t for t in engine.log.list_topics()}
    if post.blacklist:
        pattern = re.compile(post.blacklist)
        bad = sorted(name for name in topics if pattern.fullmatch(name))
        if bad:
            return Mismatch("post.topics", f"post.topics: topics match blacklist {post.blacklist!r}: {bad}")
    for spec in post.topics:
        m = topic_spec_diff(spec, topics.get(spec.name), engine)
        if m:
            return m
    return None


def find_source(engine: Any, name: str) -> Any:
    """The source named exactly ``name`` (ksqlDB's matcher compares the name as given)."""
    return engine.catalog.source(name)


def source_diff(expected: PostSource, source: Any, engine: Any = None) -> Mismatch | None:
    label = f"post.sources[{expected.name}]"
    if source is None:
        return Mismatch("post.sources", f"{label}: no such source")
    if expected.type and source.kind.upper() != expected.type:
        return Mismatch("post.sources", f"{label}: expected a {expected.type}, got a {source.kind}")
    if expected.schema is not None:
        try:
            want = parse_schema(expected.schema)
        except KsqlError as e:
            return Mismatch("post.sources", f"{label}: cannot parse expected schema {expected.schema!r}: {e}")
        d = schema_diff(want, columns_of(source))
        if d:
            return Mismatch("post.sources.schema", f"{label} schema: {d}")
    if expected.key_format is not None:
        d = format_diff(expected.key_format, actual_format(source, True, engine))
        if d:
            return Mismatch("post.sources.format", f"{label} keyFormat: {d}")
    if expected.value_format is not None:
        d = format_diff(expected.value_format, actual_format(source, False, engine))
        if d:
            return Mismatch("post.sources.format", f"{label} valueFormat: {d}")
    for side, want, got in (("keyFeatures", expected.key_features, source.key_features),
                            ("valueFeatures", expected.value_features, source.value_features)):
        if want is not None and set(want) != set(got or ()):
            return Mismatch("post.sources.features", f"{label} {side}: expected {sorted(want)}, got {sorted(got or ())}")
    if expected.is_source is not None and bool(expected.is_source) != bool(getattr(source, "is_source", False)):
        return Mismatch("post.sources", f"{label} isSource: expected {expected.is_source}")
    return None


@dataclass
class ActualFormat:
    """A source's key or value format as the post conditions compare it."""

    format: str
    features: frozenset[str]
    windowed: Any = None  # the key's WindowInfo, if windowed
    full_name: Callable[[], str | None] = lambda: None  # its fullSchemaName property (see actual_format)


def actual_format(source: Any, is_key: bool, engine: Any) -> ActualFormat:
    """``full_name``: the ``fullSchemaName`` of the source's format - ksqlDB's harness compares the format's
    properties as the metastore holds them: the name the statement set or the source inherited, an AVRO
    key's ``<Source>Key`` (whatever the key's type, a primitive with no record to carry it too), and a JSON_SR
    name, which its JSON Schema never shows; with none of them, the full name of the schema registered."""
    from ksqlpy.schema_registry.sources import serde_options

    fmt = source.key_format if is_key else source.value_format
    features = source.key_features if is_key else source.value_features

    def full_name() -> str | None:
        return serde_options(source, is_key)["full_name"] or registered_full_name(engine, source.topic, is_key)

    return ActualFormat((fmt or "").upper(), frozenset(features or ()), source.windowed if is_key else None,
                        full_name)


def format_diff(expected: FormatSpec, actual: ActualFormat) -> str | None:
    if expected.format != actual.format:
        return f"expected {expected.format}, got {actual.format}"
    if expected.features is not None and set(expected.features) != set(actual.features):
        return f"features: expected {sorted(expected.features)}, got {sorted(actual.features)}"
    windowed = actual.windowed
    got_type = windowed.type.upper() if windowed is not None else None
    if expected.window_type != got_type:
        return f"window type: expected {expected.window_type}, got {got_type}"
    got_size = windowed.size_ms if windowed is not None and got_type != "SESSION" else None
    if expected.window_size != got_size:
        return f"window size: expected {expected.window_size}, got {got_size}"
    want_name = expected.properties.get("fullSchemaName")
    if want_name is not None:
        got_name = actual.full_name()
        if got_name != want_name:
            return f"fullSchemaName: expected {want_name}, got {got_name}"
    return None


def registered_full_name(engine: Any, topic: str, is_key: bool) -> str | None:
    """The full name of the latest schema under ``<topic>-key|value``: an AVRO record's namespace and name,
    a PROTOBUF schema's package and first message."""
    registry = getattr(engine, "schema_registry", None)
    rs = registry.latest(f"{topic}-{'key' if is_key else 'value'}") if registry is not None else None
    if rs is None:
        return None
    if rs.schema_type == "AVRO":
        try:
            schema = json.loads(rs.schema)
        except ValueError:
            return None
        if isinstance(schema, list):  # an optional record: ["null", {...}]
            schema = next((t for t in schema if isinstance(t, dict)), None)
        if not isinstance(schema, dict) or "name" not in schema:
            return None
        name, namespace = str(schema["name"]), schema.get("namespace")
        return name if "." in name or not namespace else f"{namespace}.{name}"
    if rs.schema_type == "PROTOBUF":
        from ksqlpy.serde.protobuf_schema import parse_proto

        try:
            proto = parse_proto(rs.schema)
            first = proto.message().name
        except Exception:  # noqa: BLE001 - a schema we cannot read names nothing
            return None
        return f"{proto.package}.{first}" if proto.package else first
    return None


def topic_spec_diff(spec: TopicSpec, info: Any, engine: Any) -> Mismatch | None:
    label = f"post.topics[{spec.name}]"
    if info is None:
        return Mismatch("post.topics", f"{label}: no such topic")
    if spec.partitions is not None and info.partitions != spec.partitions:
        return Mismatch("post.topics", f"{label}: expected {spec.partitions} partitions, got {info.partitions}")
    source = next((s for s in engine.catalog.sources() if s.topic == spec.name), None)
    key = internal_topic_key(engine, spec.name) if source is None else None
    if key is not None:
        d = internal_format_diff(spec, key)
        if d:
            return Mismatch("post.topics", f"{label} {d}")
    if source is not None:
        if spec.key_format is not None:
            d = format_diff(spec.key_format, actual_format(source, True, engine))
            if d:
                return Mismatch("post.topics", f"{label} keyFormat: {d}")
        if spec.value_format is not None:
            d = format_diff(spec.value_format, actual_format(source, False, engine))
            if d:
                return Mismatch("post.topics", f"{label} valueFormat: {d}")
    for field_name, is_key in (("keySchema", True), ("valueSchema", False)):
        if field_name in spec.schemas:
            d = registered_schema_diff(spec.schemas[field_name], engine, spec.name, is_key)
            if d:
                return Mismatch("post.topics.schema", f"{label} {field_name}: {d}")
    return None


def internal_format_diff(spec: TopicSpec, key: Any) -> str | None:
    """How an internal topic's formats differ from ``spec``'s, or None: the key format as its plan step
    has it (name, features - a single key column in a format that could wrap it is UNWRAP_SINGLES -, window,
    ``fullSchemaName``: the property the format brings from the source it is taken from, which names the
    key's record) and the value format's name. Other properties (PROTOBUF's ``unwrapPrimitives``) are not
    something the engine exposes."""
    if spec.key_format is not None:
        fmt = key.format.upper()
        features = frozenset({"UNWRAP_SINGLES"}) if key_unwraps(fmt, len(key.columns)) else frozenset()
        full_name = spec.key_format.properties.get("fullSchemaName")
        want = dataclasses.replace(spec.key_format,
                                   properties={} if full_name is None else {"fullSchemaName": full_name})
        d = format_diff(want, ActualFormat(fmt, features, key.window, lambda: key.full_name))
        if d:
            return f"keyFormat: {d}"
    if spec.value_format is not None and key.value_format is not None:
        if spec.value_format.format != key.value_format.upper():
            return f"valueFormat: expected {spec.value_format.format}, got {key.value_format.upper()}"
    return None


def internal_topic_key(engine: Any, topic: str) -> Any:
    """The key (columns, format) a running query writes an internal topic with, where its plan records one."""
    for query in list(getattr(engine, "queries", {}).values()):
        topology = getattr(query, "topology", None)
        for t in getattr(topology, "topics", None) or []:
            if t.name == topic and getattr(t, "key", None) is not None:
                return t.key
    return None


def registered_schema_diff(expected: Any, engine: Any, topic: str, is_key: bool) -> str | None:
    """How the schema registered under ``<topic>-key|value`` differs from ``expected``, or None.

    ksqlDB's harness reads the latest schema of each subject from its registry client and compares it with
    the case's as a parsed schema: AVRO and JSON_SR as JSON trees (a primitive written as ``{"type": t}``
    equals ``t``), PROTOBUF as schema text with whitespace runs collapsed."""
    registry = getattr(engine, "schema_registry", None)
    rs = registry.latest(f"{topic}-{'key' if is_key else 'value'}") if registry is not None else None
    if rs is None:
        return "no schema registered"
    if isinstance(expected, str) and rs.schema_type == "PROTOBUF":
        want, got = _proto_text(expected), _proto_text(rs.schema)
    else:
        try:
            got = _json_schema(json.loads(rs.schema))
        except ValueError as e:
            return f"cannot read the registered schema: {e}"
        try:  # a text node is the schema's text, or an Avro primitive's name
            want = _json_schema(json.loads(expected) if isinstance(expected, str) else expected)
        except ValueError:
            want = expected
    return None if want == got else f"expected {json.dumps(expected)}, got {rs.schema}"


def _proto_text(text: str) -> str:
    return " ".join(text.split())


def _json_schema(node: Any, namespace: str = "") -> Any:
    """``node`` with what a parsed schema does not keep made equal: a primitive written ``{"type": t}`` is
    ``t``; an Avro named type carries its full name (a nested record's namespace defaults to its parent's)."""
    if isinstance(node, dict):
        if set(node) == {"type"} and isinstance(node["type"], str):
            return node["type"]
        if node.get("type") in ("record", "enum", "fixed", "error") and isinstance(node.get("name"), str):
            name = node["name"]
            space = name.rpartition(".")[0] if "." in name else str(node.get("namespace", namespace) or "")
            full = name if "." in name or not space else f"{space}.{name}"
            out = {k: _json_schema(v, space) for k, v in node.items() if k != "namespace"}
            out["name"] = full
            return out
        return {k: _json_schema(v, namespace) for k, v in node.items()}
    if isinstance(node, list):
        return [_json_schema(v, namespace) for v in node]
    return node
