"""HTTP Basic authentication against a users file, as ksqlDB's ``authentication.method=BASIC``.

ksqlDB reads users through JAAS from a Jetty ``HashLoginService`` properties file; we read the same file
format directly (``authentication.users.file``): one ``user: password[,role...]`` per line, ``#`` comments,
passwords in plain text or as ``MD5:<hex>``. ``/chc/*`` stays open (liveness probes carry no credentials),
and so do the paths ``authentication.skip.paths`` lists (``skip_paths``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re

from starlette.types import ASGIApp, Receive, Scope, Send

from ksqlpy.server.config import ConfigError
from ksqlpy.server.errors import UNAUTHORIZED, envelope
from ksqlpy.server.gate import send_error
from ksqlpy.server.request_log import set_user
from ksqlpy.server.skip_paths import normalized

OPEN_PATHS = ("/chc/",)
def load_user_roles(path: str) -> tuple[dict[str, str], dict[str, frozenset[str]]]:
    """The users file's passwords and each user's roles (``user: password[,role...]``)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(f"Cannot read authentication.users.file {path}: {e.strerror or e}") from e
    users: dict[str, str] = {}
    roles: dict[str, frozenset[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")) or ":" not in line:
            continue
        user, rest = line.split(":", 1)
        password, *granted = rest.split(",")
        users[user.strip()] = password.strip()
        roles[user.strip()] = frozenset(r.strip() for r in granted if r.strip())
    return users, roles


def allowed_roles(value: object) -> frozenset[str]:
    """``authentication.roles``: the roles admitted (default ``*``: any authenticated user)."""
    items = value if isinstance(value, (list, tuple)) else str(value if value is not None else "*").split(",")
    return frozenset(str(r).strip() for r in items if str(r).strip())


def load_users(path: str) -> dict[str, str]:
    return load_user_roles(path)[0]


def check_password(stored: str, given: str) -> bool:
    if stored.upper().startswith("MD5:"):
        digest = hashlib.md5(given.encode(), usedforsecurity=False).hexdigest()
        return hmac.compare_digest(digest, stored[4:].strip().lower())
    return hmac.compare_digest(stored.encode(), given.encode())


def credentials(header: str | None) -> tuple[str, str] | None:
    if not header or not header.lower().startswith("basic "):
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    if ":" not in decoded:
        return None
    user, password = decoded.split(":", 1)
    return user, password


class BasicAuthMiddleware:
    """Basic authentication, then the role check: a user admitted only with one of ``authentication.roles``
    (``*``: any), the user's own name counting as one of its roles (the login's principals are the user and its
    roles). A failure of either is the same 401. ``WWW-Authenticate`` is left out for a request with
    ``X-Requested-With: XMLHttpRequest`` (a browser's script: no login dialog). From memory of ksqlDB's
    JaasAuthProvider.validateRoles and Vert.x 4's AuthenticationHandlerImpl.processException."""

    def __init__(self, app: ASGIApp, users: dict[str, str], realm: str = "KsqlServer",
                 roles: dict[str, frozenset[str]] | None = None, allowed: frozenset[str] = frozenset({"*"}),
                 skip: re.Pattern[str] | None = None) -> None:
        self.app = app
        self.skip = skip
        self.users = users
        self.realm = realm
        self.roles = roles or {}
        self.allowed_roles = allowed

    def allowed(self, scope: Scope) -> bool:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        creds = credentials(headers.get("authorization"))
        if creds is None:
            return False
        stored = self.users.get(creds[0])
        if stored is None or not check_password(stored, creds[1]):
            return False
        if "*" in self.allowed_roles or bool(self.allowed_roles & (self.roles.get(creds[0], frozenset()) | {creds[0]})):
            set_user(scope, creds[0])  # the principal the request log names
            return True
        return False

    def skipped(self, path: str) -> bool:
        return self.skip is not None and self.skip.fullmatch(normalized(path)) is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or scope["path"].startswith(OPEN_PATHS) \
                or self.skipped(scope["path"]) or self.allowed(scope):
            await self.app(scope, receive, send)
            return
        xhr = any(k.lower() == b"x-requested-with" and v == b"XMLHttpRequest" for k, v in scope.get("headers", []))
        await send_error(send, 401, envelope(UNAUTHORIZED, "Unauthorized"),
                         {} if xhr else {"www-authenticate": f'Basic realm="{self.realm}"'}, scope=scope)
