"""The query endpoints' route table (path x Accept x HTTP version x statement kind) and their writes.

Every cell is checked on the wire with raw clients that keep write boundaries (``wire.py``): the header,
each row, the final message and the end of a response are writes of their own - a chunk on HTTP/1.1, a DATA
frame on HTTP/2 - whichever path answers (the route, the lean HTTP/1.1 front, the lookup middleware), so a
client that parses one JSON document per chunk (the npm ksqldb-client) parses every one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import wire
from server_helpers import ksql

from ksqlpy.server import query_routes as R
from ksqlpy.server.streaming import DELIMITED, JSON, KSQL_V1_JSON, PROTOBUF
from ksqlpy.testing.server_process import ServerProcess

SEND: dict[str, Callable[..., wire.Reply]] = {"http1": wire.h1, "http2": wire.h2}


# ---------------------------------------------------------------------------------------------- the table
@pytest.mark.parametrize("path,accept,http,is_print,migrate,expected", [
    # /query-stream: delimited unless asked otherwise
    (R.Path.QUERY_STREAM, None, "1.1", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY_STREAM, "*/*", "2", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY_STREAM, DELIMITED, "2", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY_STREAM, JSON, "1.1", False, True, (R.Handler.QUERY_STREAM, JSON)),
    (R.Path.QUERY_STREAM, KSQL_V1_JSON, "2", False, True, (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY_STREAM, PROTOBUF, "1.1", False, True, (R.Handler.QUERY_STREAM, PROTOBUF)),
    (R.Path.QUERY_STREAM, f"{JSON};q=0.5, {KSQL_V1_JSON}", "1.1", False, True,
     (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY_STREAM, None, "1.1", True, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY_STREAM, JSON, "1.1", True, True, R.NOT_ACCEPTABLE),
    (R.Path.QUERY_STREAM, "text/html", "1.1", False, True, R.NOT_ACCEPTABLE),
    (R.Path.QUERY_STREAM, None, "1.0", False, True, R.OLD_HTTP),
    # /query: no Accept is its first route's StreamedRow; */* and delimited the delimited format
    (R.Path.QUERY, None, "1.1", False, True, (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY, None, "2", False, True, (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY, JSON, "1.1", False, True, (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY, KSQL_V1_JSON, "2", False, True, (R.Handler.QUERY_STREAM, KSQL_V1_JSON)),
    (R.Path.QUERY, "*/*", "1.1", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY, DELIMITED, "2", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY, PROTOBUF, "2", False, True, (R.Handler.QUERY_STREAM, PROTOBUF)),
    # the legacy handler: PRINT, and SELECT when the query is not migrated; not on HTTP/2
    (R.Path.QUERY, None, "1.1", True, True, (R.Handler.LEGACY, KSQL_V1_JSON)),
    (R.Path.QUERY, None, "2", True, True, R.LEGACY_ON_HTTP2),
    (R.Path.QUERY, JSON, "1.1", False, False, (R.Handler.LEGACY, KSQL_V1_JSON)),
    (R.Path.QUERY, KSQL_V1_JSON, "2", False, False, R.LEGACY_ON_HTTP2),
    (R.Path.QUERY, DELIMITED, "2", False, False, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY, DELIMITED, "1.1", True, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY, "text/html", "1.1", False, True, R.NOT_ACCEPTABLE),
    # a wildcard admits the first route's types: PRINT and an unmigrated SELECT are its (curl's */*)
    (R.Path.QUERY, "*/*", "1.1", True, True, (R.Handler.LEGACY, KSQL_V1_JSON)),
    (R.Path.QUERY, "*/*", "2", True, True, R.LEGACY_ON_HTTP2),
    (R.Path.QUERY, "application/*", "1.1", False, False, (R.Handler.LEGACY, KSQL_V1_JSON)),
    (R.Path.QUERY, f"{DELIMITED}, */*;q=0.1", "2", True, True, R.LEGACY_ON_HTTP2),
    (R.Path.QUERY, f"{DELIMITED}, */*;q=0.1", "1.1", False, True, (R.Handler.QUERY_STREAM, DELIMITED)),
    (R.Path.QUERY, f"{DELIMITED}, {PROTOBUF}", "2", True, True, (R.Handler.QUERY_STREAM, DELIMITED)),
])
def test_route_table(path: R.Path, accept: str | None, http: str, is_print: bool, migrate: bool,
                     expected: Any) -> None:
    got = R.route(path, accept, http, is_print=is_print, migrate=migrate)
    if isinstance(expected, R.Refusal):
        assert got is expected
    else:
        assert isinstance(got, R.Route) and (got.handler, got.media) == expected


# ---------------------------------------------------------------------------------------------- on the wire
@pytest.fixture(scope="module")
def sources(server: ServerProcess) -> tuple[str, str]:
    """A stream with two rows and a table over it, both caught up."""
    s = f"WIRE{int(time.time() * 1000) % 100000}"
    with httpx.Client(base_url=server.url, timeout=20) as c:
        ksql(c, f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', partitions=1, "
                "value_format='JSON'); "
                f"INSERT INTO {s} (ID, V) VALUES (1, 'a'); INSERT INTO {s} (ID, V) VALUES (2, 'b');")
        ksql(c, f"CREATE TABLE {s}_T AS SELECT ID, COUNT(*) AS N FROM {s} GROUP BY ID;",
             streamsProperties={"auto.offset.reset": "earliest"})
        end = time.monotonic() + 20
        while time.monotonic() < end:
            r = c.post("/query-stream", json={"sql": f"SELECT * FROM {s}_T;"}, headers={"Accept": JSON})
            if len(r.json()) == 3:
                break
            time.sleep(0.1)
    return s, f"{s}_T"


def _body(path: str, sql: str, **props: str) -> bytes:
    key = "sql" if path == "/query-stream" else "ksql"
    return json.dumps({key: sql, ("properties" if key == "sql" else "streamsProperties"): props}).encode()


def _accept(accept: str | None) -> dict[str, str]:
    return {} if accept is None else {"Accept": accept}


EARLIEST = {"ksql.streams.auto.offset.reset": "earliest"}
ROW1, ROW2 = b'{"row":{"columns":[1,"a"]}}', b'{"row":{"columns":[2,"b"]}}'


@pytest.mark.parametrize("http", ["http1", "http2"])
@pytest.mark.parametrize("path,accept", [("/query", None), ("/query", JSON), ("/query", KSQL_V1_JSON),
                                         ("/query-stream", KSQL_V1_JSON)])
def test_push_query_streamed_rows_one_write_each(server: ServerProcess, sources: Any, http: str, path: str,
                                                 accept: str | None) -> None:
    s, _ = sources
    r = SEND[http](server.port, path, _body(path, f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", **EARLIEST),
                   _accept(accept))
    assert r.status == 200 and r.headers["content-type"] == KSQL_V1_JSON
    header, *rest = r.parts
    assert header.startswith(b'[{"header":{"queryId":"transient_') and header.endswith(b"},\n")
    assert json.loads(header[1:-2])["header"]["schema"] == "`ID` INTEGER, `V` STRING"
    assert rest == [ROW1 + b",\n", ROW2 + b",\n", b'{"finalMessage":"Limit Reached"}', b"]\n"]
    assert len(json.loads(r.body)) == 4  # the whole body is one JSON array


@pytest.mark.parametrize("http", ["http1", "http2"])
@pytest.mark.parametrize("path,accept", [("/query-stream", None), ("/query-stream", DELIMITED),
                                         ("/query", "*/*"), ("/query", DELIMITED)])
def test_push_query_delimited_rows_one_write_each(server: ServerProcess, sources: Any, http: str, path: str,
                                                  accept: str | None) -> None:
    s, _ = sources
    r = SEND[http](server.port, path, _body(path, f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;", **EARLIEST),
                   _accept(accept))
    assert r.status == 200 and r.headers["content-type"] == DELIMITED
    meta, *rows = r.parts
    assert json.loads(meta)["columnNames"] == ["ID", "V"] and meta.endswith(b"\n")
    assert rows == [b'[1,"a"]\n', b'[2,"b"]\n']  # no final message in the delimited format


@pytest.mark.parametrize("http", ["http1", "http2"])
def test_push_query_json_array(server: ServerProcess, sources: Any, http: str) -> None:
    s, _ = sources
    r = SEND[http](server.port, "/query-stream", _body("/query-stream", f"SELECT * FROM {s} EMIT CHANGES LIMIT 2;",
                                                        **EARLIEST), {"Accept": JSON})
    assert r.status == 200 and r.headers["content-type"] == JSON
    assert r.parts[1:] == [b',[1,"a"]', b',[2,"b"]', b"]"]
    meta, *rows = json.loads(r.body)
    assert meta["columnTypes"] == ["INTEGER", "STRING"] and rows == [[1, "a"], [2, "b"]]


@pytest.mark.parametrize("http", ["http1", "http2"])
def test_pull_query_on_a_stream(server: ServerProcess, sources: Any, http: str) -> None:
    s, _ = sources
    r = SEND[http](server.port, "/query", _body("/query", f"SELECT * FROM {s};"))
    assert r.status == 200
    assert r.parts[1:] in ([ROW1 + b",\n", ROW2 + b",\n", b'{"finalMessage":"Query Completed"}', b"]\n"],
                           [ROW1 + b",\n" + ROW2 + b",\n" + b'{"finalMessage":"Query Completed"}' + b"]\n"])
    r = SEND[http](server.port, "/query-stream", _body("/query-stream", f"SELECT * FROM {s};"))
    assert r.parts[1:] == [b'[1,"a"]\n', b'[2,"b"]\n']


@pytest.mark.parametrize("http", ["http1", "http2"])
@pytest.mark.parametrize("accept", [None, DELIMITED, KSQL_V1_JSON, JSON])
def test_key_lookups_on_query_stream_write_each_part(server: ServerProcess, sources: Any, http: str,
                                                     accept: str | None) -> None:
    """The first lookup of a shape runs through the route; the repeats are the prepared lookups answered
    before routing (the lean front on HTTP/1.1, the middleware on HTTP/2): the same writes."""
    _, t = sources
    seen = []
    for key in (1, 2, 1, 2):
        r = SEND[http](server.port, "/query-stream", _body("/query-stream", f"SELECT * FROM {t} WHERE ID = {key};"),
                       _accept(accept))
        assert r.status == 200 and r.headers["content-type"] == (accept or DELIMITED)
        seen.append([p for p in r.parts[1:]])
        if accept == JSON:
            assert json.loads(r.body)[1:] == [[key, 1]]
        elif accept == KSQL_V1_JSON:
            assert r.parts[0].endswith(b"},\n") and json.loads(r.body)[1] == {"row": {"columns": [key, 1]}}
        else:
            assert json.loads(r.parts[0])["columnNames"] == ["ID", "N"]
    expected = {None: [b"[1,1]\n"], DELIMITED: [b"[1,1]\n"], JSON: [b",[1,1]", b"]"],
                KSQL_V1_JSON: [b'{"row":{"columns":[1,1]}}', b"]\n"]}[accept]
    assert seen[0] == seen[2] == expected


@pytest.mark.parametrize("http", ["http1", "http2"])
def test_pull_query_on_a_table_through_query_is_one_json_array(server: ServerProcess, sources: Any,
                                                               http: str) -> None:
    _, t = sources
    for _ in range(2):  # the route, then the prepared lookup
        r = SEND[http](server.port, "/query", _body("/query", f"SELECT * FROM {t} WHERE ID = 2;"))
        assert r.status == 200 and r.headers["content-type"] == KSQL_V1_JSON
        body = json.loads(r.body)
        assert body[0]["header"]["schema"] == "`ID` INTEGER KEY, `N` BIGINT"
        assert body[1:] == [{"row": {"columns": [2, 1]}}]  # a table's pull query has no final message
    r = SEND[http](server.port, "/query", _body("/query", f"SELECT * FROM {t} WHERE ID = 99;"))
    assert len(json.loads(r.body)) == 1 and r.body.endswith(b"}}]\n")  # header only


# ---------------------------------------------------------------------------------------------- refusals
def test_print_on_query_over_http2_is_405(server: ServerProcess, sources: Any) -> None:
    s, _ = sources
    r = wire.h2(server.port, "/query", _body("/query", f"PRINT '{s.lower()}' FROM BEGINNING LIMIT 1;"))
    assert r.status == 405
    assert json.loads(r.body) == {"@type": "generic_error", "error_code": 40500,
                                  "message": "The /query endpoint is not available using HTTP2"}
    r = wire.h1(server.port, "/query", _body("/query", f"PRINT '{s.lower()}' FROM BEGINNING LIMIT 1;"))
    assert r.status == 200 and r.body.startswith(b"Key format: ")


def test_select_not_migrated_uses_the_legacy_writer(server: ServerProcess, sources: Any) -> None:
    s, _ = sources
    body = _body("/query", f"SELECT * FROM {s} EMIT CHANGES LIMIT 1;", **EARLIEST,
                 **{"ksql.endpoint.migrate.query": "false"})
    assert wire.h2(server.port, "/query", body).status == 405
    r = wire.h1(server.port, "/query", body)
    assert r.status == 200 and r.parts[1:] == [ROW1 + b",\n", b'{"finalMessage":"Limit Reached"}', b"]\n"]
    # the delimited route is not the legacy handler's: it answers over HTTP/2 as well
    assert wire.h2(server.port, "/query", body, {"Accept": DELIMITED}).status == 200


def test_print_on_query_stream_needs_the_delimited_format(server: ServerProcess, sources: Any) -> None:
    s, _ = sources
    body = _body("/query-stream", f"PRINT '{s.lower()}' FROM BEGINNING LIMIT 1;")
    assert wire.h1(server.port, "/query-stream", body, {"Accept": JSON}).status == 406
    r = wire.h1(server.port, "/query-stream", body)
    assert r.status == 200 and r.body.startswith(b"Key format: ")


def test_not_acceptable_and_old_http(server: ServerProcess, sources: Any) -> None:
    s, _ = sources
    for path in ("/query", "/query-stream"):
        r = wire.h1(server.port, path, _body(path, f"SELECT * FROM {s};"), {"Accept": "text/html"})
        assert r.status == 406
    r = wire.h1(server.port, "/query-stream", _body("/query-stream", f"SELECT * FROM {s};"), version="HTTP/1.0")
    assert r.status == 400 and json.loads(r.body)["message"] == \
        "This endpoint is only available when using HTTP1.1 or HTTP2"


@pytest.mark.parametrize("http", ["http1", "http2"])
def test_push_query_over_a_table_shows_deletes_as_tombstones(server: ServerProcess, http: str) -> None:
    t = f"TOMB{http[-1]}{int(time.time() * 1000) % 100000}"
    with httpx.Client(base_url=server.url, timeout=20) as c:
        ksql(c, f"CREATE TABLE {t} (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='{t.lower()}', partitions=1, "
                "value_format='JSON'); "
                f"INSERT INTO {t} (ID, V) VALUES (1, 'a'); INSERT INTO {t} (ID, V) VALUES (1, 'b'); "
                f"INSERT INTO {t} (ID, V) VALUES (2, 'a');")
    sql = f"SELECT V, ID FROM {t} WHERE V = 'a' EMIT CHANGES LIMIT 2;"
    r = SEND[http](server.port, "/query", _body("/query", sql, **EARLIEST))
    assert r.parts[1:] == [b'{"row":{"columns":["a",1]}},\n', b'{"row":{"columns":[null,1],"tombstone":true}},\n',
                           b'{"finalMessage":"Limit Reached"}', b"]\n"]
    r = SEND[http](server.port, "/query-stream", _body("/query-stream", sql, **EARLIEST))
    # the delimited format leaves deletes out before LIMIT counts rows (ksqlDB's excludeTombstones)
    assert r.parts[1:] == [b'["a",1]\n', b'["a",2]\n']
