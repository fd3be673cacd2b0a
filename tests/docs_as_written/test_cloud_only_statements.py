"""Statements ksqlDB's grammar has but a self-managed server does not run: parsed, then refused with a
message that says where the setting goes (not a syntax error)."""

from __future__ import annotations

import httpx

from ksqlpy.testing.server_process import ServerProcess


def test_alter_system_parses_and_is_refused(docs_server: ServerProcess) -> None:
    for sql in ("ALTER SYSTEM 'ksql.streams.num.stream.threads'='2';",
                "alter system 'auto.offset.reset' = 'earliest';"):
        r = httpx.post(docs_server.url + "/ksql", json={"ksql": sql}, timeout=30)
        assert r.status_code == 400 and r.json()["error_code"] == 40001, r.text
        assert r.json()["message"].startswith("ALTER SYSTEM is only available in Confluent Cloud. Set '")
    r = httpx.post(docs_server.url + "/ksql", json={"ksql": "ALTER SYSTEM 'x';"}, timeout=30)
    assert r.status_code == 400 and "Syntax Error" in r.json()["message"]
    r = httpx.post(docs_server.url + "/ksql", json={"ksql": "ALTER VIEW v ADD c INT;"}, timeout=30)
    assert "Syntax error at or near 'VIEW' at line 1:7" in r.json()["message"]  # no ALTER form fits
