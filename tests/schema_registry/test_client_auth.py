"""The HTTP registry client's credentials and configured headers (ksql.schema.registry.*), on the wire."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ksqlpy.schema_registry import HttpSchemaRegistry, open_registry
from ksqlpy.schema_registry.client_auth import RegistryAuthError, client_config, split_user_info


class _Recorder(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        type(self).seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
        data = json.dumps(["s-value"]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def recorder() -> Iterator[tuple[int, list[dict[str, str]]]]:
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], _Recorder.seen
    finally:
        server.shutdown()
        server.server_close()


def _basic(info: str) -> str:
    return "Basic " + base64.b64encode(info.encode()).decode()


def test_user_info_in_the_url_is_sent_as_basic_auth_not_in_the_url(recorder) -> None:
    port, seen = recorder
    reg = open_registry({"ksql.schema.registry.url": f"http://fred:s%40cret@127.0.0.1:{port}"})
    assert isinstance(reg, HttpSchemaRegistry) and reg.url == f"http://127.0.0.1:{port}"
    assert reg.subjects() == ["s-value"]
    assert seen[0]["authorization"] == _basic("fred:s@cret") and seen[0]["path"] == "/subjects"


def test_user_info_source_and_request_headers(recorder) -> None:
    port, seen = recorder
    reg = open_registry({"ksql.schema.registry.url": f"http://127.0.0.1:{port}",
                         "ksql.schema.registry.basic.auth.credentials.source": "USER_INFO",
                         "ksql.schema.registry.basic.auth.user.info": "api-key:api-secret",
                         "ksql.schema.registry.request.header.X-Tenant": "blue"})
    reg.subjects(include_deleted=True)
    assert seen[0]["authorization"] == _basic("api-key:api-secret") and seen[0]["x-tenant"] == "blue"
    assert seen[0]["path"] == "/subjects?deleted=true"


def test_a_static_bearer_token(recorder) -> None:
    port, seen = recorder
    reg = open_registry({"ksql.schema.registry.url": f"http://u:p@127.0.0.1:{port}",
                         "ksql.schema.registry.bearer.auth.credentials.source": "STATIC_TOKEN",
                         "ksql.schema.registry.bearer.auth.token": "tok"})
    reg.subjects()
    assert seen[0]["authorization"] == "Bearer tok"


def test_no_credentials_no_authorization(recorder) -> None:
    port, seen = recorder
    open_registry({"ksql.schema.registry.url": f"http://127.0.0.1:{port}"}).subjects()
    assert "authorization" not in seen[0]


def test_an_unknown_source_is_refused_at_start() -> None:
    with pytest.raises(RegistryAuthError, match="Unknown basic auth credentials source: TOKEN"):
        open_registry({"ksql.schema.registry.url": "http://127.0.0.1:1",
                       "ksql.schema.registry.basic.auth.credentials.source": "token"})


def test_url_user_info_split_keeps_the_rest() -> None:
    assert split_user_info("https://a:b@[::1]:8081/path") == ("https://[::1]:8081/path", "a:b")
    assert split_user_info("http://host:8081") == ("http://host:8081", None)
    assert client_config({"ksql.schema.registry.url": "u", "ksql.other": 1}) == {"url": "u"}


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_list_of_urls_fails_over_to_one_that_answers(recorder) -> None:
    port, seen = recorder
    dead = _closed_port()
    reg = open_registry({"ksql.schema.registry.url": f"http://127.0.0.1:{dead}, http://u:p@127.0.0.1:{port}"})
    assert reg.subjects() == ["s-value"] and reg.url == f"http://127.0.0.1:{port}"  # the answering one is kept
    assert reg.subjects() == ["s-value"] and len(seen) == 2
    assert seen[0]["authorization"] == _basic("u:p")


def test_no_url_that_answers_fails_naming_the_last_tried() -> None:
    from ksqlpy.schema_registry import SchemaRegistryError

    a, b = _closed_port(), _closed_port()
    reg = HttpSchemaRegistry(f"http://127.0.0.1:{a},http://127.0.0.1:{b}", timeout_s=2)
    with pytest.raises(SchemaRegistryError, match=f"Schema registry http://127.0.0.1:{b} unreachable"):
        reg.subjects()
