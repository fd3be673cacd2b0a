"""A row the response's format cannot write - protobuf rows have no NULL element of an ARRAY - ends the response
with a 50000 error element after the rows before it, for pull and push queries on both query endpoints: the
body stays one well-formed StreamedRow array (a pull query answered 500, a push query broke its chunked
stream)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from server_helpers import ksql

from ksqlpy.server.streaming import KSQL_V1_JSON, PROTOBUF


def _table(client: Any, unique: Callable[[str], str]) -> str:
    src, name = unique("PS"), unique("PT")
    ksql(client, f"CREATE TABLE {src} (K STRING PRIMARY KEY, A ARRAY<STRUCT<X INT>>, I INT) WITH "
                 f"(kafka_topic='{src.lower()}', value_format='JSON', partitions=1);"
                 f"CREATE TABLE {name} AS SELECT * FROM {src};")
    ksql(client, f"INSERT INTO {src} (K, I) VALUES ('b', 7);"
                 f"INSERT INTO {src} (K, A) VALUES ('c', ARRAY[STRUCT(X:=1), CAST(NULL AS STRUCT<X INT>)]);"
                 f"INSERT INTO {src} (K, I) VALUES ('d', 8);")
    end = time.monotonic() + 15
    while time.monotonic() < end:  # until the CTAS has all three rows
        r = client.post("/query", json={"ksql": f"SELECT * FROM {name};"}, headers={"Accept": KSQL_V1_JSON})
        if r.status_code == 200 and len(json.loads(r.text)) == 4:
            return name
        time.sleep(0.1)
    raise AssertionError("the table never had its three rows")


def _elements(client: Any, path: str, sql: str) -> list[dict[str, Any]]:
    body = {"ksql": sql} if path == "/query" else {"sql": sql}
    r = client.post(path, json=body, headers={"Accept": PROTOBUF})
    assert r.status_code == 200, r.text
    return json.loads(r.text)  # one JSON array, the error element its last


def _assert_ends_with_the_error(elements: list[dict[str, Any]], rows_before: int) -> None:
    assert list(elements[0]) == ["header"]
    assert [list(e) for e in elements[1:-1]] == [["row"]] * rows_before
    error = elements[-1]["errorMessage"]
    assert error["@type"] == "generic_error" and error["error_code"] == 50000
    assert "NULL element" in error["message"]


def test_a_pull_query_ends_with_an_error_element_at_the_row(client: Any, unique: Callable[[str], str]) -> None:
    name = _table(client, unique)
    for path in ("/query", "/query-stream"):
        _assert_ends_with_the_error(_elements(client, path, f"SELECT * FROM {name};"), rows_before=1)  # 'b'


def test_a_push_query_ends_with_an_error_element_at_the_row(client: Any, unique: Callable[[str], str]) -> None:
    name = _table(client, unique)
    for path in ("/query", "/query-stream"):
        elements = _elements(client, path, f"SELECT * FROM {name} EMIT CHANGES;")  # ends: no LIMIT needed
        _assert_ends_with_the_error(elements, rows_before=1)


def test_rows_the_format_can_write_are_unchanged(client: Any, unique: Callable[[str], str]) -> None:
    name = _table(client, unique)
    elements = _elements(client, "/query", f"SELECT K, I FROM {name};")
    assert [list(e) for e in elements] == [["header"], ["row"], ["row"], ["row"]]
