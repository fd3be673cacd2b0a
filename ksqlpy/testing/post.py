"""``post`` conditions: the sources and topics that must (or must not) exist after a case ran.

Sources: type, schema (structural, see ``schema``), key/value format names, key window type and size
(a key format without ``windowType`` means "not windowed"), key/value features when given, and
``isSource``. Topics: existence, partition count, and formats when a source over the topic tells us
its formats (formats of internal topics are not visible through the engine API, so only their
existence and partitions are checked). ``blacklist``: no topic name fully matches the regex.
"""

from __future__ import annotations

import re
from typing import Any

from ksqlpy.errors import KsqlError
from ksqlpy.testing.compare import Mismatch
from ksqlpy.testing.model import FormatSpec, PostConditions, PostSource, TopicSpec
from ksqlpy.testing.schema import columns_of, parse_schema, schema_diff


def post_diff(post: PostConditions, engine: Any) -> Mismatch | None:
    """The first post condition ``engine`` does not meet, or None."""
    for expected in post.sources:
        m = source_diff(expected, find_source(engine, expected.name))
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
    source = engine.catalog.source(name)
    if source is None and name.upper() != name:
        source = engine.catalog.source(name.upper())
    return source


def source_diff(expected: PostSource, source: Any) -> Mismatch | None:
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
        d = format_diff(expected.key_format, source.key_format, source.key_features, source.windowed)
        if d:
            return Mismatch("post.sources.format", f"{label} keyFormat: {d}")
    if expected.value_format is not None:
        d = format_diff(expected.value_format, source.value_format, source.value_features, None)
        if d:
            return Mismatch("post.sources.format", f"{label} valueFormat: {d}")
    for side, want, got in (("keyFeatures", expected.key_features, source.key_features),
                            ("valueFeatures", expected.value_features, source.value_features)):
        if want is not None and set(want) != set(got or ()):
            return Mismatch("post.sources.features", f"{label} {side}: expected {sorted(want)}, got {sorted(got or ())}")
    if expected.is_source is not None and bool(expected.is_source) != bool(getattr(source, "is_source", False)):
        return Mismatch("post.sources", f"{label} isSource: expected {expected.is_source}")
    return None


def format_diff(expected: FormatSpec, fmt: str, features: Any, windowed: Any) -> str | None:
    if expected.format != (fmt or "").upper():
        return f"expected {expected.format}, got {fmt}"
    if expected.features is not None and set(expected.features) != set(features or ()):
        return f"features: expected {sorted(expected.features)}, got {sorted(features or ())}"
    if windowed is not None or expected.window_type is not None:
        got_type = windowed.type.upper() if windowed is not None else None
        if expected.window_type != got_type:
            return f"window type: expected {expected.window_type}, got {got_type}"
        if expected.window_size is not None and windowed.size_ms != expected.window_size:
            return f"window size: expected {expected.window_size}, got {windowed.size_ms}"
    return None


def topic_spec_diff(spec: TopicSpec, info: Any, engine: Any) -> Mismatch | None:
    label = f"post.topics[{spec.name}]"
    if info is None:
        return Mismatch("post.topics", f"{label}: no such topic")
    if spec.partitions is not None and info.partitions != spec.partitions:
        return Mismatch("post.topics", f"{label}: expected {spec.partitions} partitions, got {info.partitions}")
    source = next((s for s in engine.catalog.sources() if s.topic == spec.name), None)
    if source is not None:
        if spec.key_format is not None:
            d = format_diff(spec.key_format, source.key_format, source.key_features, source.windowed)
            if d:
                return Mismatch("post.topics", f"{label} keyFormat: {d}")
        if spec.value_format is not None:
            d = format_diff(spec.value_format, source.value_format, source.value_features, None)
            if d:
                return Mismatch("post.topics", f"{label} valueFormat: {d}")
    return None
