"""The JAAS login configuration ksqlDB's BASIC authentication reads its users through.

ksqlDB's security page sets ``authentication.method=BASIC`` and ``authentication.realm=<section>``, and points
the JVM at a JAAS file (``KSQL_OPTS=-Djava.security.auth.login.config=/path/jaas.conf``) whose section names
Jetty's ``PropertyFileLoginModule`` and its users file::

    KsqlServer-Props {
      org.eclipse.jetty.jaas.spi.PropertyFileLoginModule required
      file="/path/to/password-file"
      debug="false";
    };

``users_file`` finds that file for the realm (from memory of ksqlDB's JaasAuthProvider, which logs in through
the realm's LoginContext, and of JAAS's ConfigFile syntax: sections ``Name { Class Flag key=value ...; };``,
``//`` and ``/* */`` comments, quoted or bare values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ksqlpy.server.config import LOGIN_CONFIG, ConfigError

_TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|"((?:[^"\\]|\\.)*)"|([{};=])|([^\s{};="]+)', re.DOTALL)
_FLAGS = ("required", "requisite", "sufficient", "optional")


@dataclass
class LoginModule:
    class_name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text): kind 'q' a quoted value, 'p' punctuation, 'w' a word."""
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ConfigError(f"{LOGIN_CONFIG}: cannot read the JAAS file at {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group(1) is not None:
            out.append(("q", re.sub(r"\\(.)", r"\1", m.group(1))))
        elif m.group(2) is not None:
            out.append(("p", m.group(2)))
        elif m.group(3) is not None:
            out.append(("w", m.group(3)))
    return out


def parse_jaas(text: str) -> dict[str, list[LoginModule]]:
    """Each section's login modules, in order."""
    toks = _tokens(text)
    sections: dict[str, list[LoginModule]] = {}
    i = 0

    def need(kind: str, value: str | None = None) -> str:
        nonlocal i
        if i >= len(toks) or toks[i][0] != kind or (value is not None and toks[i][1] != value):
            got = toks[i][1] if i < len(toks) else "the end"
            raise ConfigError(f"{LOGIN_CONFIG}: expected {value or 'a name'} in the JAAS file, got {got!r}")
        i += 1
        return toks[i - 1][1]

    while i < len(toks):
        name = need("w")
        need("p", "{")
        modules: list[LoginModule] = []
        while i < len(toks) and toks[i] != ("p", "}"):
            class_name = need("w")
            flag = need("w")
            if flag.lower() not in _FLAGS:
                raise ConfigError(f"{LOGIN_CONFIG}: {class_name} has no control flag ({', '.join(_FLAGS)}), got {flag!r}")
            module = LoginModule(class_name, flag.lower())
            while i < len(toks) and toks[i] != ("p", ";"):
                key = need("w")
                need("p", "=")
                if i < len(toks) and toks[i][0] in ("q", "w"):
                    module.options[key] = toks[i][1]
                    i += 1
                else:
                    got = toks[i][1] if i < len(toks) else "the end"
                    raise ConfigError(f"{LOGIN_CONFIG}: expected a value for {key} in the JAAS file, got {got!r}")
            need("p", ";")
            modules.append(module)
        need("p", "}")
        need("p", ";")
        sections[name] = modules
    return sections


def users_file(login_config: str, realm: str) -> str:
    """The users file of the realm's ``PropertyFileLoginModule`` in the JAAS file ``login_config``."""
    try:
        with open(login_config, encoding="utf-8") as f:
            sections = parse_jaas(f.read())
    except OSError as e:
        raise ConfigError(f"Cannot read {LOGIN_CONFIG} {login_config}: {e.strerror or e}") from e
    modules = sections.get(realm)
    if not modules:
        raise ConfigError(f"No LoginModules configured for {realm} (authentication.realm) in {login_config}")
    for module in modules:
        if module.class_name.endswith(".PropertyFileLoginModule") and module.options.get("file"):
            return module.options["file"]
    names = ", ".join(m.class_name for m in modules)
    raise ConfigError(f"The {realm} section of {login_config} names no PropertyFileLoginModule with a file "
                      f"(got {names}): ksqlpy reads users from a properties file only")
