"""Server configuration: a ``ksql-server.properties`` style file, overridden by command-line flags.

ksqlDB users bring their properties files, so names are ksqlDB's wherever ksqlDB has one. Everything that
is not a server-only setting goes on to the engine unchanged (``ksql.*``, ``ksql.streams.*``, bare Streams
names such as ``auto.offset.reset``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ksqlpy.engine.config import as_bool, merge_layers, resolve

DEFAULT_LISTENER = "http://0.0.0.0:8088"

# Server-side defaults. The processing log topic and stream are created by default (ksqlDB ships them off,
# but every ksqlDB quick start turns them on, and a KSQL_PROCESSING_LOG users can query is what we want).
SERVER_DEFAULTS: dict[str, Any] = {
    "listeners": DEFAULT_LISTENER,
    "ksql.service.id": "default_",
    "ksql.server.command.response.timeout.ms": 5000,
    "ksql.max.push.queries": 100,
    "ksql.logging.processing.topic.auto.create": "true",
    "ksql.logging.processing.topic.partitions": 1,
    "ksql.logging.processing.topic.replication.factor": 1,
    "ksql.logging.processing.stream.auto.create": "true",
    "ksql.logging.processing.stream.name": "KSQL_PROCESSING_LOG",
    "ksql.logging.processing.rows.include": "false",
    "ksql.server.request.max.bytes": 10 * 1024 * 1024,
    "ksqlpy.server.inserts.line.max.bytes": 1024 * 1024,  # one /inserts-stream row (Kafka's max.request.size)
    "ksqlpy.server.response.max.bytes": 64 * 1024 * 1024,  # one /ksql response (response_limits.py)
    "ksqlpy.server.connections.max": 4096,  # connections.py (capped by the open-file limit)
    "ksqlpy.server.header.timeout.ms": 30_000,  # a new connection's first request head
    "ksql.idle.connection.timeout.seconds": 600,  # no request in progress (ksqlDB's name; its default is a day)
    "ksql.properties.overrides.denylist": "",
    "authentication.method": "NONE",
    "authentication.realm": "KsqlServer",
}


class ConfigError(Exception):
    """A configuration problem the server reports and exits on (exit status 2)."""


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "u" and i + 5 < len(text):
                try:
                    out.append(chr(int(text[i + 2:i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            out.append(_ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_properties(text: str) -> dict[str, str]:
    """Java ``.properties`` syntax: ``k=v``, ``k: v`` or ``k v``; ``#``/``!`` comments; ``\\`` continuations."""
    props: dict[str, str] = {}
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip() if pending else raw.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        logical.append(pending + line)
        pending = ""
    if pending:
        logical.append(pending)
    for line in logical:
        line = line.strip()
        i = 0
        while i < len(line):
            if line[i] == "\\":
                i += 2
                continue
            if line[i] in "=: \t":
                break
            i += 1
        key = line[:i]
        rest = line[i:].lstrip(" \t")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t")
        props[_unescape(key)] = _unescape(rest)
    return props


def load_properties(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8") as f:
            return parse_properties(f.read())
    except OSError as e:
        raise ConfigError(f"Cannot read properties file {path}: {e.strerror or e}") from e


# JVM system properties ksqlDB's PropertiesUtil.applyOverrides leaves out (the JVM's own, not configuration)
_JVM_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "os.", "user.", "file.", "line.", "path.", "awt.")
# ... but the JAAS file BASIC authentication reads its users through (``jaas.users_file``) is kept
LOGIN_CONFIG = "java.security.auth.login.config"


def ksql_opts_properties(text: str) -> dict[str, str]:
    """The ``-Dname=value`` settings of a ``KSQL_OPTS`` value: what ksqlDB's server takes from the JVM's system
    properties over its properties file (from memory of KsqlServerMain / PropertiesUtil.applyOverrides, and
    the server-configuration page's ``KSQL_OPTS="-Dksql.streams.num.stream.threads=1" ksql-server-start ...``).
    Other JVM options (``-Xmx1g``) and the JVM's own properties are not configuration, except the JAAS login
    file the security page sets this way; a ``-Dname`` without a value is the empty string, as Java sets it."""
    import shlex

    try:
        words = shlex.split(text)
    except ValueError as e:
        raise ConfigError(f"KSQL_OPTS: {e}") from e
    props: dict[str, str] = {}
    for word in words:
        if not word.startswith("-D") or len(word) < 3:
            continue
        name, _, value = word[2:].partition("=")
        if name == LOGIN_CONFIG or not name.startswith(_JVM_PREFIXES):
            props[name] = value
    return props


@dataclass
class Listener:
    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def bind(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_listener(url: str) -> Listener:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https"):
        raise ConfigError(f"Invalid listener {url!r}: the scheme must be http or https")
    try:
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"Invalid listener {url!r}: {e}") from e
    if port is None:
        port = 8088
    return Listener(parts.scheme, parts.hostname or "0.0.0.0", port)


