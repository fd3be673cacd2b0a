"""``ksqlpy migrations`` used as ksqlDB's migrations page shows ``ksql-migrations``: a new project, the
metadata, migration files with variables, apply --next / --all, info, validate, a failing migration
recorded as ERROR and applied again once fixed, destroy-metadata - against a real server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.timeout(300)


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ksqlpy", "migrations", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_a_project_applied_step_by_step(docs_server: ServerProcess, tmp_path: Path) -> None:
    done = _run(tmp_path, "new-project", "proj", docs_server.url)
    assert done.returncode == 0, done.stderr
    proj = tmp_path / "proj"
    config = (proj / "ksql-migrations.properties").read_text()
    assert f"ksql.server.url={docs_server.url}" in config
    (proj / "ksql-migrations.properties").write_text(
        config + "ksql.migrations.stream.name=MIG_T_EVENTS\nksql.migrations.table.name=MIG_T_VERSIONS\n")
    assert "initialize-metadata" in _run(proj, "info").stderr  # nothing on the server yet
    assert _run(proj, "initialize-metadata").returncode == 0
    assert _run(proj, "create", "add users").stdout.strip().endswith("V000001__add_users.sql")
    assert _run(proj, "create", "-v", "3", "add orders").returncode == 0
    (proj / "migrations" / "V000001__add_users.sql").write_text(
        "-- users\nCREATE STREAM mt_users (id STRING KEY, name STRING)\n"
        "  WITH (kafka_topic='mt_users', value_format='JSON', partitions=1);\n"
        "INSERT INTO mt_users (id, name) VALUES ('u1', '${who}');\n")
    (proj / "migrations" / "V000003__add_orders.sql").write_text(
        "CREATE STREAM mt_orders (id INT KEY, user_id STRING) WITH (kafka_topic='mt_orders', "
        "value_format='JSON', partitions=1);\nCREATE STREAM mt_broken AS SELECT nope FROM mt_orders;\n")
    info = _run(proj, "info").stdout
    assert "Current migration version: <none>" in info and info.count("PENDING") == 2

    assert _run(proj, "apply", "--next", "--dry-run").returncode == 0
    assert "Current migration version: <none>" in _run(proj, "info").stdout
    applied = _run(proj, "apply", "--next", "-d", "who=ada")
    assert applied.returncode == 0 and "Successfully migrated" in applied.stdout, applied.stderr
    rows = httpx.post(docs_server.url + "/query-stream", json={"sql": "SELECT * FROM mt_users;"}).text
    assert '["u1","ada"]' in rows
    info = _run(proj, "info").stdout
    assert "Current migration version: 1" in info and " MIGRATED " in info and info.count("PENDING") == 1

    failed = _run(proj, "apply", "--all")
    assert failed.returncode == 1 and "Failed to apply migration version 3" in failed.stderr
    info = _run(proj, "info").stdout
    assert "Current migration version: 3" in info and " ERROR " in info and "NOPE" in info
    (proj / "migrations" / "V000003__add_orders.sql").write_text(
        "CREATE STREAM mt_orders (id INT KEY, user_id STRING) WITH (kafka_topic='mt_orders', "
        "value_format='JSON', partitions=1);\n")
    again = _run(proj, "apply", "--all")
    assert again.returncode == 0, again.stderr
    info = _run(proj, "info").stdout
    assert "Current migration version: 3" in info and info.count(" MIGRATED ") == 2
    assert _run(proj, "validate").returncode == 0
    assert "No migrations to apply" in _run(proj, "apply", "--all").stdout

    (proj / "migrations" / "V000001__add_users.sql").write_text("-- edited after it ran\n")
    changed = _run(proj, "validate")
    assert changed.returncode == 1 and "Migration version 1: the file changed since it was applied" in changed.stderr
    assert _run(proj, "apply", "--all").returncode == 1  # apply validates first

    assert _run(proj, "destroy-metadata").returncode == 0
    streams = httpx.post(docs_server.url + "/ksql", json={"ksql": "SHOW STREAMS; SHOW TABLES;"}).json()
    names = {s["name"] for e in streams for s in e.get("streams", e.get("tables", []))}
    assert "MIG_T_EVENTS" not in names and "MIG_T_VERSIONS" not in names and "MT_USERS" in names


def test_refusals(tmp_path: Path) -> None:
    assert "config file not found" in _run(tmp_path, "info").stderr
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x").write_text("")
    assert "not empty" in _run(tmp_path, "new-project", "p", "http://127.0.0.1:1").stderr
    assert _run(tmp_path, "new-project", "q", "http://127.0.0.1:1").returncode == 0
    q = tmp_path / "q"
    assert _run(q, "create", "one").returncode == 0
    assert "already exists" in _run(q, "create", "-v", "1", "again").stderr
    assert "Could not reach the server" in _run(q, "apply", "--all").stderr
