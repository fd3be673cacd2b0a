"""BASIC authentication configured as ksqlDB's security page does it: ``authentication.method=BASIC``, the realm
naming a section of a JAAS file, and the JVM pointed at that file through ``KSQL_OPTS`` - the section's
``PropertyFileLoginModule`` names the users file. ``authentication.users.file``, when set, still wins."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from ksqlpy.server.config import ConfigError, build_config
from ksqlpy.server.jaas import LoginModule, parse_jaas, users_file
from ksqlpy.testing.server_process import ServerProcess

JAAS = """// the page's example, with a second realm and comments
KsqlServer-Props {
  org.eclipse.jetty.jaas.spi.PropertyFileLoginModule required
  file="{users}"
  debug="false";
};
/* another server's section */
Other { com.example.LdapLoginModule sufficient url=ldap://x; org.eclipse.jetty.jaas.spi.PropertyFileLoginModule
  optional file="/elsewhere" ; };
"""


def test_sections_modules_and_options() -> None:
    sections = parse_jaas(JAAS.replace("{users}", "/a b/users.props"))
    assert sections == {
        "KsqlServer-Props": [LoginModule("org.eclipse.jetty.jaas.spi.PropertyFileLoginModule", "required",
                                         {"file": "/a b/users.props", "debug": "false"})],
        "Other": [LoginModule("com.example.LdapLoginModule", "sufficient", {"url": "ldap://x"}),
                  LoginModule("org.eclipse.jetty.jaas.spi.PropertyFileLoginModule", "optional",
                              {"file": "/elsewhere"})]}


@pytest.mark.parametrize(("text", "message"), [
    ("R { x.PropertyFileLoginModule required file=\"/u\" }; ", "expected a name in the JAAS file, got '}'"),
    ("R { x.PropertyFileLoginModule mandatory; };", "has no control flag"),
    ("R { x.PropertyFileLoginModule required file=; };", "expected a value for file in the JAAS file, got ';'"),
])
def test_unreadable_files_say_where(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_jaas(text)


def test_the_realm_picks_the_section(tmp_path: Path) -> None:
    conf = tmp_path / "jaas.conf"
    conf.write_text(JAAS.replace("{users}", "/u/users"))
    assert users_file(str(conf), "KsqlServer-Props") == "/u/users"
    assert users_file(str(conf), "Other") == "/elsewhere"  # the first module with a users file
    with pytest.raises(ConfigError, match="No LoginModules configured for KsqlServer "):
        users_file(str(conf), "KsqlServer")
    conf.write_text("R { com.example.LdapLoginModule required; };")
    with pytest.raises(ConfigError, match="names no PropertyFileLoginModule with a file"):
        users_file(str(conf), "R")
    with pytest.raises(ConfigError, match="Cannot read java.security.auth.login.config"):
        users_file(str(tmp_path / "none.conf"), "R")


def test_basic_needs_a_users_file_or_a_login_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KSQL_OPTS", raising=False)
    with pytest.raises(ConfigError, match="authentication.users.file .* or a JAAS file"):
        build_config(data_dir=str(tmp_path), overrides={"authentication.method": "BASIC"})
    monkeypatch.setenv("KSQL_OPTS", f"-Djava.security.auth.login.config={tmp_path}/jaas.conf")
    config = build_config(data_dir=str(tmp_path), overrides={"authentication.method": "BASIC"})
    assert config.get("java.security.auth.login.config") == f"{tmp_path}/jaas.conf"


def test_a_server_configured_as_the_page_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    users = tmp_path / "password-file"
    users.write_text("fred: letmein,admin\nbarney: changeme,user,developer\n")
    conf = tmp_path / "jaas_config.file"
    conf.write_text(JAAS.replace("{users}", str(users)))
    monkeypatch.setenv("KSQL_OPTS", f"-Djava.security.auth.login.config={conf}")
    server = ServerProcess(str(tmp_path / "data"), {
        "authentication.method": "BASIC", "authentication.roles": "admin,developer,user,ksq-user",
        "authentication.realm": "KsqlServer-Props"}, extra_args=[])
    server.wait_ready = lambda *a, **k: None  # type: ignore[method-assign]  # /info needs credentials now
    server.start()
    try:
        end = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(server.url + "/info", auth=("fred", "letmein"), timeout=5)
                if r.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < end, server.log_tail()
            time.sleep(0.2)
        assert httpx.get(server.url + "/info", auth=("barney", "changeme"), timeout=5).status_code == 200
        denied = httpx.get(server.url + "/info", auth=("fred", "wrong"), timeout=5)
        assert denied.status_code == 401
        assert denied.headers["www-authenticate"] == 'Basic realm="KsqlServer-Props"'
    finally:
        server.stop()