@dataclass
class ServerConfig:
    """Effective settings: ``properties`` holds everything (defaults, file, flags)."""

    properties: dict[str, Any] = field(default_factory=lambda: dict(SERVER_DEFAULTS))
    data_dir: str | None = None

    def get(self, name: str, default: Any = None) -> Any:
        return self.properties.get(name, default)

    def flag(self, name: str) -> bool:
        return as_bool(self.properties.get(name, "false"))

    def int(self, name: str) -> int:
        try:
            return int(str(self.properties.get(name, SERVER_DEFAULTS.get(name, 0))).strip())
        except ValueError as e:
            raise ConfigError(f"Invalid value for {name}: {self.properties.get(name)!r} is not a number") from e

    @property
    def listeners(self) -> list[Listener]:
        return [parse_listener(u) for u in str(self.get("listeners", DEFAULT_LISTENER)).split(",") if u.strip()]

    @property
    def internal_listener(self) -> Listener | None:
        """``ksql.internal.listener``: the listener for the traffic between the servers of a cluster (see
        internal_listener.py); None when unset."""
        given = str(self.get("ksql.internal.listener") or "").strip()
        return parse_listener(given) if given else None

    @property
    def bound_listeners(self) -> list[Listener]:
        """Every address the server listens on: ``listeners``, then the internal listener unless one of them
        already binds its address."""
        bound = self.listeners
        internal = self.internal_listener
        if internal is not None and all(lst.bind != internal.bind for lst in bound):
            bound = [*bound, internal]
        return bound

    @property
    def service_id(self) -> str:
        return str(self.get("ksql.service.id", "default_"))

    @property
    def engine_properties(self) -> dict[str, Any]:
        """What the engine sees: all but the listener, security and ``ksqlpy.server.*`` settings."""
        skip = ("listeners", "ssl.", "authentication.", "access.control.", "ksqlpy.server.")
        return {k: v for k, v in self.properties.items() if not k.startswith(skip)}

    @property
    def auth_method(self) -> str:
        return str(self.get("authentication.method", "NONE")).strip().upper()

    def validate(self) -> None:
        if not self.listeners:
            raise ConfigError("No listener configured: set 'listeners' (e.g. http://0.0.0.0:8088)")
        for name in ("ksql.max.push.queries", "ksql.server.command.response.timeout.ms",
                     "ksql.server.request.max.bytes", "ksqlpy.server.inserts.line.max.bytes",
                     "ksqlpy.server.response.max.bytes", "ksqlpy.server.connections.max",
                     "ksqlpy.server.header.timeout.ms", "ksql.idle.connection.timeout.seconds"):
            self.int(name)
        for name in ("ksql.query.pull.max.qps", "ksql.query.pull.max.concurrent.requests",
                     "ksql.query.pull.max.hourly.bandwidth.megabytes",
                     "ksql.query.push.v2.max.hourly.bandwidth.megabytes"):  # pull_limits.py; unset: no limit
            if name in self.properties:
                self.int(name)
        rate = str(self.get("ksql.server.command.topic.rate.limit", "") or "").strip()
        try:
            float(rate or "0")
        except ValueError as e:
            raise ConfigError(f"Invalid value for ksql.server.command.topic.rate.limit: {rate!r} is not a number") from e
        if self.auth_method not in ("NONE", "BASIC"):
            raise ConfigError(f"Unsupported authentication.method {self.auth_method!r}: use NONE or BASIC")
        if self.auth_method == "BASIC" and not (self.get("authentication.users.file") or self.get(LOGIN_CONFIG)):
            raise ConfigError("authentication.method=BASIC needs authentication.users.file (lines 'user: password') "
                              f"or a JAAS file ({LOGIN_CONFIG}) whose authentication.realm section names "
                              "a PropertyFileLoginModule")
        from ksqlpy.server.request_log import RequestLogConfigError, RequestLogPolicy
        from ksqlpy.server.skip_paths import SKIP_PATHS, skip_paths

        try:  # the request log's settings (request_log.py), as ksqlDB's config definitions validate them
            RequestLogPolicy.from_properties(self.properties)
        except RequestLogConfigError as e:
            raise ConfigError(str(e)) from e

        try:  # a list that is no pattern stops the server at start
            skip_paths(self.get(SKIP_PATHS))
        except ValueError as e:
            raise ConfigError(str(e)) from e
        if any(listener.scheme == "https" for listener in self.bound_listeners):
            for name in ("ssl.certificate.location", "ssl.key.location"):
                path = self.get(name)
                if not path:
                    raise ConfigError(f"An https listener needs {name} (a PEM file)")
                if not os.path.exists(str(path)):
                    raise ConfigError(f"{name}: no such file {path}")


def build_config(properties_file: str | None = None, listeners: str | None = None,
                 data_dir: str | None = None, overrides: dict[str, Any] | None = None) -> ServerConfig:
    """Defaults, then the file, then ``KSQL_OPTS``'s ``-D`` settings, then ``overrides``, then the flags;
    validated."""
    props = merge_layers(SERVER_DEFAULTS, load_properties(properties_file) if properties_file else {},
                         ksql_opts_properties(os.environ.get("KSQL_OPTS", "")), overrides)
    if listeners:
        props["listeners"] = listeners
    directory = data_dir or resolve("state.dir", props)
    config = ServerConfig(props, str(directory) if directory else None)
    config.validate()
    return config
