"""A /ksql request is validated as a whole in a sandbox before it runs (engine/sandbox.py). A query made by
one of its statements is numbered by the offset of the command the request will write for it, so a
PAUSE, RESUME, TERMINATE or EXPLAIN later in the same request names it by the id it really gets: the
sandbox numbers each distributed statement by the command topic's next offset, one per statement written
(IF NOT EXISTS on an existing object writes none). Before, the sandbox continued from the engine's last
query number and refused such a request with 'Unknown queryId'."""

from __future__ import annotations

from typing import Any

from server_helpers import ksql


def _stream(client: Any, name: str) -> int:
    """Create a stream alone; its command's offset (the request's next one is that + 1)."""
    [entity] = ksql(client, f"CREATE STREAM {name} (ID INT KEY, V INT) WITH (kafka_topic='{name.lower()}', "
                            "value_format='JSON', partitions=1);")
    return int(entity["commandSequenceNumber"])


def _statuses(entities: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(e["commandId"], e["commandStatus"]["message"], e["commandStatus"]["queryId"]) for e in entities]


def test_pause_and_terminate_a_query_the_request_made(client: Any, unique: Any) -> None:
    s, a, b = unique("S"), unique("A"), unique("B")
    n = _stream(client, s)
    qa, qb = f"CSAS_{a}_{n + 1}", f"CSAS_{b}_{n + 2}"
    out = ksql(client, f"CREATE STREAM {a} AS SELECT * FROM {s}; CREATE STREAM {b} AS SELECT * FROM {s}; "
                       f"PAUSE {qa}; TERMINATE {qb}; SHOW QUERIES;")
    assert _statuses(out[:4]) == [
        (f"stream/{a}/create", f"Created query with ID {qa}", qa),
        (f"stream/{b}/create", f"Created query with ID {qb}", qb),
        (f"pause/{qa}/execute", "Query paused.", None),
        (f"terminate/{qb}/execute", "Query terminated.", None)]
    states = {q["id"]: q["state"] for q in out[4]["queries"]}
    assert states.get(qa) == "PAUSED" and qb not in states
    ksql(client, f"TERMINATE {qa}; DROP STREAM {b}; DROP STREAM {a};")


def test_explain_and_resume_after_an_if_not_exists_that_writes_nothing(client: Any, unique: Any) -> None:
    s, a = unique("S"), unique("A")
    n = _stream(client, s)
    qa = f"CSAS_{a}_{n + 1}"  # the IF NOT EXISTS below takes no offset
    out = ksql(client, f"CREATE STREAM IF NOT EXISTS {s} (ID INT KEY, V INT) WITH (kafka_topic='{s.lower()}', "
                       f"value_format='JSON', partitions=1); CREATE STREAM {a} AS SELECT * FROM {s}; "
                       f"PAUSE {qa}; RESUME {qa}; EXPLAIN {qa};")
    assert out[0]["@type"] == "warning_entity"
    assert _statuses(out[1:4]) == [
        (f"stream/{a}/create", f"Created query with ID {qa}", qa),
        (f"pause/{qa}/execute", "Query paused.", None),
        (f"resume/{qa}/execute", "Query resumed.", None)]
    assert out[4]["queryDescription"]["id"] == qa and out[4]["queryDescription"]["state"] == "RUNNING"
    ksql(client, f"TERMINATE {qa}; DROP STREAM {a};")


def test_an_id_the_request_will_not_make_is_unknown_and_nothing_runs(client: Any, unique: Any) -> None:
    s, a = unique("S"), unique("A")
    n = _stream(client, s)
    wrong = f"CSAS_{a}_{n}"
    r = client.post("/ksql", json={"ksql": f"CREATE STREAM {a} AS SELECT * FROM {s}; PAUSE {wrong};",
                                   "streamsProperties": {}})
    assert r.status_code == 400, r.text
    assert r.json()["message"] == f"Unknown queryId: {wrong}"
    assert not [q for q in ksql(client, "SHOW QUERIES;")[0]["queries"] if a in q["sinks"]]
