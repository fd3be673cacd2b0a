"""Every statement and request of the REST/CLI/SQL reference, as a reader types it, against a real server
(docs_reference.py extracts them from the page when the test runs; the page is not part of the project).

Each answer is sorted into right / different / failing (docs_runner.py); all must be right. The tally is
printed (``-s``) for the report.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from docs_reference import REFERENCE, SETUP, SRC, answers, bind, expand, requests, synopsis_spans
from docs_runner import Expect, Outcome, Runner, Step, ok, report, tally

from ksqlpy.testing.server_process import ServerProcess

pytestmark = [pytest.mark.timeout(900), pytest.mark.skipif(not REFERENCE.exists(), reason="reference not here")]


def _setup(runner: Runner, sql: str) -> Any:
    r = runner.client.post("/ksql", json={"ksql": sql, "streamsProperties": {}})
    assert r.status_code == 200, f"set-up {sql!r}: {r.text}"
    return r.json()


def test_reference_statements_and_requests(docs_server: ServerProcess) -> None:
    md = REFERENCE.read_text()
    runner = Runner(docs_server.url)
    try:
        for sql in SETUP:
            _setup(runner, sql)
        # the request examples: a stream over topic 't' (which must exist), a push query over PAGEVIEWS
        _setup(runner, "CREATE STREAM REF_T (id INT KEY) WITH (kafka_topic='t', value_format='JSON', partitions=1);")
        _setup(runner, "CREATE STREAM PAGEVIEWS (userid STRING, pageid STRING, viewtime BIGINT) WITH "
                       "(kafka_topic='pageviews', value_format='JSON', partitions=1);")
        _setup(runner, "INSERT INTO PAGEVIEWS (userid, pageid, viewtime) VALUES ('u', 'p', 1);")
        for ex in requests(md):
            body = {k: v for k, v in ex.body.items() if k not in ("ksql", "sql")}
            if "sql" in ex.body:
                runner.run(Step(ex.text, Expect(columns=["USERID", "PAGEID", "VIEWTIME"], rows=[["u", "p", 1]]),
                                endpoint="/query-stream", body=body, take=1))
            elif "commandSequenceNumber" in body:
                # as written, the request waits for command 10 of the page's server: ksqlDB times out with
                # 50301 on a server that has not run that many; without it the request runs
                runner.run(Step(ex.text, Expect(status=503, error_code=50301), body=body))
                body.pop("commandSequenceNumber")
                runner.run(Step(ex.text, ok("currentStatus", "streams"), body=body))
            else:
                runner.run(Step(ex.text, ok("currentStatus", "streams"), body=body))
        ids: dict[str, str] = {}
        for ex in answers(md):
            if ex.text.strip() in ("", "...") or "..." in ex.text:
                continue
            sql = re.sub(r"CSAS_(\w+?)_\d+", lambda m: ids.get(m.group(1), m.group(0)), ex.text)
            if ex.expect_type == "statement_error":
                runner.run(Step(sql, Expect(status=400, error_code=40001)))
                continue
            result = runner.run(Step(sql, ok(ex.expect_type)))
            if ex.expect_type == "currentStatus" and result.outcome is Outcome.RIGHT:
                qid = runner.client.post("/ksql", json={"ksql": "SHOW QUERIES;"}).json()[0]["queries"]
                ids.update({q["sinks"][0]: q["id"] for q in qid if q["sinks"]})
        later: list[Step] = []
        n = 0
        for synopsis in synopsis_spans(md):
            for form in expand(synopsis):
                n += 1
                b = bind(form, n)
                if b is None:
                    continue
                sql = b.sql
                for s in b.setup:
                    got = _setup(runner, s)
                    qid = got[0].get("commandStatus", {}).get("queryId") if got else None
                    if qid:
                        sql = re.sub(r"CSAS_REF_\d+_QID", qid, sql)
                expect = Expect() if b.ok else Expect(status=b.status, message=b.message)
                take = None
                if sql.startswith("SELECT") and "EMIT" in sql:
                    take = 1
                elif sql.startswith("PRINT") and "LIMIT" not in sql:
                    take = 2  # the key and value format lines, then a record
                step = Step(sql, expect, headers_only=b.headers_only, take=take,
                            body={"properties": {"auto.offset.reset": "earliest"}} if sql.startswith(("SELECT",
                                                                                                     "PRINT")) else {})
                if b.last:
                    later.append(step)
                else:
                    runner.run(step)
        for step in sorted(later, key=lambda s: ["PAUSE", "RESUME", "TERMINATE"].index(s.sql.split()[0])):
            runner.run(step)
        print(f"\nreference ({SRC} set-up): {len(runner.results)} statements and requests run")
        print(report(runner.results))
        assert tally(runner.results)["right"] == len(runner.results), report(runner.results)
    finally:
        runner.close()
