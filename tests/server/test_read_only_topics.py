"""Read-only topics (ksqlpy/engine/internal_topics.py): ``ksql.readonly.topics`` as the server configures it
(a list of whole-name regular expressions replacing the default one) plus ksqlDB's own ``_confluent-ksql-``
topics, which stay read-only whatever the list says - the command topic above all: a record written into it
would be replayed by every start. /inserts-stream follows the INSERT VALUES rule. (tests/cases/rest/
read-only-topics.json covers the default list through /ksql.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("h2")

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc = ServerProcess(str(tmp_path_factory.mktemp("server")), {"ksql.readonly.topics": "audit.*, ledger"})
    proc.start()
    try:
        yield proc.url
    finally:
        proc.stop()


def _ksql(url: str, sql: str) -> httpx.Response:
    return httpx.post(f"{url}/ksql", json={"ksql": sql, "streamsProperties": {}}, timeout=20)


@pytest.mark.parametrize(("topic", "read_only"), [
    ("audit_log", True), ("ledger", True), ("ledger2", False), ("_schemas", False),  # the list replaced the default
    ("_confluent-ksql-default__command_topic", True), ("_confluent-ksql-mine", True),
])
def test_configured_read_only_topics(url: str, topic: str, read_only: bool) -> None:
    name = "RO_" + "".join(c if c.isalnum() else "_" for c in topic).upper()
    partitions = "" if topic.endswith("command_topic") else ", partitions=1"
    r = _ksql(url, f"CREATE STREAM {name} (V STRING) WITH (kafka_topic='{topic}', value_format='KAFKA'{partitions});")
    assert r.status_code == 200, r.text  # reading one is allowed
    r = _ksql(url, f"INSERT INTO {name} (V) VALUES ('x');")
    if read_only:
        assert r.status_code == 400 and r.json()["error_code"] == 40000, r.text
        assert r.json()["message"] == f"Cannot insert values into read-only topic: {topic}"
    else:
        assert r.status_code == 200, r.text
    with httpx.Client(base_url=url, http1=False, http2=True, timeout=20) as h2:
        r = h2.post("/inserts-stream", content=f'{{"target": "{name}"}}\n{{"V": "y"}}\n'.encode())
    if read_only:
        assert r.status_code == 400 and f"Cannot insert values into read-only topic: {topic}" in r.text, r.text
    else:
        assert r.status_code == 200 and '"status":"ok"' in r.text, r.text
    # the server still runs statements (nothing reached the command topic)
    assert _ksql(url, f"DROP STREAM {name};").status_code == 200
