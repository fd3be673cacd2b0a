"""A Confluent-compatible schema registry: subjects, versions and ids, embedded or over HTTP.

The schema-registry formats (AVRO, JSON_SR, PROTOBUF) write ``magic byte 0 + 4-byte schema id`` before
each payload, so readers need the schema behind an id and writers need an id for their schema. The
engine owns one registry:

- ``EmbeddedSchemaRegistry`` (default): in memory, and durable through an internal topic of the
  engine's own log (``_schemas``, one JSON record per registered version or compatibility setting,
  replayed on start), the way Confluent's registry keeps its state in Kafka. A new version of a subject
  is checked against the earlier ones under the subject's compatibility level (``compatibility``) and
  refused with ``IncompatibleSchemaError`` (409) when it breaks it. Inside an engine the global level is
  NONE unless ``ksqlpy.schema.registry.compatibility`` says otherwise: it stands where ksqlDB's
  ``mock://`` registry (Confluent's MockSchemaRegistryClient, which never checks) stands; served over HTTP
  (``http_server.RegistryServer``) it starts at BACKWARD, as Confluent's registry does.
- ``HttpSchemaRegistry``: a real registry at ``ksql.schema.registry.url`` (http/https), through its
  REST API (``/subjects/{s}/versions``, ``/schemas/ids/{id}``), with ids cached.

Subjects follow TopicNameStrategy: ``<topic>-key`` and ``<topic>-value``.

Deletion is Confluent's, in two steps: a soft delete (``delete_subject`` / ``delete_version``) hides versions
from lookups and listings (``include_deleted`` shows them) but keeps their schemas readable by id and their
numbers counted - the next version of the subject is one past the highest ever given, and registering a
soft-deleted schema again gives it a new version under its old id (the deleted version it repeats is then
removed). A permanent delete (``permanent=True``) is refused (``NotSoftDeletedError``) unless the versions
were soft-deleted first; it forgets them, and an id that no version of any subject holds any more is no
longer readable and never handed out again.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from ksqlpy.errors import KsqlSchemaRegistryUnconfigured
from ksqlpy.serde.protobuf_schema import ProtoSchemaError
from ksqlpy.serde.protobuf_schema import tokens as proto_tokens

SCHEMAS_TOPIC = "_schemas"


@dataclass(frozen=True)
class RegisteredSchema:
    """One version of a subject (or, from ``by_id``, a schema without subject: subject '' version 0)."""

    id: int
    schema: str
    schema_type: str = "AVRO"  # AVRO | JSON | PROTOBUF, as Confluent names them
    subject: str = ""
    version: int = 0


class SchemaRegistryError(Exception):
    """The registry refused or could not answer a request (``error_code``: Confluent's, when it gave one)."""

    error_code: int | None = None


class _Unreachable(SchemaRegistryError):
    """No answer from a registry's URL (the next URL of a list is tried)."""


class NotSoftDeletedError(SchemaRegistryError):
    """A permanent delete of versions that were not soft-deleted first (Confluent's 40405 / 40407)."""

    def __init__(self, subject: str, version: int | None = None) -> None:
        what = f"Subject '{subject}'" + ("" if version is None else f" Version {version}")
        super().__init__(f"{what} was not deleted first before being permanently deleted")
        self.error_code = 40405 if version is None else 40407


def subject(topic: str, is_key: bool) -> str:
    """TopicNameStrategy: the subject of a topic's keys or values."""
    return f"{topic}-{'key' if is_key else 'value'}"


@functools.lru_cache(maxsize=1024)
def canonical(schema: str) -> str:
    """A schema text normalised so that the same schema written twice gets the same id: a JSON text (AVRO,
    JSON) as its parsed value; any other (PROTOBUF) as its tokens - Confluent's registry compares a
    ProtobufSchema's ``canonicalString()``, the file rendered again from its parse, so whitespace, line
    breaks, comments and a string's quote style do not make another schema (from memory of Confluent's
    ProtobufSchema / KafkaSchemaRegistry.lookUpSchemaUnderSubject)."""
    try:
        return json.dumps(json.loads(schema), sort_keys=True, separators=(",", ":"))
    except ValueError:
        pass
    try:
        tokens = proto_tokens(schema)
    except ProtoSchemaError:
        return schema.strip()
    return " ".join(_double_quoted(t) if t[:1] == "'" else t for t in tokens)


def _double_quoted(token: str) -> str:
    """A single-quoted protobuf string as the same string double-quoted (how a rendered file writes it)."""
    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:  # a bare double quote
            return '\\"'
        return "'" if m.group(1) == "'" else m.group(0)

    inner = re.sub(r"\\(.)|\"", one, token[1:-1], flags=re.DOTALL)
    return f'"{inner}"'


class SchemaRegistry:
    """The registry interface the serdes and the engine use."""

    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        """Register ``schema`` under ``subject`` (a no-op if it is already its latest); its id."""
        raise NotImplementedError

    def by_id(self, schema_id: int) -> RegisteredSchema | None:
        raise NotImplementedError

    def latest(self, subject: str) -> RegisteredSchema | None:
        raise NotImplementedError

    def subjects(self, include_deleted: bool = False) -> list[str]:
        """The subjects with a live version (``include_deleted``: also those whose versions are all soft-deleted)."""
        raise NotImplementedError

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


class EmbeddedSchemaRegistry(SchemaRegistry):
    """In-process registry; with a ``log`` every registration is also a record of ``_schemas``."""

    def __init__(self, log: Any = None, topic: str = SCHEMAS_TOPIC, *, default_compatibility: str = "NONE") -> None:
        self._log = log
        self._default_level = default_compatibility  # the global level until one is set
        self._topic = topic
        self._lock = threading.RLock()
        self._by_id: dict[int, RegisteredSchema] = {}
        self._versions: dict[str, list[RegisteredSchema]] = {}
        self._ids_by_text: dict[tuple[str, str], int] = {}
        self._levels: dict[str, str] = {}  # compatibility level by subject; "" is the global one
        self._soft_deleted: dict[str, list[RegisteredSchema]] = {}  # by subject, in version order
        self._retired: set[int] = set()  # ids whose every version was deleted permanently
        if log is not None:
            self._replay()

    # -- durability
    def _replay(self) -> None:
        log = self._log
        if not log.topic_exists(self._topic):
            return
        offset, end = log.start_offset(self._topic, 0), log.end_offset(self._topic, 0)
        while offset < end:
            batch = log.fetch(self._topic, 0, offset, 10000)
            if not len(batch):
                break
            for value in batch.values:
                if value is not None:
                    d = json.loads(value)
                    if "compatibilityLevel" in d:
                        self._set_level(str(d.get("subject") or ""), d["compatibilityLevel"])
                        continue
                    if d.get("deleted"):
                        self._delete(d["subject"], d.get("version"), bool(d.get("permanent")))
                        continue
                    self._apply(RegisteredSchema(int(d["id"]), d["schema"], d.get("schemaType", "AVRO"),
                                                 d["subject"], int(d["version"])))
            offset = batch.next_offset

    def _persist(self, rs: RegisteredSchema) -> None:
        if self._log is None:
            return
        body = {"subject": rs.subject, "version": rs.version, "id": rs.id, "schemaType": rs.schema_type,
                "schema": rs.schema}
        self._produce(rs.subject, body)

    def _produce(self, key: str, body: dict[str, Any]) -> None:
        from ksqlpy.log.base import ProducerRecord

        if not self._log.topic_exists(self._topic):
            try:
                self._log.create_topic(self._topic, 1)
            except Exception:  # noqa: BLE001 - created concurrently
                pass
        self._log.produce(ProducerRecord(self._topic, key.encode("utf-8"), json.dumps(body).encode("utf-8"),
                                         partition=0))

    def _apply(self, rs: RegisteredSchema) -> None:
        self._by_id.setdefault(rs.id, rs)
        self._ids_by_text.setdefault((rs.schema_type, canonical(rs.schema)), rs.id)
        self._retired.discard(rs.id)
        if rs.subject:
            self._versions.setdefault(rs.subject, []).append(rs)
            # a soft-deleted version of the same schema is superseded by the new one (Confluent tombstones it)
            deleted = [v for v in self._soft_deleted.get(rs.subject, []) if v.id != rs.id]
            if deleted:
                self._soft_deleted[rs.subject] = deleted
            else:
                self._soft_deleted.pop(rs.subject, None)

    def _next_version(self, subject: str) -> int:
        """One past the highest version the subject ever had, soft-deleted ones included (Confluent's)."""
        every = (self._versions.get(subject) or []) + (self._soft_deleted.get(subject) or [])
        return max((v.version for v in every), default=0) + 1

    # -- the interface
    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        with self._lock:
            key = (schema_type, canonical(schema))
            current = self._versions.get(subject) or []
            if schema_id is None:
                # a schema the subject already has (any version) is looked up, not registered again
                same = next((v for v in reversed(current)
                             if v.schema_type == schema_type and canonical(v.schema) == key[1]), None)
                if same is not None:
                    return same.id
                schema_id = self._ids_by_text.get(key) or self._free_id()
            elif schema_id in self._by_id and canonical(self._by_id[schema_id].schema) != key[1]:
                raise SchemaRegistryError(f"Schema id {schema_id} is already used by another schema")
            rs = RegisteredSchema(schema_id, schema, schema_type, subject, self._next_version(subject))
            from ksqlpy.schema_registry.compatibility import check

            check(subject, rs, current, self.compatibility(subject), self._loader)
            self._apply(rs)
            self._persist(rs)
            return schema_id

    def _loader(self, name: str) -> str | None:
        latest = self.latest(name)
        return latest.schema if latest is not None else None

    # -- compatibility levels (Confluent's /config)
    def compatibility(self, subject: str | None = None) -> Any:
        """The level a subject's new versions are checked under: its own, else the global one."""
        from ksqlpy.schema_registry.compatibility import Level

        raw = self._levels.get(subject or "") if subject else None
        return Level(raw or self._levels.get("") or self._default_level)

    def subject_compatibility(self, subject: str) -> Any:
        """The level set for ``subject`` itself, or None."""
        from ksqlpy.schema_registry.compatibility import Level

        raw = self._levels.get(subject)
        return Level(raw) if raw else None

    def set_compatibility(self, level: Any, subject: str | None = None) -> Any:
        """Set the global level (no ``subject``) or a subject's; a level of None removes a subject's own."""
        from ksqlpy.schema_registry.compatibility import parse_level

        value = None if level is None else parse_level(getattr(level, "value", level)).value
        with self._lock:
            self._set_level(subject or "", value)
            if self._log is not None:
                self._produce(subject or "", {"subject": subject or "", "compatibilityLevel": value})
        return self.compatibility(subject)

    def _set_level(self, subject: str, value: str | None) -> None:
        if value is None:
            self._levels.pop(subject, None)
        else:
            self._levels[subject] = value

    def _free_id(self) -> int:
        """The smallest id never used (ids given explicitly may leave holes; new schemas fill them first;
        an id deleted permanently is not given out again)."""
        sid = 1
        while sid in self._by_id or sid in self._retired:
            sid += 1
        return sid

    def by_id(self, schema_id: int) -> RegisteredSchema | None:
        return self._by_id.get(schema_id)

    def latest(self, subject: str) -> RegisteredSchema | None:
        versions = self._versions.get(subject)
        return versions[-1] if versions else None

    def versions(self, subject: str, include_deleted: bool = False) -> list[RegisteredSchema]:
        """The subject's versions in order; with ``include_deleted`` the soft-deleted ones too."""
        live = list(self._versions.get(subject) or [])
        if not include_deleted:
            return live
        return sorted(live + list(self._soft_deleted.get(subject) or []), key=lambda v: v.version)

    def is_soft_deleted(self, subject: str, version: int | None = None) -> bool:
        """Whether the subject (no live version left) or one of its versions is soft-deleted."""
        deleted = self._soft_deleted.get(subject) or []
        if version is None:
            return bool(deleted) and not self._versions.get(subject)
        return any(v.version == version for v in deleted)

    def subjects(self, include_deleted: bool = False) -> list[str]:
        names = set(self._versions)
        if include_deleted:
            names |= set(self._soft_deleted)
        return sorted(names)

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        """Delete every version of ``subject``: soft (their numbers; [] when it has no live version), or
        ``permanent`` once soft-deleted (``NotSoftDeletedError`` while a live version is left)."""
        return self._delete_logged(subject, None, permanent)

    def delete_version(self, subject: str, version: int, permanent: bool = False) -> list[int]:
        """Delete one version: soft ([] when it is not live), or ``permanent`` once soft-deleted."""
        return self._delete_logged(subject, version, permanent)

    def _delete_logged(self, subject: str, version: int | None, permanent: bool) -> list[int]:
        with self._lock:
            gone = self._delete(subject, version, permanent)
            if gone and self._log is not None:
                body: dict[str, Any] = {"subject": subject, "deleted": True}
                if version is not None:
                    body["version"] = version
                if permanent:
                    body["permanent"] = True
                self._produce(subject, body)
            return gone

    def _delete(self, subject: str, version: int | None, permanent: bool) -> list[int]:
        live = self._versions.get(subject) or []
        deleted = self._soft_deleted.get(subject) or []
        picked = live if version is None else [v for v in live if v.version == version]
        if not permanent:
            if not picked:
                return []
            left = [v for v in live if v not in picked]
            if left:
                self._versions[subject] = left
            else:
                self._versions.pop(subject, None)
            self._soft_deleted[subject] = sorted(deleted + picked, key=lambda v: v.version)
            return [v.version for v in picked]
        if picked:
            raise NotSoftDeletedError(subject, version)
        gone = deleted if version is None else [v for v in deleted if v.version == version]
        if not gone:
            return []
        left = [v for v in deleted if v not in gone]
        if left:
            self._soft_deleted[subject] = left
        else:
            self._soft_deleted.pop(subject, None)
        self._retire({v.id for v in gone})
        return [v.version for v in gone]

    def _retire(self, ids: set[int]) -> None:
        """Forget the ids no version of any subject (soft-deleted or not) holds any more."""
        held = {v.id for vs in (*self._versions.values(), *self._soft_deleted.values()) for v in vs}
        for sid in ids - held:
            rs = self._by_id.pop(sid, None)
            if rs is not None and self._ids_by_text.get((rs.schema_type, canonical(rs.schema))) == sid:
                del self._ids_by_text[(rs.schema_type, canonical(rs.schema))]
            self._retired.add(sid)

    def clear(self) -> None:
        """Forget every schema and id, as a new registry (an in-memory one only: a log's records stay)."""
        if self._log is not None:
            raise SchemaRegistryError("a registry kept on a log cannot be cleared")
        with self._lock:
            self._by_id.clear()
            self._versions.clear()
            self._ids_by_text.clear()
            self._levels.clear()
            self._soft_deleted.clear()
            self._retired.clear()

    def is_empty(self) -> bool:
        """No id was ever given out (or since ``clear``)."""
        return not self._by_id and not self._retired


class HttpSchemaRegistry(SchemaRegistry):
    """A Confluent-compatible registry over its REST API (stdlib HTTP, ids cached).

    ``url`` may list several registries (``http://a:8081,http://b:8081``): as Confluent's RestService, a
    request that cannot reach the current one moves on to the next (which stays current), and fails only
    when none answers; an HTTP error answer is an answer."""

    def __init__(self, url: str, timeout_s: float = 10.0, config: dict[str, str] | None = None) -> None:
        """``config``: the client's settings (``client_auth.client_config``: credentials, request headers)."""
        from ksqlpy.schema_registry.client_auth import request_headers, split_user_info

        split = [split_user_info(u.strip().rstrip("/")) for u in url.split(",") if u.strip()]
        self.urls = [u for u, _ in split]
        self.timeout_s = timeout_s
        self.headers = request_headers(config or {}, next((info for _, info in split if info), None))
        self._cache: dict[int, RegisteredSchema] = {}

    @property
    def url(self) -> str:
        """The registry requests go to first (the one that answered last)."""
        return self.urls[0]

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        for attempt in range(len(self.urls)):
            try:
                return self._call_one(method, path, body)
            except _Unreachable:
                if attempt == len(self.urls) - 1:
                    raise
                self.urls.append(self.urls.pop(0))
        raise AssertionError("unreachable")

    def _call_one(self, method: str, path: str, body: Any) -> Any:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Content-Type": "application/vnd.schemaregistry.v1+json",
            "Accept": "application/vnd.schemaregistry.v1+json, application/json", **self.headers})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:  # noqa: S310 - configured URL
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            raw = e.read()
            try:
                got = json.loads(raw)
                message, code = str(got["message"]), int(got["error_code"])
            except (ValueError, KeyError, TypeError):
                raise SchemaRegistryError(f"Schema registry {method} {path}: HTTP {e.code}: {raw[:200]!r}") from e
            # Confluent's RestClientException: the registry's message with its code appended
            err = SchemaRegistryError(f"{message}; error code: {code}")
            err.error_code = code
            raise err from e
        except OSError as e:
            raise _Unreachable(f"Schema registry {self.url} unreachable: {e}") from e

    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        body: dict[str, Any] = {"schema": schema}
        if schema_type != "AVRO":
            body["schemaType"] = schema_type
        if schema_id is not None:
            body["id"] = schema_id
        got = self._call("POST", f"/subjects/{urllib.parse.quote(subject, safe='')}/versions", body)
        if not got or "id" not in got:
            raise SchemaRegistryError(f"Schema registry did not register a schema for {subject}")
        return int(got["id"])

    def by_id(self, schema_id: int) -> RegisteredSchema | None:
        if schema_id in self._cache:
            return self._cache[schema_id]
        got = self._call("GET", f"/schemas/ids/{schema_id}")
        if not got:
            return None
        rs = RegisteredSchema(schema_id, got["schema"], got.get("schemaType", "AVRO"))
        self._cache[schema_id] = rs
        return rs

    def latest(self, subject: str) -> RegisteredSchema | None:
        got = self._call("GET", f"/subjects/{urllib.parse.quote(subject, safe='')}/versions/latest")
        if not got:
            return None
        return RegisteredSchema(int(got["id"]), got["schema"], got.get("schemaType", "AVRO"), subject,
                                int(got.get("version", 0)))

    def versions(self, subject: str, include_deleted: bool = False) -> list[RegisteredSchema]:
        """Every version of ``subject`` in order (``include_deleted``: the soft-deleted too); [] for none."""
        base = f"/subjects/{urllib.parse.quote(subject, safe='')}/versions"
        query = "?deleted=true" if include_deleted else ""
        out: list[RegisteredSchema] = []
        for number in self._call("GET", base + query) or []:
            got = self._call("GET", f"{base}/{int(number)}{query}")
            if got:
                out.append(RegisteredSchema(int(got["id"]), got["schema"], got.get("schemaType", "AVRO"), subject,
                                            int(got.get("version", number))))
        return out

    def subjects(self, include_deleted: bool = False) -> list[str]:
        return list(self._call("GET", "/subjects" + ("?deleted=true" if include_deleted else "")) or [])

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        """Confluent's soft (or ``permanent``) delete of every version of ``subject``; an unknown subject
        deletes nothing."""
        query = "?permanent=true" if permanent else ""
        return list(self._call("DELETE", f"/subjects/{urllib.parse.quote(subject, safe='')}{query}") or [])

    def compatibility(self, subject: str | None = None) -> Any:
        """The level the registry checks ``subject``'s new versions under (its own, else the global one)."""
        from ksqlpy.schema_registry.compatibility import DEFAULT_LEVEL, parse_level

        got = None
        if subject:
            got = self._call("GET", f"/config/{urllib.parse.quote(subject, safe='')}?defaultToGlobal=true")
        got = got or self._call("GET", "/config")
        return parse_level(got.get("compatibilityLevel") or got.get("compatibility")) if got else DEFAULT_LEVEL

    def set_compatibility(self, level: Any, subject: str | None = None) -> Any:
        from ksqlpy.schema_registry.compatibility import parse_level

        path = f"/config/{urllib.parse.quote(subject, safe='')}" if subject else "/config"
        if level is None:
            self._call("DELETE", path)
            return self.compatibility(subject)
        got = self._call("PUT", path, {"compatibility": parse_level(getattr(level, "value", level)).value})
        return parse_level(got["compatibility"]) if got else parse_level(level)


