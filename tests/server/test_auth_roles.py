"""Basic authentication's role check (``authentication.roles``, the roles after the password in the users file)
and its 401 without ``WWW-Authenticate`` for a browser script (``X-Requested-With: XMLHttpRequest``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from starlette.testclient import TestClient  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.auth import allowed_roles, load_user_roles  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402

USERS = ("# user: password[,role...]\nfred: letmein,ksql-user,admin\ntim: pw2\nann: MD5:0d107d09f5bbe40cade3de5c71e9e9b7,"
         "viewer\nbob: pw3 , ksql-user \n")
UNAUTHORIZED = {"@type": "generic_error", "error_code": 40100, "message": "Unauthorized"}


def test_users_file_roles(tmp_path: Path) -> None:
    users_file = tmp_path / "users.properties"
    users_file.write_text(USERS)
    users, roles = load_user_roles(str(users_file))
    assert users == {"fred": "letmein", "tim": "pw2", "ann": "MD5:0d107d09f5bbe40cade3de5c71e9e9b7", "bob": "pw3"}
    assert roles == {"fred": {"ksql-user", "admin"}, "tim": set(), "ann": {"viewer"}, "bob": {"ksql-user"}}
    assert allowed_roles(None) == {"*"} and allowed_roles(" a, b ,") == {"a", "b"} and allowed_roles(["x"]) == {"x"}


def _client(tmp_path: Path, **props: str) -> TestClient:
    users_file = tmp_path / "users.properties"
    users_file.write_text(USERS)
    config = build_config(data_dir=str(tmp_path / "data"), overrides={
        "ksql.logging.processing.stream.auto.create": "false", "authentication.method": "BASIC",
        "authentication.users.file": str(users_file), **props})
    return TestClient(create_app(config))


@pytest.fixture(scope="module")
def roles_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with _client(tmp_path_factory.mktemp("roles"), **{"authentication.roles": "ksql-user,tim"}) as c:
        end = time.monotonic() + 30
        while c.get("/info", auth=("fred", "letmein")).status_code != 200 and time.monotonic() < end:
            time.sleep(0.05)
        yield c


@pytest.mark.parametrize("user, password, ok", [
    ("fred", "letmein", True),    # has ksql-user
    ("bob", "pw3", True),         # blanks around the role trimmed
    ("tim", "pw2", True),         # no role, but the user's own name is one of its principals
    ("ann", "letmein", False),    # right password (MD5), only 'viewer'
    ("fred", "nope", False),      # wrong password
    ("nobody", "x", False),
])
def test_allowed_roles(roles_client: Any, user: str, password: str, ok: bool) -> None:
    for method, path in (("GET", "/info"), ("POST", "/ksql")):
        r = roles_client.request(method, path, auth=(user, password),
                                 json={"ksql": "SHOW STREAMS;"} if method == "POST" else None)
        if ok:
            assert r.status_code == 200, (user, path, r.text)
        else:
            assert r.status_code == 401 and r.json() == UNAUTHORIZED, (user, path)
            assert r.headers["www-authenticate"] == 'Basic realm="KsqlServer"'


def test_xhr_gets_no_login_challenge(roles_client: Any) -> None:
    xhr = roles_client.get("/info", headers={"X-Requested-With": "XMLHttpRequest"})
    assert xhr.status_code == 401 and xhr.json() == UNAUTHORIZED and "www-authenticate" not in xhr.headers
    other = roles_client.get("/info", headers={"X-Requested-With": "fetch"})
    assert other.status_code == 401 and other.headers["www-authenticate"].startswith("Basic realm=")


def test_default_roles_admit_every_user(tmp_path: Path) -> None:
    with _client(tmp_path) as c:
        end = time.monotonic() + 30
        while c.get("/info", auth=("tim", "pw2")).status_code != 200 and time.monotonic() < end:
            time.sleep(0.05)
        for user, password in (("fred", "letmein"), ("tim", "pw2"), ("ann", "letmein")):
            assert c.get("/info", auth=(user, password)).status_code == 200
        assert c.get("/info", auth=("ann", "no")).status_code == 401


@pytest.mark.parametrize("auth", [None, ("fred", "nope"), ("nobody", "x"), ("ann", "letmein"), ("fred", "letmein")])
@pytest.mark.parametrize("method, path, body", [
    ("GET", "/info", None), ("POST", "/ksql", {"ksql": "SHOW STREAMS;"}),
    ("POST", "/query-stream", {"sql": "SELECT * FROM S EMIT CHANGES;"}), ("GET", "/healthcheck", None),
])
def test_server_state_comes_before_authentication(tmp_path: Path, auth: Any, method: str, path: str,
                                                  body: Any) -> None:
    """ksqlDB's ServerVerticle.buildRouter adds the ServerStateHandler before AuthHandlers: a server that is
    not ready answers 503 whatever the credentials - none, a wrong password, an unknown user, a user without
    the role, a right one; /chc/* before both."""
    c = _client(tmp_path, **{"authentication.roles": "ksql-user"})  # no lifespan: the server never initializes
    r = c.request(method, path, json=body, auth=auth)
    assert r.status_code == 503, r.text
    assert r.json()["error_code"] == 50302 and r.json()["message"].startswith("KSQL is not yet ready")
    assert c.get("/chc/live").status_code == 200
