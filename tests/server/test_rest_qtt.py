"""ksqlDB's REST QTT cases through the real server (``ksqlpy test --rest``), read in place, never copied.

The whole folder runs against one ``ksqlpy server`` subprocess (about a minute); at least 85% of the cases
that are not skipped must pass. The summary is printed so CI logs show the figures.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.testing.report import counts, summary_line, top_reasons
from ksqlpy.testing.runner import discover, load_cases

REST_QTT = Path("/work/shared/qtt/rest-query-validation-tests")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not REST_QTT.is_dir(), reason="the shared REST QTT folder is not here")]


def test_rest_qtt_through_the_real_server() -> None:
    from ksqlpy.testing.rest import run_rest

    cases = load_cases(discover([REST_QTT]))
    results = run_rest(cases, timeout_s=60)
    c = counts(results)
    print(f"\nREST QTT through the server: {summary_line(results)}")
    for reason, n, _ in top_reasons(results, "failed", 10):
        print(f"  {n:4d}  {reason}")
    ran = c["passed"] + c["failed"]
    assert ran > 0
    assert c["passed"] / ran >= 0.85, summary_line(results)


def test_rest_runner_detects_a_wrong_expectation() -> None:
    """The runner really compares: one mutated expected row makes a passing case fail."""
    from ksqlpy.testing.rest import run_rest

    cases = [c for c in load_cases(discover([REST_QTT / "pull-queries-against-streams.json"])) if c.name == "simple"]
    assert cases, "case 'simple' not found"
    good = run_rest(cases)[0]
    assert good.status == "passed", good.reason
    case = cases[0]
    query = case.responses[-1]["query"]
    row = next(e for e in query if "row" in e)
    row["row"]["columns"][0] = "not what the server returns"
    bad = run_rest([case])[0]
    assert bad.status == "failed" and "query" in bad.reason


def _sr_case(name: str, fmt: str, value: int) -> dict:
    return {
        "name": name,
        "statements": [f"CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='t', format='{fmt}', partitions=1);",
                       "CREATE TABLE M AS SELECT ID, LATEST_BY_OFFSET(V) AS V FROM S GROUP BY ID;",
                       "SELECT * FROM M WHERE ID=1;"],
        "inputs": [{"topic": "t", "key": {"ID": 1} if fmt == "PROTOBUF" else 1, "value": {"V": value}}],
        "responses": [{"admin": {"@type": "currentStatus"}}, {"admin": {"@type": "currentStatus"}},
                      {"query": [{"header": {"schema": "`ID` INTEGER KEY, `V` INTEGER"}},
                                 {"row": {"columns": [1, value]}}]}],
    }


def test_schema_registry_cases_on_one_topic_in_a_row() -> None:
    """Each case starts with empty subjects: a PROTOBUF case after an AVRO one on the same topic, and the same
    AVRO case twice (whose second registration used to be a no-op leaving the runner no schema), all pass."""
    from ksqlpy.testing.expansion import expand_case
    from ksqlpy.testing.rest import run_rest

    raws = [_sr_case("avro", "AVRO", 5), _sr_case("avro again", "AVRO", 6), _sr_case("protobuf", "PROTOBUF", 7)]
    cases = [c for raw in raws for c in expand_case(raw, "mine.json", rest=True)]
    results = run_rest(cases, timeout_s=60)
    assert [r.status for r in results] == ["passed"] * 3, [r.reason for r in results]


def test_outputs_and_protobuf_responses_are_checked() -> None:
    """A REST case's topic ``outputs`` are read back from the server's log, and ``testPullWithProtoFormat``
    asks the pull query again as protobuf; a wrong expectation in either fails the case."""
    from ksqlpy.testing.expansion import expand_case
    from ksqlpy.testing.rest import run_rest

    def case(name: str, out_value: int, proto_row: str) -> dict:
        return {
            "name": name, "testPullWithProtoFormat": True,
            "statements": ["CREATE TABLE T (ID INT PRIMARY KEY, V INT, M MAP<STRING, INT>) WITH (kafka_topic='t', "
                           "value_format='JSON');",
                           "CREATE TABLE Q AS SELECT ID, V * 10 AS W, M FROM T;", "SELECT * FROM Q;"],
            "inputs": [{"topic": "t", "key": 1, "value": {"V": 4, "M": {"a": 1, "b": 0}}}],
            "outputs": [{"topic": "Q", "key": 1, "value": {"W": out_value, "M": {"a": 1, "b": 0}}}],
            "responses": [{"admin": {"@type": "currentStatus"}}, {"admin": {"@type": "currentStatus"}},
                          {"query": [{"header": {"schema": "`ID` INTEGER KEY, `W` INTEGER, `M` MAP<STRING, INTEGER>"}},
                                     {"row": {"columns": [1, 40, {"a": 1, "b": 0}]}}]},
                          {"queryProto": [{"header": {"protoSchema": (
                              'syntax = "proto3";\n\nmessage ConnectDefault1 {\n  int32 ID = 1;\n  int32 W = 2;\n'
                              '  repeated ConnectDefault2Entry M = 3;\n\n  message ConnectDefault2Entry {\n'
                              '    string key = 1;\n    int32 value = 2;\n  }\n}\n')}},
                                          {"row": proto_row}]}],
        }

    good = 'ID: 1\nW: 40\nM {\n  key: "b"\n}\nM {\n  key: "a"\n  value: 1\n}\n'  # map entries in any order
    raws = [case("good", 40, good), case("bad output", 41, good), case("bad proto row", 40, good.replace("40", "41"))]
    cases = [c for raw in raws for c in expand_case(raw, "mine.json", rest=True)]
    results = run_rest(cases, timeout_s=60)
    assert [r.status for r in results] == ["passed", "failed", "failed"], [r.reason for r in results]
    assert "W: expected 41, got 40" in results[1].reason and "no row matches" in results[2].reason


STREAM = "CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='t', value_format='JSON');"  # the harness's 4
CREATED = {"admin": {"@type": "currentStatus"}}


def _rules_case(name: str, **fields: object) -> dict:
    raw: dict = {"name": name, "statements": [STREAM],
                 "inputs": [{"topic": "t", "key": k, "value": {"V": k * 10}} for k in (1, 2, 3)]}
    raw.update(fields)
    return raw


def test_the_runner_compares_as_ksqldb_s_rest_harness_does() -> None:
    """Responses are a prefix; an expected error class matches its subclasses and is held against query
    results only; query rows are a multiset; ``topics`` schemas are registered (with their ids) before the
    statements; undeclared topics get 4 partitions."""
    from ksqlpy.testing.expansion import expand_case
    from ksqlpy.testing.rest import run_rest

    header = {"header": {"schema": "`ID` INTEGER, `V` INTEGER"}}
    rows = [{"row": {"columns": [k, k * 10]}} for k in (3, 1, 2)]  # not the order they were written in
    record = {"type": "record", "name": "Rec", "fields": [{"name": "C1", "type": "int"}]}
    expect_pass = [
        _rules_case("fewer responses than came back", statements=[STREAM, "SELECT * FROM S EMIT CHANGES LIMIT 3;"],
                    responses=[CREATED]),
        _rules_case("rows in any order", statements=[STREAM, "SELECT * FROM S EMIT CHANGES LIMIT 3;"],
                    properties={"auto.offset.reset": "earliest"}, responses=[CREATED, {"query": [header, *rows]}]),
        _rules_case("a statement error matches KsqlErrorMessage",
                    statements=[STREAM, "CREATE STREAM X AS SELECT * FROM NOPE;"],
                    expectedError={"type": "io.confluent.ksql.rest.entity.KsqlErrorMessage",
                                   "message": "NOPE", "status": 400}),
        _rules_case("an expected error without queries is not held against admin responses",
                    expectedError={"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage",
                                   "message": "never raised"}, responses=[CREATED]),
        {"name": "topics schemas are registered before the statements, with their ids",
         "topics": [{"name": "r", "valueFormat": "AVRO", "valueSchema": record, "valueSchemaId": 42}],
         "statements": ["CREATE STREAM R WITH (kafka_topic='r', value_format='AVRO', value_schema_id=42);",
                        "SELECT * FROM R EMIT CHANGES LIMIT 1;"],
         "inputs": [{"topic": "r", "value": {"C1": 5}}], "properties": {"auto.offset.reset": "earliest"},
         "responses": [CREATED, {"query": [{"header": {"schema": "`C1` INTEGER"}}, {"row": {"columns": [5]}}]}]},
        {"name": "an undeclared topic has 4 partitions",
         "statements": ["CREATE STREAM U (ID INT KEY, V INT) WITH (kafka_topic='u', value_format='JSON');",
                        "CREATE TABLE L (ID INT PRIMARY KEY, W INT) WITH (kafka_topic='l', value_format='JSON', "
                        "partitions=1);", "CREATE STREAM J AS SELECT U.ID, V, W FROM U JOIN L ON U.ID = L.ID;"],
         "expectedError": {"message": "`U` partitions = 4; `L` partitions = 1"}},
        _rules_case("output headers are not compared", statements=[STREAM, "CREATE STREAM C AS SELECT * FROM S;"],
                    outputs=[{"topic": "C", "key": k, "value": {"V": k * 10}, "headers": [{"KEY": "h", "VALUE": "IQ=="}]}
                             for k in (1, 2, 3)]),
        {"name": "admin fields are compared whole", "statements": [STREAM],
         "responses": [{"admin": {"@type": "currentStatus", "commandStatus": {
             "status": "SUCCESS", "message": "Stream created", "queryId": None}}}]},
    ]
    expect_fail = [
        _rules_case("more responses than came back", responses=[CREATED, CREATED]),
        _rules_case("an output value differs", statements=[STREAM, "CREATE STREAM C AS SELECT * FROM S;"],
                    outputs=[{"topic": "C", "key": k, "value": {"V": k}} for k in (1, 2, 3)]),
        _rules_case("a nested admin field is not a pattern",
                    responses=[{"admin": {"@type": "currentStatus", "commandStatus": {"status": "SUCCESS"}}}]),
        _rules_case("an expected error not raised while queries returned results",
                    statements=[STREAM, "SELECT * FROM S EMIT CHANGES LIMIT 3;"],
                    properties={"auto.offset.reset": "earliest"},
                    expectedError={"type": "io.confluent.ksql.rest.entity.KsqlErrorMessage", "message": "x"}),
        _rules_case("a row that did not come back", statements=[STREAM, "SELECT * FROM S EMIT CHANGES LIMIT 3;"],
                    properties={"auto.offset.reset": "earliest"},
                    responses=[CREATED, {"query": [header, rows[0], rows[0], rows[1]]}]),
        _rules_case("a generic error class is not a statement error",
                    statements=[STREAM, "CREATE STREAM X AS SELECT * FROM NOPE;"],
                    expectedError={"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage",
                                   "message": "no such text"}),
    ]
    cases = [c for raw in expect_pass + expect_fail for c in expand_case(raw, "mine.json", rest=True)]
    results = run_rest(cases, timeout_s=60)
    got = {r.name: (r.status, r.reason) for r in results}
    for raw in expect_pass:
        assert got[raw["name"]][0] == "passed", (raw["name"], got[raw["name"]][1])
    for raw in expect_fail:
        assert got[raw["name"]][0] == "failed", raw["name"]


def test_the_server_runs_with_earliest_as_ksqldb_s_rest_harness_does() -> None:
    from ksqlpy.testing.expansion import expand_case
    from ksqlpy.testing.rest import run_rest

    header = {"header": {"schema": "`ID` INTEGER, `V` INTEGER"}}
    rows = [{"row": {"columns": [k, k * 10]}} for k in (1, 2, 3)]
    raw = _rules_case("a push query reads what was written before it", responses=[CREATED, {"query": [header, *rows]}],
                      statements=[STREAM, "SELECT * FROM S EMIT CHANGES LIMIT 3;"])
    [result] = run_rest(expand_case(raw, "mine.json", rest=True), timeout_s=60)
    assert result.status == "passed", result.reason
