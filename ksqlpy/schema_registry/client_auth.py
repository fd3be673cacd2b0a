"""What a request to a Confluent registry carries besides its body: credentials and configured headers.

As Confluent's CachedSchemaRegistryClient, configured through ksqlDB's ``ksql.schema.registry.*`` properties
(the prefix stripped, as ksqlDB hands them to the client):

- ``basic.auth.credentials.source`` - ``URL`` (the default: the user info of the registry's URL,
  ``http://user:secret@host:8081``), ``USER_INFO`` (``basic.auth.user.info``, ``user:secret``) or
  ``SASL_INHERIT`` (the Kafka client's SASL login: none here) - sent as ``Authorization: Basic``;
- ``bearer.auth.credentials.source=STATIC_TOKEN`` with ``bearer.auth.token`` - ``Authorization: Bearer``;
- ``request.header.<Name>`` - a header of that name on every request (SchemaRegistryClientConfig's
  REQUEST_HEADER_PREFIX).

A URL's user info is never part of the URL requests go to. An unknown credentials source is refused at
start, as Confluent's provider factories refuse it.
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Mapping
from typing import Any

PREFIX = "ksql.schema.registry."
HEADER_PREFIX = "request.header."
BASIC_SOURCES = ("URL", "USER_INFO", "SASL_INHERIT")
BEARER_SOURCES = ("STATIC_TOKEN",)


class RegistryAuthError(ValueError):
    """A credentials source the client does not know (Confluent's ConfigException)."""


def client_config(properties: Mapping[str, Any]) -> dict[str, str]:
    """The registry client's settings: every ``ksql.schema.registry.*`` property without the prefix."""
    return {k[len(PREFIX):]: str(v) for k, v in properties.items()
            if isinstance(k, str) and k.startswith(PREFIX) and v is not None}


def split_user_info(url: str) -> tuple[str, str | None]:
    """The URL without its user info, and the user info (``user:secret``, unquoted) if it had one."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    info = urllib.parse.unquote(parts.username) + (
        f":{urllib.parse.unquote(parts.password)}" if parts.password is not None else "")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), info


def request_headers(config: Mapping[str, str], url_user_info: str | None) -> dict[str, str]:
    """The headers every request carries under ``config`` (a ``client_config``)."""
    headers = {k[len(HEADER_PREFIX):]: v for k, v in config.items() if k.startswith(HEADER_PREFIX)}
    bearer = config.get("bearer.auth.credentials.source")
    if bearer:
        if bearer.upper() not in BEARER_SOURCES:
            raise RegistryAuthError(f"Unknown bearer credential source: {bearer}")
        token = config.get("bearer.auth.token")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers
    source = (config.get("basic.auth.credentials.source") or "URL").upper()
    if source not in BASIC_SOURCES:
        raise RegistryAuthError(f"Unknown basic auth credentials source: {source}")
    info = url_user_info if source == "URL" else config.get("basic.auth.user.info") if source == "USER_INFO" else None
    if info:
        headers["Authorization"] = "Basic " + base64.b64encode(info.encode("utf-8")).decode("ascii")
    return headers
