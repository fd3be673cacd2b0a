"""Raw QTT case JSON -> concrete :class:`Case` objects.

A case with ``format: [...]`` runs once per format with ``{FORMAT}`` substituted everywhere (statements,
topics, records, post); ``config: [...]`` runs once per value with ``{CONFIG}`` substituted in the
property values. Expanded names get `` [FORMAT]`` / `` [CONFIG]`` appended. A case that cannot be read
becomes a case carrying ``error`` so it is reported as failed rather than silently dropped.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.testing.model import (
    Case,
    ExpectedException,
    FormatSpec,
    PostConditions,
    PostSource,
    TestRecord,
    TopicSpec,
    Window,
    header_from_spec,
)
from ksqlpy.testing.support import static_skip_reason

SCHEMA_FIELDS = ("schema", "keySchema", "valueSchema", "keySchemaId", "valueSchemaId",
                 "valueSchemaReferences", "keySchemaReferences")


def expand_file(data: dict[str, Any], file: str, rest: bool = False) -> list[Case]:
    """All concrete cases of a loaded file, in file order."""
    cases: list[Case] = []
    for i, raw in enumerate(data.get("tests", [])):
        cases.extend(expand_case(raw, file, rest, index=i))
    return cases


def expand_case(raw: Any, file: str, rest: bool = False, index: int = 0) -> list[Case]:
    """One raw case -> one case per (format, config) combination."""
    if not isinstance(raw, dict):
        return [Case(file=file, name=f"<case #{index}>", error="malformed case: not a JSON object")]
    name = str(raw.get("name", f"<case #{index}>"))
    formats = raw.get("format") or [None]
    configs = raw.get("config") or [None]
    if not isinstance(formats, list):
        formats = [formats]
    if not isinstance(configs, list):
        configs = [configs]
    out: list[Case] = []
    for fmt in formats:
        for cfg in configs:
            full = name + (f" [{fmt}]" if fmt is not None else "") + (f" [{cfg}]" if cfg is not None else "")
            concrete = substitute(raw, "{FORMAT}", str(fmt)) if fmt is not None else raw
            if cfg is not None:
                concrete = dict(concrete)
                concrete["properties"] = substitute(concrete.get("properties") or {}, "{CONFIG}", str(cfg))
            try:
                case = build_case(concrete, file, full, rest)
            except (ValueError, TypeError, KeyError) as e:
                case = Case(file=file, name=full, error=f"malformed case: {e}")
            else:
                case.skip_reason = static_skip_reason(case)
            out.append(case)
    return out


def substitute(value: Any, placeholder: str, replacement: str) -> Any:
    """Replace ``placeholder`` in every string of a JSON tree (numbers and keys untouched)."""
    if isinstance(value, str):
        return value.replace(placeholder, replacement)
    if isinstance(value, list):
        return [substitute(v, placeholder, replacement) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, placeholder, replacement) for k, v in value.items()}
    return value


def build_case(raw: dict[str, Any], file: str, name: str, rest: bool) -> Case:
    statements = raw.get("statements") or []
    if isinstance(statements, str):
        statements = [statements]
    if not all(isinstance(s, str) for s in statements):
        raise ValueError("statements must be strings")
    exc = raw.get("expectedException")
    post = raw.get("post")
    return Case(
        file=file,
        name=name,
        statements=list(statements),
        inputs=[parse_record(r, is_input=True) for r in raw.get("inputs") or []],
        outputs=[parse_record(r, is_input=False) for r in raw.get("outputs") or []],
        properties=dict(raw.get("properties") or {}),
        topics=[parse_topic(t) for t in raw.get("topics") or []],
        expected_exception=parse_exception(exc) if exc is not None else None,
        post=parse_post(post) if post is not None else None,
        versions=dict(raw.get("versions") or {}),
        enabled=raw.get("enabled", True) is not False,
        rest=rest,
        responses=raw.get("responses"),
        expected_error=raw.get("expectedError"),
        input_conditions=raw.get("inputConditions"),
    )


def parse_record(raw: Any, is_input: bool) -> TestRecord:
    """An input (timestamp defaults to 0, as ksqlDB) or expected output (absent timestamp: unchecked)."""
    if not isinstance(raw, dict) or "topic" not in raw:
        raise ValueError(f"record without topic: {raw!r}")
    ts = raw.get("timestamp")
    if ts is None and is_input:
        ts = 0
    window = raw.get("window")
    headers = raw.get("headers")
    return TestRecord(
        topic=str(raw["topic"]),
        key=raw.get("key"),
        value=raw.get("value"),
        timestamp=int(ts) if ts is not None else None,
        window=parse_window(window) if window is not None else None,
        headers=[header_from_spec(h) for h in headers] if headers is not None else None,
    )


def parse_window(raw: Any) -> Window:
    if not isinstance(raw, dict) or "start" not in raw or "end" not in raw:
        raise ValueError(f"bad window {raw!r}")
    wtype = str(raw.get("type", "time")).lower()
    if wtype in ("tumbling", "hopping"):
        wtype = "time"
    return Window(int(raw["start"]), int(raw["end"]), wtype)


def parse_exception(raw: Any) -> ExpectedException:
    if not isinstance(raw, dict) or (raw.get("type") is None and raw.get("message") is None):
        raise ValueError(f"expectedException needs a type or a message: {raw!r}")
    return ExpectedException(
        type=str(raw["type"]) if raw.get("type") is not None else None,
        message=raw.get("message"),
        cause=raw.get("cause"),
        cause_message=raw.get("causeMessage"),
    )


def parse_format(raw: Any) -> FormatSpec | None:
    """``"JSON"`` or ``{"format": "KAFKA", "features": [...], "windowType": ..., "windowSize": ...}``."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return FormatSpec(format=raw.upper())
    if isinstance(raw, dict) and "format" in raw:
        features = raw.get("features")
        # post.sources writes windowType/windowSize; post.topics writes a KeyFormat's windowInfo
        info = raw.get("windowInfo") if isinstance(raw.get("windowInfo"), dict) else {}
        wtype = raw.get("windowType") or info.get("type")
        size = raw.get("windowSize")
        if size is None and info.get("size") is not None:
            size = round(float(info["size"]) * 1000)  # a Duration in seconds
        return FormatSpec(
            format=str(raw["format"]).upper(),
            features=frozenset(features) if features is not None else None,
            window_type=str(wtype).upper() if wtype else None,
            window_size=int(size) if size is not None else None,
            properties=dict(raw.get("properties") or {}),
        )
    raise ValueError(f"bad format {raw!r}")


