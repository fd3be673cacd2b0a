"""A push query that fails while it runs (its processing raises, as a Kafka Streams thread dies in ksqlDB)
ends its response with the rows it gave, then an error: an ``errorMessage`` element (50000
``generic_error``) in the StreamedRow formats, an error-envelope line in the delimited one, the envelope as
the last element of /query-stream's JSON array, and close code 1011 on /ws/query (reference 1.4/1.5/1.8:
"Mid-stream failure"). Before, the response ended as if the client had closed the query."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("httpx")
from app_client import serving  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ksqlpy.engine.queries import TransientQuery  # noqa: E402
from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.config import build_config  # noqa: E402

BOOM = "the push query's processing failed"
_names = itertools.count()


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    config = build_config(data_dir=str(tmp_path_factory.mktemp("pushfail")),
                          overrides={"ksql.logging.processing.stream.auto.create": "false",
                                     "ksql.streams.auto.offset.reset": "earliest"})
    with serving(create_app(config)) as c:
        yield c


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every push query fails once it has queued its first row (a row, then the failure)."""
    poll = TransientQuery.poll

    def failing_poll(self: TransientQuery) -> int:
        if self.emitted >= 1 and not self.done:
            raise RuntimeError(BOOM)
        return poll(self)

    monkeypatch.setattr(TransientQuery, "poll", failing_poll)


def _source(client: Any) -> str:
    name = f"PF{next(_names)}"
    for sql in (f"CREATE STREAM {name} (ID INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', "
                "partitions=1, value_format='JSON');", f"INSERT INTO {name} (ID, V) VALUES (1, 'a');"):
        r = client.post("/ksql", json={"ksql": sql, "streamsProperties": {}})
        assert r.status_code == 200, r.text
    return name


def _error(element: dict[str, Any]) -> None:
    assert element["@type"] == "generic_error" and element["error_code"] == 50000
    assert BOOM in element["message"]


@pytest.mark.parametrize("path, accept, migrate", [
    ("/query-stream", "application/vnd.ksql.v1+json", True), ("/query", "application/vnd.ksql.v1+json", True),
    ("/query", "application/json", True), ("/query", "application/vnd.ksql.v1+json", False)])
def test_streamed_row_formats_end_with_an_error_message(app_client: Any, failing: None, path: str,
                                                        accept: str, migrate: bool) -> None:
    """Both /query routes (ksql.endpoint.migrate.query: the new writer, or the legacy one) and /query-stream."""
    name = _source(app_client)
    sql = f"SELECT * FROM {name} EMIT CHANGES;"
    body = ({"sql": sql} if path == "/query-stream"
            else {"ksql": sql, "streamsProperties": {"ksql.endpoint.migrate.query": migrate}})
    r = app_client.post(path, json=body, headers={"Accept": accept} if accept else {})
    assert r.status_code == 200
    elements = json.loads(r.text)
    assert "header" in elements[0] and elements[1] == {"row": {"columns": [1, "a"]}}
    assert set(elements[2]) == {"errorMessage"} and len(elements) == 3
    _error(elements[2]["errorMessage"])


def test_the_delimited_format_ends_with_an_error_line(app_client: Any, failing: None) -> None:
    name = _source(app_client)
    r = app_client.post("/query-stream", json={"sql": f"SELECT * FROM {name} EMIT CHANGES;"},
                        headers={"Accept": "application/vnd.ksqlapi.delimited.v1"})
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert lines[0]["columnNames"] == ["ID", "V"] and lines[1] == [1, "a"] and len(lines) == 3
    _error(lines[2])


def test_the_json_array_ends_with_the_error_envelope(app_client: Any, failing: None) -> None:
    name = _source(app_client)
    r = app_client.post("/query-stream", json={"sql": f"SELECT * FROM {name} EMIT CHANGES;"},
                        headers={"Accept": "application/json"})
    elements = json.loads(r.text)
    assert elements[1] == [1, "a"] and len(elements) == 3
    _error(elements[2])


def test_the_websocket_closes_1011_with_the_failure(app_client: Any, failing: None) -> None:
    name = _source(app_client)
    request = quote(json.dumps({"ksql": f"SELECT * FROM {name} EMIT CHANGES;", "streamsProperties": {}}))
    with app_client.websocket_connect("/ws/query?request=" + request) as ws:
        assert [f["name"] for f in json.loads(ws.receive_text())] == ["ID", "V"]
        assert json.loads(ws.receive_text()) == {"row": {"columns": [1, "a"]}}
        assert BOOM in json.loads(ws.receive_text())["error"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == 1011


def test_a_query_that_does_not_fail_ends_at_its_limit_as_before(app_client: Any) -> None:
    name = _source(app_client)
    r = app_client.post("/query", json={"ksql": f"SELECT * FROM {name} EMIT CHANGES LIMIT 1;"},
                        headers={"Accept": "application/vnd.ksql.v1+json"})
    assert json.loads(r.text)[1:] == [{"row": {"columns": [1, "a"]}}, {"finalMessage": "Limit Reached"}]


@pytest.fixture
def unconvertible(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer fails on a row whose V is 'bad' (a failure other than a row the format cannot represent)."""
    from ksqlpy.server import streaming

    for cls in (streaming.StreamedRowWriter, streaming.DelimitedWriter, streaming.JsonArrayWriter):
        row = cls.row

        def failing_row(self: Any, values: list[Any], *args: Any, _row: Any = row, **kwargs: Any) -> bytes:
            if "bad" in values:
                raise RuntimeError(BOOM)
            return _row(self, values, *args, **kwargs)

        monkeypatch.setattr(cls, "row", failing_row)


def _two_rows(client: Any) -> str:
    name = _source(client)
    r = client.post("/ksql", json={"ksql": f"INSERT INTO {name} (ID, V) VALUES (2, 'bad');",
                                   "streamsProperties": {}})
    assert r.status_code == 200, r.text
    return name


@pytest.mark.parametrize("query", ["SELECT * FROM {} EMIT CHANGES;", "SELECT * FROM {};"])
def test_a_row_the_writer_fails_on_ends_the_response_with_an_error(app_client: Any, unconvertible: None,
                                                                   query: str) -> None:
    """Push and pull (a stream scan) alike: the rows before it, then the error element, then the end."""
    name = _two_rows(app_client)
    r = app_client.post("/query-stream", json={"sql": query.format(name)},
                        headers={"Accept": "application/vnd.ksql.v1+json"})
    elements = json.loads(r.text)
    assert elements[1] == {"row": {"columns": [1, "a"]}} and len(elements) == 3
    _error(elements[2]["errorMessage"])


def test_the_delimited_format_ends_with_the_writer_failure(app_client: Any, unconvertible: None) -> None:
    name = _two_rows(app_client)
    r = app_client.post("/query-stream", json={"sql": f"SELECT * FROM {name} EMIT CHANGES;"},
                        headers={"Accept": "application/vnd.ksqlapi.delimited.v1"})
    lines = [json.loads(line) for line in r.text.splitlines() if line]
    assert lines[1] == [1, "a"] and len(lines) == 3
    _error(lines[2])
