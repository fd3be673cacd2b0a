"""URL functions with java.net.URI's reading of a URL: components are percent-decoded, a missing component
is NULL (an empty query after '?' is ''), a host that is not a valid host name makes the host NULL, and text
that is not a URI at all (spaces, '<', '%zz'...) is a per-record error. Parameter encoding follows
java.net.URLEncoder/URLDecoder (form encoding: space <-> '+')."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, unquote_to_bytes

from ksqlpy import utf16
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, registrar

CATEGORY = "URL"

_URI = re.compile(r"(?:([a-zA-Z][a-zA-Z0-9+.\-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S)
_ILLEGAL = re.compile(r"[\x00-\x20\x7f\"<>\\^`{|}]|%(?![0-9a-fA-F]{2})")
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?"
_HOSTNAME = re.compile(rf"(?:{_LABEL}\.)*[a-zA-Z](?:[a-zA-Z0-9\-]*[a-zA-Z0-9])?\.?")
_IPV4 = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}")
_SERVER = re.compile(r"(?:([^@]*)@)?(\[[0-9a-fA-F:.]+\]|[^:\[\]]*)(?::(\d*))?")


class _Uri:
    __slots__ = ("scheme", "host", "port", "path", "query", "fragment")

    def __init__(self) -> None:
        self.scheme: str | None = None
        self.host: str | None = None
        self.port = -1
        self.path: str | None = None
        self.query: str | None = None
        self.fragment: str | None = None


def _decode(s: str | None) -> str | None:
    if s is None or "%" not in s:
        return s
    return unquote(s, errors="replace")


@lru_cache(maxsize=1024)
def parse_uri(text: str) -> _Uri:
    """java.net.URI's components of ``text``; FunctionError if it is not a URI."""
    if _ILLEGAL.search(text) or text.count("#") > 1:
        raise FunctionError(f"URL input has invalid syntax: {text}")
    m = _URI.fullmatch(text)
    if m is None:  # pragma: no cover - the pattern matches any string
        raise FunctionError(f"URL input has invalid syntax: {text}")
    scheme, authority, path, query, fragment = m.groups()
    uri = _Uri()
    uri.scheme = scheme
    uri.fragment = _decode(fragment)
    if scheme is not None and authority is None and not path.startswith("/"):
        if path == "" and query is None:
            raise FunctionError(f"URL input has invalid syntax: {text}")
        return uri  # opaque, e.g. mailto:someone@example.com: no host, path or query
    if scheme is not None and authority == "" and not path:
        raise FunctionError(f"URL input has invalid syntax: {text}")
    uri.path = _decode(path)
    uri.query = _decode(query)
    if authority:
        server = _SERVER.fullmatch(authority)
        if server is not None:
            host, port = server.group(2), server.group(3)
            if host and (host.startswith("[") or _IPV4.fullmatch(host) or _HOSTNAME.fullmatch(host)):
                uri.host = host
                if port:
                    uri.port = int(port)
    return uri


def _protocol(url: str) -> Any:
    return parse_uri(url).scheme


def _host(url: str) -> Any:
    return parse_uri(url).host


def _port(url: str) -> Any:
    port = parse_uri(url).port
    return None if port == -1 else port


def _path(url: str) -> Any:
    return parse_uri(url).path


def _query(url: str) -> Any:
    return parse_uri(url).query


def _fragment(url: str) -> Any:
    return parse_uri(url).fragment


def _parameter(url: str, name: str) -> Any:
    query = parse_uri(url).query
    if query is None:
        return None
    for param in query.split("&"):
        kv = param.split("=", 1)
        if kv[0] == name:
            return "" if len(kv) == 1 else kv[1]
    return None


_FORM_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def _encode_param(s: str) -> str:
    """URLEncoder.encode(s, UTF-8): letters, digits and . - * _ kept, space as '+', the rest %XX."""
    out = []
    for b in s.encode("utf-8", "replace"):
        if b in _FORM_SAFE:
            out.append(chr(b))
        elif b == 0x20:
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


_BAD_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")


def _decode_param(s: str) -> str:
    """URLDecoder.decode(s, UTF-8): '+' is a space, %XX sequences are UTF-8 bytes."""
    if _BAD_ESCAPE.search(s):
        raise FunctionError(f"URLDecoder: Illegal hex characters in escape (%) pattern: {s}")
    s = s.replace("+", " ")
    if "%" not in s:
        return s
    # each run of %XX bytes is read as new String(bytes, UTF_8) reads it (utf16.from_utf8)
    return utf16.from_utf8(unquote_to_bytes(s)) if s.isascii() else unquote(s, errors="ksqlpy.java_utf8")


def register(registry: FunctionRegistry) -> None:
    add = registrar(registry, CATEGORY)

    add(
        "URL_DECODE_PARAM",
        "Decodes a form-encoded (application/x-www-form-urlencoded) value.",
        [("STRING", "STRING", _decode_param)],
    )
    add(
        "URL_ENCODE_PARAM",
        "Form-encodes (application/x-www-form-urlencoded) a value.",
        [("STRING", "STRING", _encode_param)],
    )
    add("URL_EXTRACT_FRAGMENT", "The decoded fragment of a URL.", [("STRING", "STRING", _fragment)])
    add("URL_EXTRACT_HOST", "The host of a URL.", [("STRING", "STRING", _host)])
    add(
        "URL_EXTRACT_PARAMETER",
        "The decoded value of the first query parameter with a name ('' if it has no value).",
        [("STRING, STRING", "STRING", _parameter)],
    )
    add("URL_EXTRACT_PATH", "The decoded path of a URL.", [("STRING", "STRING", _path)])
    add("URL_EXTRACT_PORT", "The port of a URL; NULL if none is given.", [("STRING", "INT", _port)])
    add("URL_EXTRACT_PROTOCOL", "The protocol (scheme) of a URL.", [("STRING", "STRING", _protocol)])
    add("URL_EXTRACT_QUERY", "The decoded query of a URL.", [("STRING", "STRING", _query)])
