"""An input the harness's own serdes cannot write fails the case, whatever the case expects: ksqlDB's
harness coerces each record to its topic's schema before writing it and stops with an AssertionError
(from memory), which no expectedException matches. Before, the refusal surfaced as a "harness error"."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.testing.executor import run_case
from ksqlpy.testing.expansion import expand_case
from ksqlpy.testing.report import FAILED, PASSED


def avro_case(value: Any, **extra: Any) -> dict[str, Any]:
    return {
        "name": "avro input",
        "statements": ["CREATE STREAM S (ID INT KEY, V INT) WITH (kafka_topic='s', value_format='AVRO');",
                       "CREATE STREAM O AS SELECT ID, V FROM S;"],
        "inputs": [{"topic": "s", "key": 1, "value": {"V": 1}}, {"topic": "s", "key": 2, "value": value}],
        "outputs": [{"topic": "O", "key": 1, "value": {"V": 1}}, {"topic": "O", "key": 2, "value": {"V": 2}}],
        **extra,
    }


@pytest.fixture(scope="module")
def factory() -> Any:
    try:
        from ksqlpy.testing.cli import default_factory

        return default_factory()
    except ImportError as e:
        pytest.skip(f"engine not available: {e}")


def test_an_input_that_fits_is_written(factory: Any) -> None:
    (case,) = expand_case(avro_case({"V": 2}), "f.json")
    assert run_case(case, factory).status == PASSED


@pytest.mark.parametrize("extra", [{}, {"expectedException": {
    "type": "org.apache.kafka.streams.errors.StreamsException", "message": "Exception caught in process"}}])
def test_an_input_the_harness_cannot_write_fails_the_case(factory: Any, extra: dict[str, Any]) -> None:
    (case,) = expand_case(avro_case({"V": "not a number"}, **extra), "f.json")
    result = run_case(case, factory)
    assert result.status == FAILED
    assert result.group == "input not serializable"
    assert result.reason.startswith("input 2 (s): the harness cannot write it")
