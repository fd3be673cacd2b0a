"""/ksql refuses a SELECT or PRINT (40002, 'should be issued to the websocket endpoint') where ksqlDB's
RequestValidator meets it: the statements before it validated first (their errors win), then the query prepared -
its sanitizer wants every source it names (FROM and JOINs) to exist as those statements leave the catalog - and
only then the refusal; nothing of the request runs. A real server on loopback, HTTP/1.1 and HTTP/2."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

QUERY_ENDPOINT = ("The following statement types should be issued to the websocket endpoint '/query':\n"
                  "\t* PRINT\n\t* SELECT")


def _post(client: Any, sql: str) -> tuple[int, dict[str, Any]]:
    r = client.post("/ksql", json={"ksql": sql, "streamsProperties": {}})
    return r.status_code, r.json()


def _stream(name: str) -> str:
    return (f"CREATE STREAM {name} (ID INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', partitions=1, "
            "value_format='JSON');")


def _names(client: Any) -> set[str]:
    _, streams = _post(client, "SHOW STREAMS;")
    _, tables = _post(client, "SHOW TABLES;")
    return {s["name"] for s in streams[0]["streams"]} | {t["name"] for t in tables[0]["tables"]}


def test_unknown_source_is_the_preparation_s_error(client: Any, unique: Callable[[str], str]) -> None:
    missing = unique("NOPE")
    status, body = _post(client, f"SELECT * FROM {missing};")
    assert status == 400 and body["error_code"] == 40001, body
    assert body["message"].endswith(f"{missing} does not exist.") and body["statementText"] == f"SELECT * FROM {missing};"


@pytest.mark.parametrize("query", ["SELECT * FROM {missing};", "SELECT * FROM {missing} EMIT CHANGES;",
                                   "SELECT * FROM {s} A JOIN {missing} B WITHIN 1 SECOND ON A.ID = B.ID EMIT CHANGES;"])
def test_unknown_source_after_statements_nothing_runs(client: Any, unique: Callable[[str], str], query: str) -> None:
    s, missing = unique("RQS"), unique("NOPE")
    text = query.format(s=s, missing=missing)
    status, body = _post(client, _stream(s) + " " + text)
    assert status == 400 and body["error_code"] == 40001, body
    assert f"{missing} does not exist." in body["message"] and body["statementText"] == text
    assert body["entities"] == [] and s not in _names(client)


def test_an_earlier_statement_s_error_comes_first(client: Any, unique: Callable[[str], str]) -> None:
    s = unique("RQB")
    bad = f"CREATE STREAM {s} (ID INT KEY) WITH (kafka_topic='{s.lower()}', partitions=1, value_formt='JSON');"
    status, body = _post(client, f"{bad} SELECT * FROM {s};")
    assert status == 400 and body["error_code"] == 40001 and body["statementText"] == bad, body
    assert "VALUE_FORMT" in body["message"]
    status, body = _post(client, f"{bad} PRINT 'anything';")
    assert status == 400 and body["statementText"] == bad, body


def test_a_query_over_a_source_made_earlier_is_refused(client: Any, unique: Callable[[str], str]) -> None:
    s, t = unique("RQC"), unique("RQT")
    for query in (f"SELECT * FROM {t} WHERE ID = 1;", f"SELECT * FROM {s} EMIT CHANGES;", f"PRINT '{s.lower()}';"):
        sql = f"{_stream(s)} CREATE TABLE {t} AS SELECT ID, COUNT(*) AS N FROM {s} GROUP BY ID; {query}"
        status, body = _post(client, sql)
        assert (status, body["error_code"], body["message"], body["statementText"]) == (
            400, 40002, QUERY_ENDPOINT, query), body
        assert body["entities"] == []
    assert not {s, t} & _names(client)


def test_query_first_then_statements(client: Any, unique: Callable[[str], str]) -> None:
    s, missing = unique("RQF"), unique("NOPE")
    status, body = _post(client, f"SELECT * FROM {missing}; {_stream(s)}")
    assert status == 400 and body["error_code"] == 40001 and f"{missing} does not exist." in body["message"]
    status, body = _post(client, f"PRINT 'whatever'; {_stream(s)}")
    assert (status, body["error_code"]) == (400, 40002)
    assert s not in _names(client)
