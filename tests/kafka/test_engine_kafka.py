"""The engine on a KafkaLog with tasks in its own process (``Engine.drain``), both guarantees."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("confluent_kafka")

from kafka_workload import Workload, duplicates, final_table, lost_updates, new_suffix, read_updates  # noqa: E402

from ksqlpy.engine import Engine  # noqa: E402


@pytest.mark.parametrize("guarantee", ["at_least_once", "exactly_once_v2"])
def test_inline_engine_on_kafka(tmp_path: Path, bootstrap: str, guarantee: str) -> None:
    wl = Workload(new_suffix(), n=2000)
    engine = Engine(str(tmp_path), {"bootstrap.servers": bootstrap, "auto.offset.reset": "earliest",
                                    "ksql.service.id": f"in{new_suffix()}_", "processing.guarantee": guarantee,
                                    "cache.max.bytes.buffering": 0,  # every update goes out: all are checked
                                    # tansu shows aborted records: exactly-once only as accepted at-least-once
                                    "ksqlpy.processing.guarantee.accept.at.least.once": "true"})
    try:
        assert (engine.log.transactional_id is not None) == (guarantee == "exactly_once_v2")
        for sql in wl.statements():
            engine.execute(sql)
        tasks = [t for q in engine.queries.values() for t in q.tasks if hasattr(t, "commit_interval_s")]
        # a Kafka commit is a round trip: inline tasks commit per interval (Kafka Streams' defaults)
        assert tasks and {t.commit_interval_s for t in tasks} == {2.0 if guarantee == "at_least_once" else 0.1}
        wl.produce(engine.log, 0, wl.n)
        engine.drain(60)
        updates = read_updates(engine.log, wl.sink)
        assert final_table(updates) == wl.expected()
        assert duplicates(updates, wl.expected()) == 0 and lost_updates(updates, wl.expected()) == 0
    finally:
        engine.close()


def test_counts_the_broker_refuses_fail_the_statement_in_ksqldbs_words(tmp_path: Path, bootstrap: str) -> None:
    """On Kafka as on the embedded log (log.topic_names): the topic client's 'Failed to guarantee existence'
    with the broker's reason; nothing is created. -1 leaves the counts to the broker."""
    from ksqlpy.errors import KsqlError

    suffix = new_suffix()
    engine = Engine(str(tmp_path), {"bootstrap.servers": bootstrap, "ksql.service.id": f"tc{suffix}_"})
    try:
        for counts, reason in (("partitions=0", "Number of partitions was set to an invalid non-positive value."),
                               ("partitions=1, replicas=0", "Replication factor must be larger than 0, or -1 to use "
                                                            "the default\n\tvalue.")):
            with pytest.raises(KsqlError) as err:
                engine.execute(f"CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n{suffix}', "
                               f"value_format='JSON', {counts});")
            assert str(err.value) == f"Failed to guarantee existence of topic n{suffix}\nCaused by: {reason}"
            assert not engine.log.topic_exists(f"n{suffix}") and engine.catalog.source("N") is None
        engine.execute(f"CREATE STREAM N (ID INT KEY, V INT) WITH (kafka_topic='n{suffix}', value_format='JSON', "
                       "partitions=-1, replicas=-1);")
        made = engine.log.describe_topic(f"n{suffix}")
        assert made is not None and made.partitions >= 1 and made.replicas >= 1
    finally:
        engine.close()
