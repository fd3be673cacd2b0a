"""A table's pull query that plans but fails when it runs - a scan of a session-windowed table, whose store is
read key by key (ksqlDB's KsMaterializedSessionTable: "Table scan unsupported on session tables") - is answered
as ksqlDB's HARouting answers it: the run happens after the response's header, the host's error is only logged,
and with no other host to try the response ends with "Unable to execute pull query: <statement>. Exhausted
standby hosts to try." as a 50000 error element. The same on /query and /query-stream in every JSON format;
key lookups of the same table, and scans of time-windowed tables, are served."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import ksql

from ksqlpy.errors import KsqlStatementError
from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON


def _session_table(client: Any, unique: Callable[[str], str], window: str = "SESSION (30 SECONDS)") -> str:
    src, name = unique("SE"), unique("ST")
    ksql(client, f"CREATE STREAM {src} (U STRING KEY, A INT) WITH (kafka_topic='{src.lower()}', "
                 f"value_format='JSON', partitions=1);"
                 f"CREATE TABLE {name} AS SELECT U, COUNT(*) AS N FROM {src} WINDOW {window} GROUP BY U;")
    ksql(client, f"INSERT INTO {src} (U, A, ROWTIME) VALUES ('a', 1, 100000);"
                 f"INSERT INTO {src} (U, A, ROWTIME) VALUES ('b', 2, 150000);")
    end = time.monotonic() + 15
    while time.monotonic() < end:  # until the table has both keys
        r = client.post("/query", json={"ksql": f"SELECT * FROM {name} WHERE U IN ('a', 'b');"},
                        headers={"Accept": KSQL_V1_JSON})
        if r.status_code == 200 and len(json.loads(r.text)) == 3:
            return name
        time.sleep(0.1)
    raise AssertionError("the table never had its two keys")


def _error_of(name: str, sql: str) -> dict[str, Any]:
    return {"@type": "generic_error", "error_code": 50000,
            "message": f"Unable to execute pull query: {sql}. Exhausted standby hosts to try."}


@pytest.mark.parametrize("where", ["", " WHERE N > 0", " WHERE WINDOWSTART >= 0", " WHERE U > 'a'",
                                   " WHERE U = 'a' OR N > 0"])
def test_a_session_table_scan_fails_after_the_header(client: Any, unique: Callable[[str], str], where: str) -> None:
    name = _session_table(client, unique)
    sql = f"SELECT * FROM {name}{where};"
    r = client.post("/query", json={"ksql": sql}, headers={"Accept": KSQL_V1_JSON})
    assert r.status_code == 200, r.text
    elements = json.loads(r.text)  # still one JSON array
    assert [list(e) for e in elements] == [["header"], ["errorMessage"]]
    assert elements[0]["header"]["schema"] == ("`U` STRING KEY, `WINDOWSTART` BIGINT KEY, `WINDOWEND` BIGINT KEY, "
                                               "`N` BIGINT")
    assert elements[1]["errorMessage"] == _error_of(name, sql)

    r = client.post("/query-stream", json={"sql": sql}, headers={"Accept": JSON})
    assert r.status_code == 200, r.text
    meta, error = json.loads(r.text)
    assert meta["columnNames"] == ["U", "WINDOWSTART", "WINDOWEND", "N"] and error == _error_of(name, sql)

    r = client.post("/query-stream", json={"sql": sql}, headers={"Accept": DELIMITED})
    assert r.status_code == 200, r.text
    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert len(lines) == 2 and "columnNames" in lines[0] and lines[1] == _error_of(name, sql)


def test_a_session_table_key_lookup_is_served(client: Any, unique: Callable[[str], str]) -> None:
    name = _session_table(client, unique)
    for path, body in (("/query", {"ksql": f"SELECT * FROM {name} WHERE U = 'b';"}),
                       ("/query-stream", {"sql": f"SELECT * FROM {name} WHERE U = 'b' AND WINDOWSTART >= 0;"})):
        r = client.post(path, json=body, headers={"Accept": KSQL_V1_JSON if path == "/query" else JSON})
        assert r.status_code == 200, r.text
        rows = [e["row"]["columns"] if path == "/query" else e for e in json.loads(r.text)[1:]]
        assert rows == [["b", 150000, 150000, 1]]


@pytest.mark.parametrize("window", ["TUMBLING (SIZE 60 SECONDS)", "HOPPING (SIZE 60 SECONDS, ADVANCE BY 60 SECONDS)"])
def test_a_time_windowed_table_scan_and_lookup_are_served(client: Any, unique: Callable[[str], str], window: str) -> None:
    name = _session_table(client, unique, window)
    for path, body in (("/query", {"ksql": f"SELECT * FROM {name};"}), ("/query-stream", {"sql": f"SELECT * FROM {name};"})):
        r = client.post(path, json=body, headers={"Accept": KSQL_V1_JSON if path == "/query" else JSON})
        assert r.status_code == 200, r.text
        rows = [e["row"]["columns"] if path == "/query" else e for e in json.loads(r.text)[1:]]
        assert sorted(rows) == [["a", 60000, 120000, 1], ["b", 120000, 180000, 1]]
    for path, body in (("/query", {"ksql": f"SELECT * FROM {name} WHERE U = 'b';"}),
                       ("/query-stream", {"sql": f"SELECT * FROM {name} WHERE U = 'b' AND WINDOWSTART >= 120000;"})):
        r = client.post(path, json=body, headers={"Accept": KSQL_V1_JSON if path == "/query" else JSON})
        assert r.status_code == 200, r.text
        rows = [e["row"]["columns"] if path == "/query" else e for e in json.loads(r.text)[1:]]
        assert rows == [["b", 120000, 180000, 1]]


def test_the_engine_names_the_store_refusal() -> None:
    """Without a server (no routing), the engine's own error is the store's."""
    from ksqlpy.engine.engine import Engine

    engine = Engine()
    try:
        engine.execute("CREATE STREAM S (U STRING KEY, A INT) WITH (kafka_topic='s', value_format='JSON', "
                       "partitions=1); CREATE TABLE T AS SELECT U, COUNT(*) AS N FROM S WINDOW SESSION (5 SECONDS) "
                       "GROUP BY U;")
        with pytest.raises(KsqlStatementError) as e:
            engine.execute("SELECT * FROM T;")
        assert e.value.message == "Table scan unsupported on session tables"
        [result] = engine.execute("SELECT * FROM T WHERE U = 'x';")
        assert result.data["rows"] == []
    finally:
        engine.close()
