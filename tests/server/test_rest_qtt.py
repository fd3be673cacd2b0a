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
                           "value_format='JSON', partitions=1);",
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
