"""Fuzzing the REST API: schemathesis from the server's OpenAPI schema (at least ``FUZZ_REQUESTS``, default
10,000, requests per run), and generated statements (the grammar of ``sql_strategies``) posted to /ksql and
/query-stream over HTTP/1.1 and HTTP/2. Whatever is sent: no 5xx, and the server is still up at the end.

Exclusions, by design: POST /ksql/terminate ends the cluster, and a ``commandSequenceNumber`` the server never
reaches is 503/50301 after the command timeout, as ksqlDB answers it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sql_strategies import SETUP, any_statement, selects  # noqa: E402

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402

pytestmark = pytest.mark.slow

REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "10000"))
STATEMENTS = int(os.environ.get("FUZZ_HTTP_STATEMENTS", "3000"))
_sent = {"schemathesis": 0, "statements": 0, "raw": 0}


@pytest.fixture(scope="module")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("fuzz_http")), {
        "ksql.server.command.response.timeout.ms": "20", "ksql.max.push.queries": "4",
        "ksql.logging.processing.stream.auto.create": "false"})
    proc.start()
    with httpx.Client(base_url=proc.url, timeout=30) as c:
        for sql in SETUP:
            assert c.post("/ksql", json={"ksql": sql}).status_code == 200
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def http_session() -> Iterator[requests.Session]:
    """One keep-alive session for every schemathesis request (a connection per request costs more than the
    request)."""
    with requests.Session() as s:
        yield s


@pytest.fixture(scope="module")
def clients(api_server: ServerProcess) -> Iterator[dict[bool, httpx.Client]]:
    """An HTTP/1.1 (False) and an HTTP/2 (True) client, kept open (they reconnect where the server closed)."""
    with httpx.Client(base_url=api_server.url, timeout=30) as h1, \
            httpx.Client(base_url=api_server.url, http1=False, http2=True, timeout=30) as h2:
        yield {False: h1, True: h2}


@pytest.fixture(scope="module")
def api_schema(api_server: ServerProcess) -> Any:
    return schemathesis.openapi.from_url(api_server.url + "/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema").exclude(path="/ksql/terminate")


def _ok(status: int, text: str) -> bool:
    return status < 500 or (status == 503 and '"error_code":50301' in text)


@schema.parametrize()
@settings(max_examples=max(1, REQUESTS // 7), deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True, database=None, phases=[Phase.explicit, Phase.generate])
def test_schemathesis_no_server_errors(case: Any, http_session: requests.Session) -> None:
    response = case.call(session=http_session, timeout=15)
    _sent["schemathesis"] += 1
    assert _ok(response.status_code, response.text), \
        f"{case.method} {case.path} -> {response.status_code}: {response.text[:500]}"


@given(st.lists(any_statement, min_size=10, max_size=10), st.booleans(), st.data())
@settings(max_examples=max(1, STATEMENTS // 10), deadline=None, suppress_health_check=list(HealthCheck),
          database=None, phases=[Phase.generate])
def test_generated_statements_over_http(clients: dict[bool, httpx.Client], batch: list[str], http2: bool,
                                        data: Any) -> None:
    c = clients[http2]
    for sql in batch:
        r = c.post("/ksql", json={"ksql": sql})
        _sent["statements"] += 1
        assert _ok(r.status_code, r.text), f"/ksql {sql[:1000]!r} -> {r.status_code}: {r.text[:500]}"
    select = data.draw(selects()).rstrip(";") + " LIMIT 1;"
    # a push query may wait for rows: its status and first part are what is checked, then it is closed
    with c.stream("POST", "/query-stream", json={"sql": select, "properties": {"auto.offset.reset": "earliest"}},
                  timeout=30) as r:
        first = next(r.iter_bytes(), b"").decode("utf-8", "replace")
    _sent["statements"] += 1
    assert _ok(r.status_code, first), f"/query-stream {select[:1000]!r} -> {r.status_code}: {first[:500]}"


POSTS = ["/ksql", "/query", "/query-stream", "/close-query", "/inserts-stream", "/heartbeat", "/lag"]
CONTENT_TYPES = ["application/json", "application/vnd.ksql.v1+json", "application/vnd.ksqlapi.delimited.v1",
                 "text/plain", "application/octet-stream", ""]
RAW = int(os.environ.get("FUZZ_HTTP_RAW", "3000"))


@given(st.sampled_from(POSTS), st.sampled_from(CONTENT_TYPES),
       st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode),
                 st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"sql"', b'"ksql"', b":", b",", b"\n",
                                           b'"target"', b"null", b"1e999", b'"\\ud800"', b"\xff"]),
                          max_size=40).map(b"".join)),
       st.booleans())
@settings(max_examples=max(1, RAW), deadline=None, suppress_health_check=list(HealthCheck), database=None,
          phases=[Phase.generate])
def test_random_bodies(clients: dict[bool, httpx.Client], path: str, content_type: str, body: bytes,
                       http2: bool) -> None:
    """Bytes that are not the body an endpoint expects (not JSON, not UTF-8, half a document, any media type)."""
    headers = {"Content-Type": content_type} if content_type else {}
    with clients[http2].stream("POST", path, content=body, headers=headers) as r:
        first = next(r.iter_bytes(), b"").decode("utf-8", "replace")
    _sent["raw"] += 1
    assert _ok(r.status_code, first), f"POST {path} {content_type} {body[:300]!r} -> {r.status_code}: {first[:500]}"


def test_the_budget_was_sent_and_the_server_is_up(api_server: ServerProcess) -> None:
    print(f"\nfuzzed over HTTP: {_sent}")
    if "FUZZ_REQUESTS" not in os.environ:
        assert _sent["schemathesis"] >= 10_000 and _sent["statements"] >= STATEMENTS
    assert httpx.get(api_server.url + "/info", timeout=10).status_code == 200
