"""Schema-registry formats (AVRO, JSON_SR, PROTOBUF) on a backfill's workers: the driver's registry as a
read-only snapshot shipped with the job.

Every schema a backfill needs is registered before any task runs: the source's when it was created, the
sink's when the statement created the query (held at the end offsets). So a worker needs only to look
schemas up - by id to decode, by subject to encode - and the driver ships them in the job
(``BackfillJob.extra["registry"]``). On a worker, ``register`` answers for a subject whose latest version
is the schema asked for (what a serializer does on first use) and refuses anything else: a worker never
registers, so ids stay the driver registry's. An HTTP registry (``ksql.schema.registry.url``) is reached by
each worker itself, like the driver does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ksqlpy.schema_registry import (
    EmbeddedSchemaRegistry,
    HttpSchemaRegistry,
    RegisteredSchema,
    SchemaRegistryError,
    canonical,
)
from ksqlpy.serde.formats import SCHEMA_REGISTRY_FORMATS

if TYPE_CHECKING:
    from ksqlpy.catalog import Source

KEY = "registry"


def needs_registry(*sources: Source) -> bool:
    return any(f in SCHEMA_REGISTRY_FORMATS for s in sources for f in (s.key_format, s.value_format))


def snapshot(registry: Any) -> dict[str, Any]:
    """What the job carries: the URL of an HTTP registry, else every schema of the embedded one (by id, the
    soft-deleted too - still readable - and each subject's versions)."""
    if isinstance(registry, HttpSchemaRegistry):  # with the headers its requests carry (credentials too)
        return {"url": ",".join(registry.urls), "headers": dict(registry.headers)}
    if not isinstance(registry, EmbeddedSchemaRegistry):
        from ksqlpy.backfill import support

        raise support.refuse(f"a schema-registry format with the engine's registry {type(registry).__name__}")
    with registry._lock:  # (the registry's own state: no public listing of schemas by id)
        by_id = list(registry._by_id.values())
        versions = [rs for subject in registry.subjects() for rs in registry.versions(subject)]
    return {"url": None, "by_id": by_id, "versions": versions}


class SnapshotRegistry(EmbeddedSchemaRegistry):
    """The driver's registry as of the job, read-only (see the module)."""

    def __init__(self, by_id: list[RegisteredSchema], versions: list[RegisteredSchema]) -> None:
        super().__init__(None)
        for rs in by_id:
            self._by_id.setdefault(rs.id, rs)
            self._ids_by_text.setdefault((rs.schema_type, canonical(rs.schema)), rs.id)
        for rs in versions:
            self._versions.setdefault(rs.subject, []).append(rs)

    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        latest = self.latest(subject)
        if (latest is not None and latest.schema_type == schema_type and canonical(latest.schema) == canonical(schema)
                and schema_id in (None, latest.id)):
            return latest.id
        raise SchemaRegistryError(f"A backfill worker does not register schemas: subject '{subject}' has no such "
                                  "latest version in the registry the backfill started with")

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        raise SchemaRegistryError("A backfill worker does not change the schema registry")


def check_sink_schemas(engine: Any, sink: Source, snap: dict[str, Any]) -> None:
    """Refuse (``BackfillUnsupported``) a sink whose schema-registry format would register a schema when its
    first record is written - a worker cannot: the sink's serdes are built here over the snapshot and asked
    for the schema they write with, as the first record would. (The statement registers an AVRO, PROTOBUF or
    JSON_SR sink's schemas when it creates the sink, so this refuses only a schema the snapshot lacks.)"""
    from ksqlpy.backfill import support
    from ksqlpy.runtime.serdes import SerdeFactory

    if snap["url"]:
        return
    serdes = SerdeFactory(engine.prop, SnapshotRegistry(snap["by_id"], snap["versions"]))
    for is_key, fmt in ((True, sink.key_format), (False, sink.value_format)):
        if fmt not in SCHEMA_REGISTRY_FORMATS:
            continue
        serde = serdes.key_serde(sink) if is_key else serdes.value_serde(sink)
        obj, prime = serde, None
        for _ in range(4):  # (a key serde wraps the format's serde, a windowed one once more)
            prime = getattr(obj, "writer", None) or getattr(obj, "header", None)
            if prime is not None or obj is None:
                break
            obj = getattr(obj, "inner", None) or getattr(obj, "_inner", None)
        if prime is None:
            raise support.refuse(f"the {fmt} format on the sink's {'key' if is_key else 'value'} here")
        try:
            prime()
        except SchemaRegistryError:
            raise support.refuse(
                f"the {fmt} format on the sink's {'key' if is_key else 'value'} before its schema is registered "
                "(a backfill's workers do not register schemas)") from None


def worker_registry(extra: dict[str, Any]) -> Any:
    """The registry a worker's serdes use (None: the job has no schema-registry format)."""
    snap = extra.get(KEY)
    if snap is None:
        return None
    if snap["url"]:
        registry = HttpSchemaRegistry(snap["url"])
        registry.headers = dict(snap.get("headers") or {})
        return registry
    return SnapshotRegistry(snap["by_id"], snap["versions"])
