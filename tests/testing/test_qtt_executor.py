"""Running cases through the executor against the fake engine, including mutation checks: a case
that passes must fail once any one expected thing is changed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from qtt_fake_engine import FakeEngine, factory

from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case
from ksqlpy.testing.model import Case
from ksqlpy.testing.report import CaseResult

SOURCE = "CREATE STREAM SRC (K STRING KEY, NAME STRING, N INT) WITH (kafka_topic='src', value_format='JSON');"
SINK = "CREATE STREAM OUT AS SELECT * FROM SRC;"


def copy_case(**extra: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": "copy with upper-cased fields",
        "statements": [SOURCE, SINK],
        "inputs": [
            {"topic": "src", "key": "a", "value": {"name": "x", "n": 1.5}, "timestamp": 7,
             "headers": [{"KEY": "h", "VALUE": "IQ=="}]},
            {"topic": "src", "key": "b", "value": None, "timestamp": 8},
        ],
        "outputs": [
            {"topic": "OUT", "key": "a", "value": {"NAME": "x", "N": 1.5}, "timestamp": 7,
             "headers": [{"KEY": "h", "VALUE": "IQ=="}]},
            {"topic": "OUT", "key": "b", "value": None, "timestamp": 8},
        ],
        "post": {"sources": [{"name": "OUT", "type": "stream", "schema": "K STRING KEY, NAME VARCHAR, N INT",
                              "keyFormat": {"format": "KAFKA"}, "valueFormat": "JSON"}],
                 "topics": {"blacklist": ".*-repartition", "topics": [{"name": "OUT", "partitions": 1}]}},
    }
    raw.update(extra)
    return raw


def run(raw: dict[str, Any], **kw: Any) -> CaseResult:
    [case] = expand_case(raw, "mine.json")
    return run_case(case, factory, timeout_s=30, **kw)


def test_copy_case_passes() -> None:
    result = run(copy_case())
    assert result.status == "passed", result.reason


MUTATIONS = {
    "value": lambda r: r["outputs"][0]["value"].update(NAME="y"),
    "decimal scale": lambda r: r["outputs"][0]["value"].update(N=__import__("decimal").Decimal("1.50")),
    "key": lambda r: r["outputs"][0].update(key="z"),
    "timestamp": lambda r: r["outputs"][1].update(timestamp=9),
    "headers": lambda r: r["outputs"][0].update(headers=[]),
    "tombstone": lambda r: r["outputs"][1].update(value={}),
    "missing record": lambda r: r["outputs"].append({"topic": "OUT", "key": "c", "value": None}),
    "extra record": lambda r: r["outputs"].pop(),
    "wrong topic": lambda r: r["outputs"][0].update(topic="NOPE"),
    "schema": lambda r: r["post"]["sources"][0].update(schema="K STRING KEY, NAME VARCHAR, N BIGINT"),
    "source type": lambda r: r["post"]["sources"][0].update(type="table"),
    "key format": lambda r: r["post"]["sources"][0].update(keyFormat={"format": "JSON"}),
    "missing source": lambda r: r["post"]["sources"][0].update(name="GONE"),
    "partitions": lambda r: r["post"]["topics"]["topics"][0].update(partitions=3),
    "blacklist": lambda r: r["post"]["topics"].update(blacklist="OU.*"),
    "expected error": lambda r: r.update(expectedException={"type": "io.confluent.ksql.util.KsqlException",
                                                            "message": "x"}),
}


@pytest.mark.parametrize("what", sorted(MUTATIONS))
def test_any_mutation_of_a_passing_case_fails(what: str) -> None:
    raw = copy.deepcopy(copy_case())
    MUTATIONS[what](raw)
    result = run(raw)
    assert result.status == "failed", f"mutating {what} still {result.status}"


def test_each_input_is_processed_before_the_next() -> None:
    engines: list[FakeEngine] = []

    def keep(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engines.append(FakeEngine(data_dir, props))
        return engines[-1]

    other = "CREATE STREAM SRC2 (K STRING KEY, N INT) WITH (kafka_topic='src2', value_format='JSON');"
    raw = copy_case(statements=[SOURCE, other, SINK], post=None, inputs=[
        {"topic": "src", "key": "a", "value": {"n": 1}},
        {"topic": "src", "key": "b", "value": {"n": 2}},
        {"topic": "src2", "key": "c", "value": {"n": 3}},
        {"topic": "src", "key": "d", "value": {"n": 4}},
    ])
    del raw["outputs"]
    [case] = expand_case(raw, "mine.json")
    assert run_case(case, keep).status == "passed"
    assert engines[0].drains == 4  # an engine that cannot be fed query by query: a drain per input


def test_properties_reach_the_engine_and_topics_are_precreated() -> None:
    seen: dict[str, Any] = {}

    def spy(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engine = FakeEngine(data_dir, props)
        seen["properties"] = engine.properties
        close = engine.close

        def close_and_remember() -> None:
            seen["topics"] = {t.name: t.partitions for t in engine.log.list_topics()}
            close()

        engine.close = close_and_remember  # type: ignore[method-assign]
        return engine

    raw = copy_case(properties={"ksql.persistence.wrap.single.values": "false"},
                    topics=[{"name": "extra", "partitions": 3}])
    [case] = expand_case(raw, "mine.json")
    assert run_case(case, spy, extra_properties={"x.y": 1}).status == "passed"
    # as ksqlDB's TestExecutor: its service id, and the record cache off (every aggregation update expected);
    # the topics fed from ``inputs`` (the others are read whole, as pipeRecordsFromKafka does); a wall clock
    # that never moves (the driver's mock clock)
    assert seen["properties"] == {"ksql.service.id": "some.ksql.service.id",
                                  "ksql.streams.cache.max.bytes.buffering": 0,
                                  "ksql.persistence.wrap.single.values": "false", "x.y": 1,
                                  "ksqlpy.testing.input.topics": "src", "ksqlpy.testing.wall.clock.frozen": "true"}
    # the harness's count for topics the case gives none (see harness_partitions)
    assert seen["topics"]["extra"] == 3 and seen["topics"]["src"] == 4


def exc_case(statement: str, type_: str, message: str, inputs: list[Any] | None = None) -> dict[str, Any]:
    return {"name": "err", "statements": [SOURCE, statement], "inputs": inputs or [],
            "expectedException": {"type": type_, "message": message}}


PARSE = "io.confluent.ksql.parser.exception.ParseFailedException"
STATEMENT = "io.confluent.ksql.util.KsqlStatementException"
STREAMS = "org.apache.kafka.streams.errors.StreamsException"


def test_expected_exceptions_match_category_and_contained_message() -> None:
    assert run(exc_case("BOOM;", PARSE, "mismatched input 'BOOM'")).status == "passed"
    assert run(exc_case("BOOM;", STATEMENT, "mismatched input")).status == "passed"  # parse errors are statement errors
    assert run(exc_case("FAIL;", STATEMENT, "failed on purpose")).status == "passed"
    assert run(exc_case("FAIL;", PARSE, "failed on purpose")).status == "failed"  # wrong category
    assert run(exc_case("FAIL;", STATEMENT, "Failed On Purpose")).status == "failed"  # no normalization
    result = run(exc_case(SINK, STATEMENT, "anything"))
    assert result.status == "failed" and "nothing failed" in result.reason


def test_processing_errors_match_streams_exception() -> None:
    boom = [{"topic": "src", "key": "a", "value": {"explode": 1}}]
    raw = exc_case(SINK, STREAMS, "Exception caught in process", boom)
    assert run(raw).status == "passed"
    raw["expectedException"]["causeMessage"] = "value exploded"
    assert run(raw).status == "passed"  # the cause stands in for Kafka Streams' wrapper, which we do not write
    raw["expectedException"]["message"] = "some other wrapper text"
    assert run(raw).status == "failed"  # but the message must still be that wrapper's
    assert run(exc_case(SINK, STATEMENT, "Exception caught", boom)).status == "failed"


def test_a_statement_error_is_expected_of_the_last_statement() -> None:
    # ksqlDB's matcher for KsqlStatementException (and ParseFailedException, a subclass) compares the
    # exception's statement with the case's last statement
    raw = exc_case("FAIL;", STATEMENT, "failed on purpose")
    raw["statements"] = ["FAIL;", SOURCE]
    result = run(raw)
    assert result.status == "failed" and "not of the last statement" in result.reason
    raw["statements"] = ["BOOM;", SOURCE]
    raw["expectedException"] = {"type": PARSE, "message": "mismatched input"}
    assert run(raw).status == "failed"
    # a KsqlException is matched by instanceOf alone
    raw["statements"] = ["FAIL;", SOURCE]
    raw["expectedException"] = {"type": "io.confluent.ksql.util.KsqlException", "message": "failed on purpose"}
    assert run(raw).status == "passed"


def test_an_expected_exception_without_a_type_matches_any_error_by_its_message() -> None:
    raw = exc_case("FAIL;", STATEMENT, "failed on purpose")
    del raw["expectedException"]["type"]
    assert run(raw).status == "passed"  # a statement's error
    boom = [{"topic": "src", "key": "a", "value": {"explode": 1}}]
    raw = exc_case(SINK, STREAMS, "exploded", boom)
    del raw["expectedException"]["type"]
    assert run(raw).status == "passed"  # a processing error
    raw["expectedException"]["message"] = "imploded"
    result = run(raw)
    assert result.status == "failed" and "Throwable" in result.group  # the message must still be there
    quiet = exc_case(SINK, STATEMENT, "anything")
    del quiet["expectedException"]["type"]
    result = run(quiet)
    assert result.status == "failed" and "an error containing 'anything', but nothing failed" in result.reason
    neither = exc_case("FAIL;", STATEMENT, "x")
    neither["expectedException"] = {}
    [case] = expand_case(neither, "mine.json")
    assert case.error and "needs a type or a message" in case.error


def test_an_error_logged_and_skipped_does_not_match_a_streams_exception() -> None:
    # ksqlDB's query stops (Kafka Streams throws); an engine that logs and goes on has not thrown
    raw = exc_case(SINK, STREAMS, "complained", [{"topic": "src", "key": "a", "value": {"complain": 1}}])
    result = run(raw)
    assert result.status == "failed" and "processing log" in result.reason
    assert "logged and skipped" in result.group


def test_engine_errors_fail_with_grouped_reasons_unsupported_ones_too() -> None:
    # ksqlDB's harness sees a refusal whatever our engine calls it: an ``Unsupported:`` error is a failure
    result = run({"name": "n", "statements": ["NEEDS something;"]})
    assert result.status == "failed" and "Unsupported: a feature the fake does not have" in result.reason
    result = run({"name": "n", "statements": ["FAIL now;"]})
    assert result.status == "failed" and result.group.startswith("statement error: KsqlStatementError")


def test_engine_crashes_and_timeouts_are_failures_not_crashes_of_the_runner() -> None:
    def broken(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engine = FakeEngine(data_dir, props)
        engine.execute = lambda sql: 1 / 0  # type: ignore[method-assign]
        return engine

    [case] = expand_case(copy_case(), "mine.json")
    result = run_case(case, broken)
    assert result.status == "failed" and "ZeroDivisionError" in result.reason

    def slow(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engine = FakeEngine(data_dir, props)
        engine.drain = lambda timeout_s=10.0: __import__("time").sleep(5)  # type: ignore[method-assign]
        return engine

    result = run_case(case, slow, timeout_s=0.3)
    assert result.status == "failed" and result.group == "timeout"


def test_windowed_and_delimited_inputs_are_serialized_for_the_source() -> None:
    stmts = ["CREATE TABLE W (K INT PRIMARY KEY, V STRING) WITH (kafka_topic='w', value_format='DELIMITED', "
             "window_type='tumbling', window_size='1000');",
             "CREATE TABLE WOUT AS SELECT * FROM W;"]
    win = {"start": 1000, "end": 2000, "type": "time"}
    raw = {"name": "w", "statements": stmts,
           "inputs": [{"topic": "w", "key": 5, "value": "hello", "window": win}],
           "outputs": [{"topic": "WOUT", "key": 5, "value": "hello", "window": win}]}
    assert run(raw).status == "passed"
    raw["outputs"][0]["window"] = {"start": 0, "end": 1000, "type": "time"}
    assert run(raw).status == "failed"


def test_skipped_and_malformed_cases_do_not_start_an_engine() -> None:
    def never(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        raise AssertionError("engine started")

    skipped = Case(file="f", name="n", skip_reason="because")
    assert run_case(skipped, never).status == "skipped"
    broken = Case(file="f", name="n", error="malformed case: x")
    assert run_case(broken, never).status == "failed"


def test_mutation_helper_changes_what_the_case_checks() -> None:
    from ksqlpy.testing.mutation import mutate

    [case] = expand_case(copy_case(), "mine.json")
    mutant, what = mutate(case)  # type: ignore[misc]
    assert what == "outputs[0].value.NAME" and mutant.outputs[0].value["NAME"] == "x<mutated>"
    assert case.outputs[0].value["NAME"] == "x"  # the original is untouched
    assert run_case(mutant, factory).status == "failed"
    [err] = expand_case(exc_case("FAIL;", STATEMENT, "failed on purpose"), "mine.json")
    mutant, what = mutate(err)  # type: ignore[misc]
    assert what == "expectedException.message" and run_case(mutant, factory).status == "failed"
    # with both an expected error and outputs, the error is what is judged: it is the one mutated
    both = copy_case(expectedException={"type": STATEMENT, "message": "failed on purpose"})
    [both_case] = expand_case(both, "mine.json")
    assert mutate(both_case)[1] == "expectedException.message"  # type: ignore[index]
    assert mutate(Case(file="f", name="n")) is None


def test_statements_keep_their_line_in_the_case_script() -> None:
    engines: list[FakeEngine] = []

    def keep(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engines.append(FakeEngine(data_dir, props))
        return engines[-1]

    raw = {"name": "lines", "statements": [SOURCE.replace("WITH", "\nWITH"), SINK, "BOOM;"],
           "expectedException": {"type": PARSE, "message": "line 4:1"}}
    [case] = expand_case(raw, "mine.json")
    assert run_case(case, keep).status == "passed"
    assert [text.count("\n") for text in engines[0].executed] == [1, 2, 3]


def test_processing_log_errors_are_named_but_do_not_count_as_streams_exceptions() -> None:
    class Logged:
        entries = [{"message": {"type": 1, "recordProcessingError": {"errorMessage": "Numeric field overflow"}}}]

    def with_log(data_dir: str, props: dict[str, Any]) -> FakeEngine:
        engine = FakeEngine(data_dir, props)
        engine.plog = Logged()  # type: ignore[attr-defined]
        return engine

    raw = exc_case(SINK, STREAMS, "Exception caught in process", [{"topic": "src", "key": "a", "value": {"n": 1}}])
    raw["expectedException"]["causeMessage"] = "Numeric field overflow"
    [case] = expand_case(raw, "mine.json")
    logged = run_case(case, with_log)
    assert logged.status == "failed" and "Numeric field overflow" in logged.reason  # logged, the query went on
    assert run_case(case, factory).status == "failed"
    bad = copy.deepcopy(copy_case())
    bad["outputs"][0]["value"]["NAME"] = "other"
    [case] = expand_case(bad, "mine.json")
    result = run_case(case, with_log)
    assert result.status == "failed" and "processing log: Numeric field overflow" in result.reason


def test_cases_without_expectations_pass_but_say_nothing_was_checked() -> None:
    result = run(copy_case(post=None, outputs=[]))
    assert result.status == "passed" and result.reason.startswith("nothing checked")
    assert run(copy_case()).reason == ""
