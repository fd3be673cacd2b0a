"""A push query is planned under the request's property overrides (ksqlDB plans it against the KsqlConfig the
request's streamsProperties overwrite): ``ksql.suppress.enabled`` and ``ksql.lambdas.enabled`` given with the
query refuse it, and they last only for that query."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError

FINAL = "SELECT K, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 10 MILLISECONDS) GROUP BY K EMIT FINAL;"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path))
    e.execute("CREATE STREAM S (K STRING KEY, V INT) WITH (kafka_topic='s', partitions=1, value_format='JSON');")
    yield e
    e.close()


@pytest.mark.parametrize("value", [False, "false", "FALSE"])
def test_suppression_disabled_in_the_request_refuses_emit_final(engine: Engine, value: object) -> None:
    with pytest.raises(KsqlStatementError, match="Suppression is currently disabled"):
        engine.push_query(FINAL, {"ksql.suppress.enabled": value})
    assert engine.request_properties == {}


def test_lambdas_disabled_in_the_request_refuse_a_push_query(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match="Lambdas are not enabled"):
        engine.push_query("SELECT TRANSFORM(ARRAY[V], x => x + 1) AS A FROM S EMIT CHANGES;",
                          {"ksql.lambdas.enabled": False})


def test_the_overrides_last_only_for_their_query(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError):
        engine.push_query(FINAL, {"ksql.suppress.enabled": False})
    tq = engine.push_query(FINAL, {"auto.offset.reset": "earliest"})
    assert tq.query_id.startswith("transient_S_")
    tq.close()