URL_PROPERTY = "ksql.schema.registry.url"
# the global compatibility level of an engine's embedded registry (ksqlpy's own property; unset: what the
# registry holds, else NONE - as ksqlDB's ``mock://`` registry, Confluent's MockSchemaRegistryClient, which
# registers any version unchecked; ksqlDB's test harnesses run on it). BACKWARD is a real registry's default.
COMPATIBILITY_PROPERTY = "ksqlpy.schema.registry.compatibility"
NOT_CONFIGURED = f"KSQL is not configured to use a schema registry. To enable it, please set {URL_PROPERTY}"


class UnconfiguredSchemaRegistry(SchemaRegistry):
    """No registry configured (``ksql.schema.registry.url`` set empty): every call refuses, as ksqlDB's
    ``DefaultSchemaRegistryClient`` does, so every statement that needs a schema (inference, registration,
    INSERT VALUES, ASSERT SCHEMA) fails with 428 / 42801 at the point it needs one."""

    def register(self, subject: str, schema: str, schema_type: str = "AVRO", schema_id: int | None = None) -> int:
        raise KsqlSchemaRegistryUnconfigured(NOT_CONFIGURED)

    def by_id(self, schema_id: int) -> RegisteredSchema | None:
        raise KsqlSchemaRegistryUnconfigured(NOT_CONFIGURED)

    def latest(self, subject: str) -> RegisteredSchema | None:
        raise KsqlSchemaRegistryUnconfigured(NOT_CONFIGURED)

    def subjects(self, include_deleted: bool = False) -> list[str]:
        raise KsqlSchemaRegistryUnconfigured(NOT_CONFIGURED)

    def delete_subject(self, subject: str, permanent: bool = False) -> list[int]:
        raise KsqlSchemaRegistryUnconfigured(NOT_CONFIGURED)


