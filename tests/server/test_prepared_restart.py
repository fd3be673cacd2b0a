"""A restarted server process gives back the sources and queries it accepted, not what its registry and
config would make of the statements now: the command topic holds the prepared statements (registry columns,
formats filled in, sink topics, variables substituted)."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
import pytest
from server_helpers import ksql

from ksqlpy.testing.server_process import ServerProcess

V1 = {"type": "record", "name": "Reading", "fields": [{"name": "A", "type": "int"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "B", "type": ["null", "string"], "default": None}]}


def register(data_dir: str, schema: dict[str, Any]) -> None:
    """A new version of ``in-value`` in the server's embedded registry, while it is stopped."""
    from ksqlpy.log.embedded import EmbeddedLog
    from ksqlpy.schema_registry import open_registry

    with EmbeddedLog(os.path.join(data_dir, "log")) as log:
        open_registry({}, log).register("in-value", json.dumps(schema))


def describe(c: httpx.Client, name: str) -> dict[str, Any]:
    return ksql(c, f"DESCRIBE {name} EXTENDED;")[0]["sourceDescription"]  # type: ignore[no-any-return]


@pytest.mark.slow
def test_restart_after_the_subject_and_the_defaults_changed(tmp_path: Any) -> None:
    data_dir = str(tmp_path / "data")
    os.makedirs(data_dir)
    register(data_dir, V1)
    with ServerProcess(data_dir) as first, httpx.Client(base_url=first.url, timeout=30) as c:
        ksql(c, "CREATE STREAM S (ID INT KEY) WITH (kafka_topic='in', value_format='AVRO', partitions=1);")
        ksql(c, "CREATE STREAM S2 AS SELECT * FROM S WHERE ID > ${low};", sessionVariables={"low": 3})
        before = {n: describe(c, n) for n in ("S", "S2")}
    register(data_dir, V2)
    changed = {"ksql.persistence.default.format.key": "JSON", "ksql.output.topic.name.prefix": "p_"}
    with ServerProcess(data_dir, changed) as second, httpx.Client(base_url=second.url, timeout=30) as c:
        for name, was in before.items():
            now = describe(c, name)
            assert [f["name"] for f in now["fields"]] == ["ID", "A"], name
            for part in ("fields", "keyFormat", "valueFormat", "topic", "statement"):
                assert now[part] == was[part], (name, part)
        assert "WHERE (S.ID > 3)" in before["S2"]["statement"]
        statuses = c.get("/status").json()["commandStatuses"]
        assert statuses["stream/S2/create"] == "SUCCESS"
