"""ksqlDB's rule for serving a push query as a scalable one (``server/scalable_push.py``), over the query
as written, the configuration, the request's overrides and the number of queries writing the source."""

from __future__ import annotations

import pytest

from ksqlpy.grammar import parse
from ksqlpy.server.scalable_push import is_scalable

ON = {"ksql.query.push.v2.enabled": "true"}
LATEST = {"auto.offset.reset": "latest"}


def _query(sql: str):  # noqa: ANN202 - an A.Query
    (stmt,) = parse(sql)
    return stmt.query


@pytest.mark.parametrize("sql,config,overrides,writers,expected", [
    ("SELECT * FROM S EMIT CHANGES;", ON, LATEST, 1, True),
    ("SELECT * FROM S EMIT CHANGES;", ON, {}, 1, True),  # nothing set: latest
    ("SELECT * FROM S EMIT CHANGES;", {**ON, "ksql.streams.auto.offset.reset": "earliest"}, {}, 1, False),
    ("SELECT * FROM S EMIT CHANGES;", {**ON, "ksql.streams.auto.offset.reset": "earliest"}, LATEST, 1, True),
    ("SELECT * FROM S EMIT CHANGES;", ON, {"ksql.streams.auto.offset.reset": "LATEST"}, 1, True),
    ("SELECT * FROM S EMIT CHANGES;", ON, {"auto.offset.reset": "earliest"}, 1, False),
    ("SELECT * FROM S EMIT CHANGES;", {}, LATEST, 1, False),  # push v2 off by default
    ("SELECT * FROM S EMIT CHANGES;", ON, {**LATEST, "ksql.query.push.v2.enabled": "false"}, 1, False),
    ("SELECT * FROM S EMIT CHANGES;", ON, LATEST, 0, False),
    ("SELECT * FROM S EMIT CHANGES;", ON, LATEST, 2, False),
    ("SELECT K, V * 2 AS D FROM S WHERE V > 1 EMIT CHANGES LIMIT 3;", ON, LATEST, 1, True),
    ("SELECT V, K FROM S PARTITION BY V EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT K, COUNT(*) FROM S GROUP BY K EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT K, COUNT(*) FROM S WINDOW TUMBLING (SIZE 1 SECOND) GROUP BY K EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT * FROM S JOIN T ON S.K = T.K EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT K, ROWOFFSET FROM S EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT * FROM S WHERE ROWPARTITION = 0 EMIT CHANGES;", ON, LATEST, 1, False),
    ("SELECT K, ROWTIME FROM S EMIT CHANGES;", ON, LATEST, 1, True),
])
def test_scalable_push_rule(sql: str, config: dict, overrides: dict, writers: int, expected: bool) -> None:
    assert is_scalable(_query(sql), config, overrides, writers) is expected
