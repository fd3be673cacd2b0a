"""An expected error that never came: ksqlDB's REST harness fails the case only when queries returned results
(so ``ksqlpy test --rest`` on ksqlDB's files does the same); ``strict_errors``, which our own REST files run
with, fails it whatever ran - an error case of ours cannot pass by meeting no error."""

from __future__ import annotations

import pytest

from ksqlpy.testing.expansion import expand_file
from ksqlpy.testing.report import FAILED, PASSED
from ksqlpy.testing.rest import run_rest

pytestmark = pytest.mark.slow

_NO_ERROR = {
    "name": "expects an error that a succeeding statement never raises",
    "statements": ["CREATE STREAM S (K INT KEY, V STRING) WITH (kafka_topic='s', value_format='JSON', "
                   "partitions=1);"],
    "expectedError": {"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage",
                      "message": "does not exist", "status": 400},
}
_ERROR = {
    "name": "expects the error a failing statement raises",
    "statements": ["CREATE STREAM B AS SELECT * FROM NOPE;"],
    "expectedError": {"type": "io.confluent.ksql.rest.entity.KsqlStatementErrorMessage",
                      "message": "NOPE does not exist", "status": 400},
}


def test_unmet_error_without_queries_passes_as_in_ksqldbs_harness_and_fails_when_strict() -> None:
    cases = expand_file({"tests": [_NO_ERROR, _ERROR]}, "errors.json", rest=True)
    lenient = run_rest(cases, timeout_s=60)
    strict = run_rest(cases, timeout_s=60, strict_errors=True)
    assert [r.status for r in lenient] == [PASSED, PASSED]
    assert [r.status for r in strict] == [FAILED, PASSED]
    assert "but every statement succeeded" in strict[0].reason
