"""EARLIEST/LATEST_BY_OFFSET order values by a sequence number taken as each value arrives, and compare
those numbers when session windows merge. A backfill takes them in Spark's worker processes and the
streaming query goes on taking them in the server's: a value that arrives after the hand-off must still
count as later than every backfilled one (found by ``ksqlpy test --backfill-differential``'s live inputs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.backfill import collapse, sink
from ksqlpy.backfill import backfill
from tests.backfill.conftest import make_engine, produce, streamed

pytestmark = pytest.mark.slow

DDL = "CREATE STREAM s (k STRING KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);"
SQL = ("CREATE TABLE o AS SELECT k, LATEST_BY_OFFSET(v) AS lv, EARLIEST_BY_OFFSET(v) AS ev, "
       "LATEST_BY_OFFSET(v, 2) AS l2 FROM s WINDOW SESSION (10 SECONDS) GROUP BY k EMIT CHANGES;")


def _r(v: int, ts: int) -> tuple[int, bytes, bytes, int]:
    return 0, b"a", json.dumps({"V": v}).encode(), ts


def test_a_live_value_merged_into_backfilled_sessions_is_the_latest(tmp_path: Any, spark: Any) -> None:
    history = [_r(1, 1_000)]  # a session of key a, backfilled
    live = [_r(2, 20_000), _r(3, 10_500)]  # a second session, then a record within the gap of both: one session
    ref = streamed(str(tmp_path / "streaming"), DDL, history, "s", SQL)
    produce(ref, "s", live)
    ref.drain()
    eng = make_engine(str(tmp_path / "backfill"), DDL, history, "s")
    backfill(eng, SQL, spark=spark)
    produce(eng, "s", live)
    eng.drain()
    want = collapse(sink(ref, "O"))
    assert [json.loads(v) for v, _ in want.values()] == [{"LV": 3, "EV": 1, "L2": [2, 3]}]
    assert collapse(sink(eng, "O")) == want
