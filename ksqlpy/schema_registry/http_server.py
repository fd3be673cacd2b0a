"""A Confluent-compatible schema registry over HTTP, serving an ``EmbeddedSchemaRegistry``.

The part of Confluent's REST API that serializers and ksqlDB use: ``POST /subjects/{s}/versions``
(register; ``schemaType`` AVRO | JSON | PROTOBUF; an explicit ``id`` is honoured),
``GET /subjects/{s}/versions/latest``, ``GET /subjects/{s}/versions``, ``GET /schemas/ids/{id}``,
``GET /schemas/ids/{id}/subjects|versions|schema``, ``GET /subjects/{s}/versions/{v}/schema``,
``GET /schemas/types``, ``GET /subjects``, ``POST /subjects/{s}`` (lookup) and
``DELETE /subjects/{s}[/versions/{v}]`` (soft delete: the ids stay readable; then ``?permanent=true``;
``?deleted=true`` lists and reads soft-deleted subjects and versions), the compatibility
levels (``GET|PUT /config``, ``GET|PUT|DELETE /config/{s}``) and ``POST /compatibility/subjects/{s}/versions/
{latest|n}``. Errors are Confluent's ``{"error_code", "message"}`` bodies (40401 subject not found, 40403
schema not found, 40404 / 40406 a subject / version already soft-deleted, 40405 / 40407 a permanent delete
of what was not soft-deleted first, 40408 no subject-level config, 409 an incompatible schema, 42203 an
unknown level).

It lets a ksqlpy server be pointed at a registry that another process owns (``ksql.schema.registry.url``):
the REST conformance runner starts one, so it can read what the server registered and clear the
subjects between cases.

    with RegistryServer() as srv:     # 127.0.0.1, a free port
        srv.url, srv.registry         # the URL to configure, the registry behind it
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from ksqlpy.schema_registry import (
    EmbeddedSchemaRegistry,
    NotSoftDeletedError,
    RegisteredSchema,
    SchemaRegistryError,
    canonical,
)
from ksqlpy.schema_registry.compatibility import (
    DEFAULT_LEVEL,
    IncompatibleSchemaError,
    InvalidLevelError,
    check,
    parse_level,
)

_SUBJECT = re.compile(r"^/subjects/([^/]+)(/versions(?:/(latest|\d+))?)?/?$")
_RAW_VERSION = re.compile(r"^/subjects/([^/]+)/versions/(latest|\d+)/schema/?$")
_ID = re.compile(r"^/schemas/ids/(\d+)(?:/(subjects|versions|schema))?/?$")
SCHEMA_TYPES = ["JSON", "PROTOBUF", "AVRO"]  # what GET /schemas/types lists, in Confluent's order
_CONFIG = re.compile(r"^/config(?:/([^/]+))?/?$")
_COMPATIBILITY = re.compile(r"^/compatibility/subjects/([^/]+)/versions/(latest|\d+)/?$")


def _flag(path: str, name: str) -> bool:
    """A boolean query parameter (``?deleted=true``, ``?permanent=true``)."""
    query = path.split("?", 1)[1] if "?" in path else ""
    return f"{name}=true" in query.lower().split("&")


def _version_body(rs: RegisteredSchema) -> dict[str, Any]:
    body: dict[str, Any] = {"subject": rs.subject, "version": rs.version, "id": rs.id, "schema": rs.schema}
    if rs.schema_type != "AVRO":
        body["schemaType"] = rs.schema_type
    return body


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _missing(self, code: int, message: str) -> None:
        self._send(404, {"error_code": code, "message": message})

    def _body(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")

    def _send_raw(self, text: str) -> None:
        """A schema as itself (``.../schema``): Confluent answers the schema's text, not a JSON string of it."""
        data = text.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _by_id(self, schema_id: int, what: str | None) -> None:
        """``GET /schemas/ids/{id}`` and its ``/subjects``, ``/versions`` (the subject versions that hold the
        id; soft-deleted ones with ``?deleted=true``) and ``/schema`` (the text alone)."""
        reg = self.server.registry
        rs = reg.by_id(schema_id)
        if rs is None:
            self._missing(40403, "Schema not found")
            return
        if what == "schema":
            self._send_raw(rs.schema)
            return
        if what is None:
            self._send(200, {"schema": rs.schema, **({"schemaType": rs.schema_type}
                                                     if rs.schema_type != "AVRO" else {})})
            return
        deleted = _flag(self.path, "deleted")
        held = [v for name in reg.subjects(include_deleted=deleted)
                for v in reg.versions(name, include_deleted=deleted) if v.id == schema_id]
        if what == "subjects":
            self._send(200, sorted({v.subject for v in held}))
        else:
            self._send(200, [{"subject": v.subject, "version": v.version} for v in held])

    def _config_get(self, subject: str | None) -> None:
        reg = self.server.registry
        if subject is None:
            self._send(200, {"compatibilityLevel": reg.compatibility().value})
            return
        own = reg.subject_compatibility(subject)
        if own is None and "defaultToGlobal=true" not in self.path:
            self._missing(40408, f"Subject '{subject}' does not have subject-level compatibility configured")
        else:
            self._send(200, {"compatibilityLevel": (own or reg.compatibility()).value})

    def do_PUT(self) -> None:  # noqa: N802
        m = _CONFIG.match(self.path.split("?", 1)[0])
        if not m:
            self._missing(404, "Not found")
            return
        try:
            body = self._body()
            level = parse_level(body.get("compatibility") or body.get("compatibilityLevel"))
        except InvalidLevelError as e:
            self._send(422, {"error_code": e.error_code, "message": e.message})
            return
        except ValueError:
            self._send(422, {"error_code": 42203, "message": "Invalid compatibility level"})
            return
        subject = unquote(m.group(1)) if m.group(1) else None
        self.server.registry.set_compatibility(level, subject)
        self._send(200, {"compatibility": level.value})

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        reg = self.server.registry
        path = self.path.split("?", 1)[0]
        m = _CONFIG.match(path)
        if m:
            self._config_get(unquote(m.group(1)) if m.group(1) else None)
            return
        if path.rstrip("/") == "/subjects":
            self._send(200, reg.subjects(include_deleted=_flag(self.path, "deleted")))
            return
        if path.rstrip("/") == "/schemas/types":
            self._send(200, SCHEMA_TYPES)
            return
        m = _ID.match(path)
        if m:
            self._by_id(int(m.group(1)), m.group(2))
            return
        m = _RAW_VERSION.match(path)
        if m:
            versions = reg.versions(unquote(m.group(1)), include_deleted=_flag(self.path, "deleted"))
            rs = (versions[-1] if versions else None) if m.group(2) == "latest" else next(
                (v for v in versions if v.version == int(m.group(2))), None)
            if not versions:
                self._missing(40401, f"Subject '{unquote(m.group(1))}' not found.")
            elif rs is None:
                self._missing(40402, f"Version {m.group(2)} not found.")
            else:
                self._send_raw(rs.schema)
            return
        m = _SUBJECT.match(path)
        if m and m.group(2):
            subject, which = unquote(m.group(1)), m.group(3)
            versions = reg.versions(subject, include_deleted=_flag(self.path, "deleted"))
            if not versions:
                self._missing(40401, f"Subject '{subject}' not found.")
            elif which is None:
                self._send(200, [rs.version for rs in versions])
            else:
                rs = versions[-1] if which == "latest" else next(
                    (v for v in versions if v.version == int(which)), None)
                if rs is None:
                    self._missing(40402, f"Version {which} not found.")
                else:
                    self._send(200, _version_body(rs))
            return
        self._missing(404, "Not found")

    def _test_compatibility(self, subject: str, which: str) -> None:
        """Confluent's compatibility test of a schema against one version of a subject, under its level."""
        reg = self.server.registry
        versions = reg.versions(subject)
        if not versions:
            self._missing(40401, f"Subject '{subject}' not found.")
            return
        old = versions[-1] if which == "latest" else next((v for v in versions if v.version == int(which)), None)
        if old is None:
            self._missing(40402, "Version not found.")
            return
        body = self._body()
        new = RegisteredSchema(0, str(body["schema"]), str(body.get("schemaType") or "AVRO"), subject,
                               old.version + 1)
        level = reg.compatibility(subject)
        try:
            check(subject, new, [old], parse_level(level.value.replace("_TRANSITIVE", "")))
        except IncompatibleSchemaError as e:
            self._send(200, {"is_compatible": False,
                             **({"messages": e.details} if "verbose=true" in self.path else {})})
            return
        self._send(200, {"is_compatible": True, **({"messages": []} if "verbose=true" in self.path else {})})

    def _lookup(self, subject: str) -> None:
        """Confluent's ``POST /subjects/{s}``: the version of ``subject`` that holds the schema posted (a
        soft-deleted one only with ``?deleted=true``)."""
        reg = self.server.registry
        versions = reg.versions(subject, include_deleted=_flag(self.path, "deleted"))
        if not versions:
            self._missing(40401, f"Subject '{subject}' not found.")
            return
        body = self._body()
        kind, text = str(body.get("schemaType") or "AVRO"), canonical(str(body.get("schema") or ""))
        found = next((v for v in reversed(versions) if v.schema_type == kind and canonical(v.schema) == text), None)
        if found is None:
            self._missing(40403, "Schema not found")
        else:
            self._send(200, _version_body(found))

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        c = _COMPATIBILITY.match(path)
        if c:
            self._test_compatibility(unquote(c.group(1)), c.group(2))
            return
        m = _SUBJECT.match(path)
        if m and m.group(2) is None:
            self._lookup(unquote(m.group(1)))
            return
        if not m or m.group(2) != "/versions":
            self._missing(404, "Not found")
            return
        try:
            body = self._body()
            sid = self.server.registry.register(unquote(m.group(1)), str(body["schema"]),
                                                str(body.get("schemaType") or "AVRO"), body.get("id"))
        except IncompatibleSchemaError as e:
            self._send(409, {"error_code": 409, "message": e.message})
            return
        except (ValueError, KeyError, SchemaRegistryError) as e:
            self._send(422, {"error_code": 42201, "message": f"Invalid schema: {e}"})
            return
        self._send(200, {"id": sid})

    def do_DELETE(self) -> None:  # noqa: N802
        c = _CONFIG.match(self.path.split("?", 1)[0])
        if c and c.group(1):
            subject = unquote(c.group(1))
            own = self.server.registry.subject_compatibility(subject)
            if own is None:
                self._missing(40408, f"Subject '{subject}' does not have subject-level compatibility configured")
            else:
                self.server.registry.set_compatibility(None, subject)
                self._send(200, {"compatibilityLevel": own.value})
            return
        m = _SUBJECT.match(self.path.split("?", 1)[0])
        if not m or m.group(2) == "/versions":
            self._missing(404, "Not found")
            return
        self._delete(unquote(m.group(1)), m.group(3), _flag(self.path, "permanent"))

    def _delete(self, subject: str, which: str | None, permanent: bool) -> None:
        """Confluent's DELETE of a subject (the version numbers deleted) or of one version (its number)."""
        reg = self.server.registry
        every = reg.versions(subject, include_deleted=True)
        if not every:
            self._missing(40401, f"Subject '{subject}' not found.")
            return
        version = None
        if which is not None:
            live = reg.versions(subject)
            found = (live[-1] if live else None) if which == "latest" else next(
                (v for v in every if v.version == int(which)), None)
            if found is None:
                self._missing(40402, f"Version {which} not found.")
                return
            version = found.version
        if not permanent and reg.is_soft_deleted(subject, version):
            what = f"Subject '{subject}'" + ("" if version is None else f" Version {version}")
            self._missing(40404 if version is None else 40406,
                          f"{what} was soft deleted.Set permanent=true to delete permanently")
            return
        try:
            gone = (reg.delete_subject(subject, permanent) if version is None
                    else reg.delete_version(subject, version, permanent))
        except NotSoftDeletedError as e:
            self._missing(int(e.error_code or 40405), str(e))
            return
        self._send(200, gone if version is None else gone[0])


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], registry: EmbeddedSchemaRegistry) -> None:
        super().__init__(address, _Handler)
        self.registry = registry


class RegistryServer:
    """An HTTP registry on 127.0.0.1 in a background thread; ``url`` to configure, ``registry`` behind it."""

    def __init__(self, registry: EmbeddedSchemaRegistry | None = None, port: int = 0) -> None:
        # a registry of its own checks compatibility as Confluent's does by default (BACKWARD)
        self.registry = registry if registry is not None else EmbeddedSchemaRegistry(
            default_compatibility=DEFAULT_LEVEL.value)
        self._server = _Server(("127.0.0.1", port), self.registry)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="schema-registry", daemon=True)

    def __enter__(self) -> RegistryServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
