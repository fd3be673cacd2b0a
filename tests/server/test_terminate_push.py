"""TERMINATE of a running push query over /ksql: ksqlDB compares query ids case-insensitively, so the mixed-case
``transient_<SOURCE>_<n>`` id ends the query however it is written (it was upper-cased and never found:
'Unknown queryId'); the answer is the local ``terminate_query`` entity with the statement's id (an unquoted
identifier upper-cased, as ksqlDB's parser reads it; a quoted one as written)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import ksql, stream_lines


@pytest.mark.parametrize("spelling", [str, str.upper, str.lower])
def test_terminate_a_push_query_by_its_id(client: Any, unique: Callable[[str], str],
                                          spelling: Callable[[str], str]) -> None:
    s = unique("TP")
    ksql(client, f"CREATE STREAM {s} (ID INT KEY, V STRING) WITH (kafka_topic='{s.lower()}', partitions=1, "
                 "value_format='JSON');")
    header: dict[str, Any] = {}
    ready, ended = threading.Event(), threading.Event()

    def read() -> None:
        with client.stream("POST", "/query-stream", json={"sql": f"SELECT * FROM {s} EMIT CHANGES;"}) as r:
            for line in stream_lines(r, 30):
                if line.strip() and not header:
                    header.update(json.loads(line))
                    ready.set()
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(20), "no header"
    qid = header["queryId"]
    assert qid.startswith(f"transient_{s}_")
    written = spelling(qid)
    quoted = spelling is str.lower
    text = f"TERMINATE `{written}`;" if quoted else f"TERMINATE {written};"
    named = written if quoted else written.upper()
    body = ksql(client, text)
    assert body == [{"@type": "terminate_query", "statementText": text, "queryId": named,
                     "wasTerminated": True, "warnings": []}]
    assert ended.wait(20), "the push query's stream did not end"
    listed = [q["id"] for q in ksql(client, "SHOW QUERIES;")[0]["queries"]]
    assert qid not in listed
    r = client.post("/ksql", json={"ksql": text})
    assert r.status_code == 400 and r.json()["message"] == f"Unknown queryId: {named}"
