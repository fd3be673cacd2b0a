"""Errors found while planning a query's physical form quote the statement as ksqlDB prints it after
analysis: columns qualified, every item named, one clause per line, EMIT CHANGES."""

from __future__ import annotations

from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError


@pytest.fixture
def engine(tmp_path: Path):  # type: ignore[no-untyped-def]
    e = Engine(str(tmp_path), {"auto.offset.reset": "earliest"})
    e.execute("CREATE STREAM clicks (uid INT KEY, page STRING, ms DECIMAL(4, 1)) "
              "WITH (kafka_topic='clicks', value_format='JSON', partitions=1);")
    yield e
    e.close()


def test_a_key_the_kafka_format_cannot_hold_quotes_the_planned_statement(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError) as info:
        engine.execute("CREATE TABLE per_page WITH (kafka_topic='pp') AS SELECT page, uid, COUNT(*), "
                       "LEN(page) * 2 AS l2 FROM clicks c WHERE ms > 1 GROUP BY uid, page HAVING COUNT(*) > 1;")
    msg = info.value.message
    assert msg.startswith("Key format does not support schema.\nformat: KAFKA\n")
    assert msg.endswith(
        "\nStatement: CREATE TABLE PER_PAGE WITH (KAFKA_TOPIC='pp') AS SELECT\n"
        "  C.PAGE PAGE,\n  C.UID UID,\n  COUNT(*) KSQL_COL_0,\n  (LEN(C.PAGE) * 2) L2\n"
        "FROM CLICKS C\nWHERE (C.MS > 1)\nGROUP BY C.UID, C.PAGE\nHAVING (COUNT(*) > 1)\nEMIT CHANGES")


def test_lambda_parameters_stay_unqualified(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError) as info:
        engine.execute("CREATE TABLE t AS SELECT ms AS k, COUNT(*) AS n, "
                       "TRANSFORM(COLLECT_LIST(page), x => UCASE(x)) AS up FROM clicks GROUP BY ms;")
    assert "\n  TRANSFORM(COLLECT_LIST(CLICKS.PAGE), (X) => UCASE(X)) UP\nFROM CLICKS CLICKS\n" in info.value.message
