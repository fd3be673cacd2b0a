"""A backfill's marker groups - the driver's count of committed batches (``_ksqlpy-backfill-<query id>``) and,
when the tasks wrote on Kafka, one group per staged file - serve only a resume: they are deleted when the run
ends, done or rolled back, so nothing is left on the broker (or in the embedded log) and a later statement that
gets the same query id cannot find a stale one. Checked on both logs (the Kafka log on the tansu fixture)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from ksqlpy.backfill.run import drop_markers, marker_groups, resume_group
from ksqlpy.log.embedded import EmbeddedLog


def _groups_on(log: Any, topic: str) -> None:
    """The operations ``drop_markers`` uses, on ``log``: listing groups, deleting them (every partition), and a
    group that does not exist being no error."""
    qid = f"CTAS_M_{uuid.uuid4().hex[:6]}"
    own, per_file = resume_group(qid), f"{resume_group(qid)}-000001-00000000000000000000"
    other, longer = f"app-{uuid.uuid4().hex[:6]}", f"{resume_group(qid)}0-000001-00000000000000000000"
    for group in (own, per_file, other, longer):
        with log.transaction() as tx:
            tx.commit_offsets(group, {(topic, 0): 3, (topic, 1): 5})
    assert {own, per_file, other, longer} <= set(log.groups())
    # (a query id that extends this one - CTAS_M_x0 against CTAS_M_x - is not this run's)
    assert sorted(marker_groups(log, qid)) == sorted([own, per_file])
    log.delete_groups(marker_groups(log, qid))
    assert marker_groups(log, qid) == []
    for p in (0, 1):
        assert log.committed(own, topic, p) is None
        assert log.committed(per_file, topic, p) is None
        assert log.committed(other, topic, p) == (3 if p == 0 else 5)
    log.delete_groups([own, f"never-{uuid.uuid4().hex[:6]}"])  # gone already / never there: no error
    assert log.committed(longer, topic, 1) == 5


def test_embedded_log_lists_and_deletes_groups(tmp_path: Any) -> None:
    log = EmbeddedLog(str(tmp_path))
    try:
        log.create_topic("src", 2)
        _groups_on(log, "src")
    finally:
        log.close()


def test_kafka_log_lists_and_deletes_groups(bootstrap: str) -> None:
    pytest.importorskip("confluent_kafka")
    from ksqlpy.log import open_log

    log = open_log({"bootstrap.servers": bootstrap})
    topic = f"src{uuid.uuid4().hex[:8]}"
    try:
        log.create_topic(topic, 2, 1)
        log.committed(resume_group("x"), topic, 0)  # (this log's own consumer of a group: closed before the delete)
        _groups_on(log, topic)
    finally:
        log.close()


def test_drop_markers_logs_a_failure_and_goes_on(tmp_path: Any, caplog: Any) -> None:
    class Broken:
        def groups(self) -> list[str]:
            raise RuntimeError("broker gone")

    class FakeEngine:
        log = Broken()

    drop_markers(FakeEngine(), "CTAS_X_1")  # type: ignore[arg-type]
    assert "could not delete its marker groups" in caplog.text
