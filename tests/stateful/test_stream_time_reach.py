"""Whose stream time a windowed aggregation judges lateness and closes windows by, in one batch and record by
record: the window processor's own (Kafka Streams' ``observedStreamTime`` in ``KStreamWindowAggregate`` /
``KStreamSessionWindowAggregate``, updated after the null-key check). A record that never reaches it - dropped
by the WHERE filter, grouped by a NULL value, a tombstone, keyless and grouped by the key - moves nothing, even
when the batch that carries it is aggregated at once.

Each rule runs through the aggregation's code paths: EMIT CHANGES (the batch loop), EMIT CHANGES with HAVING
(the generic loop) and EMIT FINAL. ``tests/cases/aggregations/stream-time-scope.json`` has the same rule
record by record, in ksqlDB's test format.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.stateful.conftest import Harness

STREAM = ("CREATE STREAM S (K STRING KEY, G STRING, V INT) WITH (kafka_topic='s', value_format='JSON', "
          "partitions=1);")
WINDOWS = {
    "tumbling": "TUMBLING (SIZE 10 MILLISECONDS, RETENTION 1 HOUR, GRACE PERIOD 0 MILLISECONDS)",
    "hopping": "HOPPING (SIZE 10 MILLISECONDS, ADVANCE BY 5 MILLISECONDS, RETENTION 1 HOUR, "
               "GRACE PERIOD 0 MILLISECONDS)",
    "session": "SESSION (10 MILLISECONDS, RETENTION 1 HOUR, GRACE PERIOD 0 MILLISECONDS)",
}
# probe name -> (GROUP BY column, WHERE, key, value of the record that must not reach the aggregation)
PROBES: dict[str, tuple[str, str, Any, Any]] = {
    "filtered": ("K", " WHERE V > 0", "a", {"G": "a", "V": 0}),
    "null group value": ("G", "", "a", {"G": None, "V": 1}),
    "null value": ("K", "", "a", None),
    "null key": ("K", "", None, {"G": "c", "V": 1}),
}
PATHS = {"changes": "", "having": " HAVING COUNT(*) > 0", "final": " EMIT FINAL"}


def _send(h: Harness, records: list[tuple[Any, Any, int]], one_batch: bool) -> None:
    for key, value, ts in records:
        h.send("s", key, value, ts)
        if not one_batch:
            h.run()
    h.run()


def _row(key: str) -> dict[str, Any]:
    return {"G": key, "V": 1}


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("probe", sorted(PROBES))
@pytest.mark.parametrize("window", sorted(WINDOWS))
def test_a_record_that_never_reaches_the_aggregation_moves_no_stream_time(h: Harness, window: str, probe: str,
                                                                           path: str, one_batch: bool) -> None:
    group_by, where, probe_key, probe_value = PROBES[probe]
    h.sql(STREAM)
    clause = PATHS[path]
    having = clause if path == "having" else ""
    emit = clause if path == "final" else ""
    h.sql(f"CREATE TABLE T AS SELECT {group_by}, COUNT(*) AS C FROM S WINDOW {WINDOWS[window]}{where} "
          f"GROUP BY {group_by}{having}{emit};")
    # 'a' at 5, the probe far ahead (20: within a hour's retention, past every first window's close), 'a' at 6:
    # on time, as the probe moved nothing; under EMIT FINAL 'b' at 17 then closes the first windows
    records = [("a", _row("a"), 5), (probe_key, probe_value, 20), ("a", _row("a"), 6)]
    if path == "final":
        records.append(("b", _row("b"), 17))
    _send(h, records, one_batch)
    rows = [(k[0][0], k[1], k[2], v) for k, v, _ in h.read("T")]
    first = (5, 6) if window == "session" else (0, 10)
    if path == "final":
        # the first windows of 'a' are written once, closed by 'b' at 17, holding both records
        closed = [(0, 10), (5, 15)] if window == "hopping" else [first]
        assert [r for r in rows if r[0] == "a"] == [("a", *w, (2,)) for w in closed]
    else:
        last = {(k, s, e): v for k, s, e, v in rows}
        assert last[("a", *first)] == (2,)
        assert all(k == "a" for k, *_ in rows)


@pytest.mark.parametrize("one_batch", [True, False])
@pytest.mark.parametrize("window", sorted(WINDOWS))
def test_a_record_that_reaches_the_aggregation_moves_stream_time(h: Harness, window: str, one_batch: bool) -> None:
    """The control: a valid record of another key at the probe's time makes the record at 6 late."""
    h.sql(STREAM)
    h.sql(f"CREATE TABLE T AS SELECT K, COUNT(*) AS C FROM S WINDOW {WINDOWS[window]} GROUP BY K;")
    _send(h, [("a", _row("a"), 5), ("c", _row("c"), 20), ("a", _row("a"), 6)], one_batch)
    a_rows = [(k[1], k[2], v) for k, v, _ in h.read("T") if k[0] == ("a",)]
    first = (5, 5) if window == "session" else (0, 10)
    assert (*first, (1,)) in a_rows
    assert all(v == (1,) for _, _, v in a_rows)
