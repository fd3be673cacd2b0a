"""Secrets in statement properties stay out of the command log.

A request may carry credentials in its properties (``sasl.jaas.config``, ``ssl.key.password``, a schema
registry's ``basic.auth.user.info``, API keys and secrets). The command topic keeps every distributed
statement with its properties for as long as the server exists, and may live on a shared Kafka cluster,
so a secret's value is written there as ``[hidden]``; the value itself goes to ``command-secrets.json`` in
the data directory (0600), under a reference the command carries, and replay puts it back. A server that
replays a command whose secrets it does not have (another host, a lost data directory) runs it without
them and logs which were missing.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import uuid
from typing import Any

import orjson

from ksqlpy.private_files import FILE_MODE, private_dir

LOG = logging.getLogger(__name__)
HIDDEN = "[hidden]"
SECRETS_FILE = "command-secrets.json"
_SECRET = re.compile(r"password|passwd|secret|jaas|credential|user\.info|token|private|apikey|api\.key|(^|[._])key$")


# a ``.key`` naming the key side of a setting, not a key: ``ksql.persistence.default.format.key`` (a format
# name a replayed command must read back, not ``[hidden]``)
_SETTING = re.compile(r"format\.key$")


def is_secret(name: str) -> bool:
    """A property whose value is a credential (by Kafka's and the schema registry's naming)."""
    lowered = name.lower()
    return _SECRET.search(lowered) is not None and _SETTING.search(lowered) is None


def split(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``props`` with secret values hidden, the secret values)."""
    hidden = {k: v for k, v in props.items() if is_secret(str(k))}
    return {k: (HIDDEN if k in hidden else v) for k, v in props.items()}, hidden


class SecretStore:
    """Secret property values by reference, in one 0600 JSON file."""

    def __init__(self, data_dir: str) -> None:
        self.path = os.path.join(private_dir(data_dir), SECRETS_FILE)
        self._lock = threading.Lock()

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            with open(self.path, "rb") as f:
                return dict(orjson.loads(f.read()))
        except FileNotFoundError:
            return {}

    def put(self, values: dict[str, Any]) -> str:
        ref = uuid.uuid4().hex
        with self._lock:
            data = self._read()
            data[ref] = values
            tmp = self.path + ".tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps(data))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        return ref

    def get(self, ref: str) -> dict[str, Any] | None:
        with self._lock:
            return self._read().get(ref)


def restore(props: dict[str, Any], ref: str | None, store: SecretStore | None, what: str) -> dict[str, Any]:
    """``props`` as written, with hidden values put back from ``store`` (or left out, logged)."""
    hidden = [k for k, v in props.items() if v == HIDDEN and is_secret(k)]
    if not hidden:
        return props
    values = store.get(ref) if store is not None and ref else None
    out = {k: v for k, v in props.items() if k not in hidden}
    if values:
        out.update({k: values[k] for k in hidden if k in values})
    missing = [k for k in hidden if k not in out]
    if missing:
        LOG.warning("%s: the values of %s are not in this server's %s; running without them", what,
                    ", ".join(missing), SECRETS_FILE)
    return out
