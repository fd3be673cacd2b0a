"""The migrations metadata a server keeps, as ``ksql-migrations`` defines it: a stream of migration events
and a table of the latest event per version key (a key per version, and ``CURRENT`` for the version the
server is at), read with pull queries. Everything goes through the server's REST API."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from ksqlpy.migrations.project import (
    REPLICAS,
    SERVER_URL,
    STREAM_NAME,
    STREAM_TOPIC,
    TABLE_NAME,
    TABLE_TOPIC,
    MigrationsError,
)

CURRENT = "CURRENT"
NONE = "<none>"
COLUMNS = ("VERSION", "NAME", "STATE", "CHECKSUM", "STARTED_ON", "COMPLETED_ON", "PREVIOUS", "ERROR_REASON")


@dataclass
class Applied:
    """The latest event of one version: ``state`` is RUNNING, MIGRATED or ERROR."""

    version: str
    name: str
    state: str
    checksum: str
    started_on: str
    completed_on: str
    previous: str
    error_reason: str


class Server:
    """The REST calls the tool makes, over one HTTP client."""

    def __init__(self, config: dict[str, str]) -> None:
        try:
            import httpx
        except ImportError as e:  # pragma: no cover - httpx comes with the server extra
            raise MigrationsError("ksqlpy migrations needs httpx (pip install 'ksqlpy[server]')") from e
        self.config = config
        self.client = httpx.Client(base_url=config[SERVER_URL].rstrip("/"), timeout=60)
        self.stream = config[STREAM_NAME]
        self.table = config[TABLE_NAME]

    def close(self) -> None:
        self.client.close()

    def ksql(self, sql: str, variables: dict[str, str] | None = None) -> list[dict[str, Any]]:
        body: dict[str, Any] = {"ksql": sql, "streamsProperties": {}}
        if variables:
            body["sessionVariables"] = variables
        try:
            r = self.client.post("/ksql", json=body)
        except Exception as e:
            raise MigrationsError(f"Could not reach the server at {self.config[SERVER_URL]}: {e}") from None
        if r.status_code != 200:
            raise MigrationsError(_message(r))
        return r.json()  # type: ignore[no-any-return]

    def pull(self, sql: str) -> list[list[Any]]:
        r = self.client.post("/query-stream", json={"sql": sql, "properties": {}},
                             headers={"Accept": "application/json"})
        if r.status_code != 200:
            raise MigrationsError(_message(r))
        body = r.json()
        errors = [x for x in body[1:] if isinstance(x, dict)]
        if errors:
            raise MigrationsError(str(errors[0].get("message")))
        return [x for x in body[1:] if isinstance(x, list)]

    def service_id(self) -> str:
        info = self.client.get("/info").json()
        return str(info["KsqlServerInfo"]["ksqlServiceId"])

    # ------------------------------------------------------------------ the metadata
    def initialize(self) -> None:
        sid = self.service_id()
        stream_topic = self.config.get(STREAM_TOPIC) or f"{sid}ksql_{self.stream}"
        table_topic = self.config.get(TABLE_TOPIC) or f"{sid}ksql_{self.table}"
        latest = ",\n".join(f"  LATEST_BY_OFFSET({c}) AS {c}" for c in COLUMNS)
        self.ksql(
            f"CREATE STREAM IF NOT EXISTS {self.stream} (\n  VERSION_KEY STRING KEY,\n"
            + ",\n".join(f"  {c} STRING" for c in COLUMNS)
            + f"\n) WITH (KAFKA_TOPIC='{stream_topic}', VALUE_FORMAT='JSON', PARTITIONS=1, "
              f"REPLICAS={self.config[REPLICAS]});\n"
            f"CREATE TABLE IF NOT EXISTS {self.table} WITH (KAFKA_TOPIC='{table_topic}') AS\n"
            f"SELECT VERSION_KEY,\n{latest}\nFROM {self.stream} GROUP BY VERSION_KEY;")

    def check_initialized(self) -> None:
        names = {s["name"] for e in self.ksql("SHOW STREAMS; SHOW TABLES;") for s in e.get("streams", e.get(
            "tables", []))}
        if self.stream.upper() not in names or self.table.upper() not in names:
            raise MigrationsError("Migrations metadata not found: run 'ksqlpy migrations initialize-metadata' first")

    def applied(self, key: str) -> Applied | None:
        rows = self.pull(f"SELECT {', '.join(COLUMNS)} FROM {self.table} WHERE VERSION_KEY = '{key}';")
        return Applied(*(str(v) if v is not None else "" for v in rows[0])) if rows else None

    def current_version(self) -> str:
        current = self.applied(CURRENT)
        return current.version if current is not None else NONE

    def record(self, event: Applied) -> None:
        """The event under its version's key and under CURRENT, then wait until the table shows it."""
        values = ", ".join(_quote(getattr(event, c.lower())) for c in COLUMNS)
        self.ksql(f"INSERT INTO {self.stream} (VERSION_KEY, {', '.join(COLUMNS)}) VALUES ('{event.version}', {values});\n"
                  f"INSERT INTO {self.stream} (VERSION_KEY, {', '.join(COLUMNS)}) VALUES ('{CURRENT}', {values});")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = self.applied(CURRENT)
            if got is not None and (got.version, got.state) == (event.version, event.state):
                return
            time.sleep(0.1)
        raise MigrationsError(f"The migrations table did not show version {event.version} as {event.state} in time")

    def destroy(self) -> None:
        queries = self.ksql("SHOW QUERIES;")[0]["queries"]
        for q in queries:
            if self.table.upper() in q.get("sinks", []):
                self.ksql(f"TERMINATE {q['id']};")
        for kind, name in (("TABLE", self.table), ("STREAM", self.stream)):
            self.ksql(f"DROP {kind} IF EXISTS {name} DELETE TOPIC;")


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _message(response: Any) -> str:
    try:
        return str(json.loads(response.text).get("message"))
    except (ValueError, AttributeError):
        return f"HTTP {response.status_code}: {response.text[:300]}"
