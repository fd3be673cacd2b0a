"""``ksqlpy.workers.nice``: worker processes run at the engine process's priority plus the increment (so a
request the engine's process serves gets a core before a busy worker), checked where the property is set."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError

SQL = """
CREATE STREAM s (id INT KEY, v INT) WITH (kafka_topic='s', partitions=2, value_format='JSON');
CREATE TABLE t AS SELECT id, COUNT(*) AS n FROM s GROUP BY id;
"""


def _worker_nices(engine: Engine) -> list[int]:
    [q] = [q for q in engine.queries.values() if q.workers is not None]
    pids = [w.process.pid for w in q.workers.workers]
    assert pids
    return [os.getpriority(os.PRIO_PROCESS, pid) for pid in pids]


@pytest.mark.parametrize("nice", [None, "7"])
def test_worker_processes_run_at_the_increment(tmp_path: Path, nice: str | None) -> None:
    props = {"ksqlpy.workers": "process", "ksqlpy.workers.spares": "0",
             **({"ksqlpy.workers.nice": nice} if nice is not None else {})}
    with Engine(str(tmp_path), props) as engine:
        engine.execute(SQL)
        engine.execute("INSERT INTO s (id, v) VALUES (1, 1);")
        engine.drain(60)  # the workers have taken their spec (and their priority) and processed the row
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        want = min(19, mine + int(nice or 0))
        # a worker takes its priority with its spec; one whose partitions got no row may take it after the
        # drain returned (CI saw [7, 0] once) - wait for each, bounded
        deadline = time.monotonic() + 60
        while any(n != want for n in _worker_nices(engine)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _worker_nices(engine) == [want] * len(_worker_nices(engine))
        assert [list(r) for r in engine.execute("SELECT * FROM t WHERE id = 1;")[0].data["rows"]] == [[1, 1]]


@pytest.mark.parametrize(("value", "reason"), [("-1", "Value must be at least 0"), ("low", "Not a number of type INT")])
def test_a_bad_value_is_refused_where_it_is_set(tmp_path: Path, value: str, reason: str) -> None:
    with Engine(str(tmp_path), {}) as engine, pytest.raises(KsqlError) as e:
        engine.execute(f"SET 'ksqlpy.workers.nice' = '{value}';")
    assert str(e.value) == f"Invalid value {value} for configuration ksqlpy.workers.nice: {reason}"