def parse_topic(raw: Any) -> TopicSpec:
    if not isinstance(raw, dict) or "name" not in raw:
        raise ValueError(f"topic without name: {raw!r}")
    both = parse_format(raw.get("format"))
    parts = raw.get("partitions")
    replicas = raw.get("replicas")
    return TopicSpec(
        name=str(raw["name"]),
        partitions=int(parts) if parts is not None else None,
        replicas=int(replicas) if replicas is not None else None,
        key_format=parse_format(raw.get("keyFormat")) or both,
        value_format=parse_format(raw.get("valueFormat")) or both,
        schema_fields=tuple(f for f in SCHEMA_FIELDS if raw.get(f) is not None),
        schemas={f: raw[f] for f in SCHEMA_FIELDS if raw.get(f) is not None},
    )


def parse_post(raw: Any) -> PostConditions:
    if not isinstance(raw, dict):
        raise ValueError(f"bad post {raw!r}")
    topics = raw.get("topics") or {}
    if isinstance(topics, list):  # tolerate a bare list of topics
        topics = {"topics": topics}
    return PostConditions(
        sources=[parse_post_source(s) for s in raw.get("sources") or []],
        topics=[parse_topic(t) for t in topics.get("topics") or []],
        blacklist=topics.get("blacklist"),
    )


def parse_post_source(raw: Any) -> PostSource:
    if not isinstance(raw, dict) or "name" not in raw:
        raise ValueError(f"post source without name: {raw!r}")
    kf, vf = raw.get("keyFeatures"), raw.get("valueFeatures")
    return PostSource(
        name=str(raw["name"]),
        type=str(raw["type"]).upper() if raw.get("type") is not None else None,
        schema=raw.get("schema"),
        key_format=parse_format(raw.get("keyFormat")),
        value_format=parse_format(raw.get("valueFormat")),
        key_features=frozenset(kf) if kf is not None else None,
        value_features=frozenset(vf) if vf is not None else None,
        is_source=raw.get("isSource"),
    )
