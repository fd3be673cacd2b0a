"""ksql.fail.on.deserialization.error: a record that cannot be read is logged and skipped by default; with
the property true the query stops on it (Kafka Streams' LogAndFailExceptionHandler), after the entry."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlRuntimeError
from ksqlpy.log.base import ProducerRecord


def _engine(tmp_path: Path, props: dict, key: bytes = b'"a"', join: bool = False) -> Engine:
    engine = Engine(str(tmp_path), {"auto.offset.reset": "earliest", **props})
    engine.execute("CREATE STREAM ev (k STRING KEY, n INT) WITH (kafka_topic='ev', format='JSON', partitions=1);")
    if join:
        engine.execute("CREATE TABLE t (k STRING PRIMARY KEY, m INT) WITH (kafka_topic='t', format='JSON', "
                       "partitions=1);")
        engine.execute("CREATE STREAM out AS SELECT ev.k AS k, n, m FROM ev LEFT JOIN t ON ev.k = t.k;")
    else:
        engine.execute("CREATE STREAM out AS SELECT k, n FROM ev;")
    with engine.log.transaction() as tx:
        for k, v in ((b'"a"', b'{"N": 1}'), (key, b'{"N": "x"}'), (b'"a"', b'{"N": 3}')):
            tx.produce(ProducerRecord("ev", k, v, 0, None))
    return engine


def _out(engine: Engine) -> list:
    return [orjson.loads(v)["N"] for v in engine.log.fetch("OUT", 0, 0, 10).values]


def _logged(engine: Engine) -> list[str]:
    return [e["message"]["deserializationError"]["target"] for e in engine.plog.entries]


@pytest.mark.parametrize("join", [False, True])
def test_default_logs_and_skips(tmp_path: Path, join: bool) -> None:
    engine = _engine(tmp_path, {}, join=join)
    try:
        engine.drain()
        assert _out(engine) == [1, 3] and _logged(engine) == ["value"]
    finally:
        engine.close()


@pytest.mark.parametrize(("key", "target", "join"), [(b'"a"', "value", False), (b"{", "key", False),
                                                      (b'"a"', "value", True)])
def test_fail_on_deserialization_error_stops_the_query(tmp_path: Path, key: bytes, target: str, join: bool) -> None:
    engine = _engine(tmp_path, {"ksql.fail.on.deserialization.error": "true"}, key, join=join)
    try:
        with pytest.raises(KsqlRuntimeError, match="Deserialization exception handler is set to fail upon a "
                           "deserialization error"):
            engine.drain()
        assert 3 not in _out(engine) and _logged(engine)[:1] == [target]
    finally:
        engine.close()
