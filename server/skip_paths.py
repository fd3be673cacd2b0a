"""``authentication.skip.paths``: the paths served without authentication (auth.py), parsed where the server's
configuration is validated (no web framework needed)."""

from __future__ import annotations

import posixpath
import re

SKIP_PATHS = "authentication.skip.paths"


def skip_paths(value: object) -> re.Pattern[str] | None:
    """``authentication.skip.paths``: a comma list of paths served without authentication, ``*`` standing for
    any run of characters (``/v1/metadata*``, ``/ws/*``). As ksqlDB's AuthHandlers builds it (from memory of
    getAuthenticationSkipPathsPattern, kept from the Jetty-based server): the paths joined with ``|`` into one
    regular expression, each ``*`` made ``.*``, matched against the whole normalized path. None: no path."""
    items = value if isinstance(value, (list, tuple)) else str(value or "").split(",")
    paths = [str(p).strip() for p in items if str(p).strip()]
    if not paths:
        return None
    try:
        return re.compile("|".join(paths).replace("*", ".*"))
    except re.error as e:
        raise ValueError(f"Invalid {SKIP_PATHS} {','.join(paths)!r}: {e}") from e


def normalized(path: str) -> str:
    """The path with its dot segments and repeated slashes resolved (Vert.x's normalizedPath), so
    ``/skipped/../ksql`` is not a skipped path."""
    if not path.startswith("/"):
        path = "/" + path
    resolved = posixpath.normpath(path)
    resolved = "/" + resolved.lstrip("/")
    return resolved + "/" if path.endswith("/") and resolved != "/" else resolved
