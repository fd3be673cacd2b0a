"""The runner's self-check (``--mutate``): one mutant per thing ksqlDB's TestExecutor checks of an expected
record, each of which must fail where the original case passes."""

from __future__ import annotations

from typing import Any

from qtt_fake_engine import factory
from test_qtt_executor import SINK, SOURCE, STATEMENT, exc_case

from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case
from ksqlpy.testing.model import Case
from ksqlpy.testing.mutation import mutants


def one(raw: dict[str, Any]) -> Case:
    [case] = expand_case(raw, "mine.json")
    return case


def two_updates_of_one_key() -> dict[str, Any]:
    return {
        "name": "two records of key a",
        "statements": [SOURCE, SINK],
        "inputs": [{"topic": "src", "key": "a", "value": {"name": "x", "n": 1}, "timestamp": 7},
                   {"topic": "src", "key": "a", "value": {"name": "y", "n": 2}, "timestamp": 8}],
        "outputs": [{"topic": "OUT", "key": "a", "value": {"NAME": "x", "N": 1}, "timestamp": 7},
                    {"topic": "OUT", "key": "a", "value": {"NAME": "y", "N": 2}, "timestamp": 8}],
    }


def test_each_checked_part_of_a_record_gets_a_mutant_and_every_mutant_fails() -> None:
    case = one(two_updates_of_one_key())
    assert run_case(case, factory).status == "passed"
    made = mutants(case)
    assert [what for _, what in made] == [
        "outputs[0].value.NAME", "outputs[1].key", "outputs[1].value.NAME", "outputs[1].timestamp",
        "outputs[1] dropped", "outputs[0] and [1] swapped"]
    for mutant, what in made:
        assert run_case(mutant, factory).status == "failed", f"mutating {what} still passes"
    assert case.outputs[1].value == {"NAME": "y", "N": 2} and len(case.outputs) == 2  # original untouched


def test_no_mutant_changes_what_the_runner_rightly_leaves_unchecked() -> None:
    raw = two_updates_of_one_key()
    raw["inputs"] = []  # records from INSERT VALUES: an expected timestamp 0 is not compared
    raw["outputs"] = [{"topic": "OUT", "key": "a", "value": {"N": 1}, "timestamp": 0,
                       "window": {"start": 0, "end": 10, "type": "time"}}]
    made = [what for _, what in mutants(one(raw))]
    # one record: nothing to drop (a topic expected with no records is not checked) or swap
    assert made == ["outputs[0].value.N", "outputs[0].key", "outputs[0].window.end"]
    raw["outputs"][0]["timestamp"] = 5
    assert "outputs[0].timestamp" in [what for _, what in mutants(one(raw))]
    # records of different keys may sit in different partitions: their order is not swapped
    raw = two_updates_of_one_key()
    raw["outputs"][1]["key"] = "b"
    assert not any("swapped" in what for _, what in mutants(one(raw)))
    # nor records that differ only in a field one of them gives (it may lie outside the sink's schema,
    # where the runner ignores it, as ksqlDB reads an expected record)
    raw = two_updates_of_one_key()
    raw["outputs"][0]["value"] = {"NAME": None, "N": None, "EXTRA": 1}
    raw["outputs"][1]["value"] = {"NAME": None, "N": None}
    raw["outputs"][1]["timestamp"] = 7
    assert not any("swapped" in what for _, what in mutants(one(raw)))
    raw["outputs"][1]["timestamp"] = 8
    assert any("swapped" in what for _, what in mutants(one(raw)))


def test_a_case_expecting_an_error_is_mutated_in_its_message_only() -> None:
    raw = exc_case("FAIL;", STATEMENT, "failed on purpose")
    raw["outputs"] = two_updates_of_one_key()["outputs"]  # not checked once the error is matched
    assert [what for _, what in mutants(one(raw))] == ["expectedException.message"]
    assert mutants(Case(file="f", name="n")) == []


def test_a_mutated_number_is_another_double_however_large() -> None:
    # ksqlDB compares a DOUBLE as a double: 3.0744573456182584E18 plus one is the same double, so a
    # mutant of it could never fail
    raw = two_updates_of_one_key()
    for n in ("3.0744573456182584E18", "-1.5E300", "0", "4611686018427387904", "0.5"):
        raw["outputs"] = [{"topic": "OUT", "key": "a", "value": {"AVG": json_number(n)}}]
        mutant, what = mutants(one(raw))[0]
        assert what == "outputs[0].value.AVG"
        assert float(mutant.outputs[0].value["AVG"]) != float(n)


def json_number(text: str) -> Any:
    from ksqlpy.testing.exactjson import loads

    return loads(text)