def is_configured(registry: Any) -> bool:
    """False only for the registry of an engine started with ``ksql.schema.registry.url`` empty."""
    return not isinstance(registry, UnconfiguredSchemaRegistry)


def require_registry(registry: Any, topic: str, fmt: str) -> None:
    """A source whose topic is written with a schema-registry format needs a registry: ksqlDB's
    ``SchemaRegisterInjector`` refuses the statement before registering anything."""
    if not is_configured(registry):
        raise KsqlSchemaRegistryUnconfigured(f"Cannot create topic '{topic}' with format {fmt} without "
                                             f"configuring '{URL_PROPERTY}'")


def open_registry(properties: Any, log: Any = None) -> SchemaRegistry:
    """The registry ``ksql.schema.registry.url`` configures.

    - unset (ksqlpy's default start-up of the shell, the server and the test runner) or a non-http value
      such as ``embedded`` or ``mock://x``: the embedded registry - configured; its global compatibility
      level set to ``ksqlpy.schema.registry.compatibility`` when that is given;
    - ``http://...`` / ``https://...``: that registry;
    - empty: no registry, as ksqlDB's default - AVRO, PROTOBUF and JSON_SR statements are refused (428).
    """
    raw = properties.get(URL_PROPERTY)
    url = None if raw is None else str(raw).strip()
    if url == "":
        return UnconfiguredSchemaRegistry()
    if url is not None and url.startswith(("http://", "https://")):
        from ksqlpy.schema_registry.client_auth import client_config

        return HttpSchemaRegistry(url, config=client_config(properties))
    registry = EmbeddedSchemaRegistry(log)
    level = properties.get(COMPATIBILITY_PROPERTY)
    if level is not None and str(level).strip():
        from ksqlpy.schema_registry.compatibility import parse_level

        wanted = parse_level(level)
        if registry.compatibility() is not wanted:
            registry.set_compatibility(wanted)
    return registry
