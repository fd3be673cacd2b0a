"""A stream-stream outer join's waiting records are released by their own task's stream time.

Kafka Streams keeps stream time per task, so a LEFT join's unmatched record (with a GRACE PERIOD) waits
until a later record of the *same partition* passes its window and grace; records of other partitions
do not release it. The generated cases in tests/cases/joins/stream-stream-windows.json model one task
(their sources have one partition); this test pins the rule across partitions."""

from __future__ import annotations

import struct
from typing import Any

from ksqlpy.engine.engine import Engine
from ksqlpy.log.partitioner import partition_for_key


def _out(e: Engine) -> list[tuple[int, str]]:
    b = e.log.fetch("OUT", 0, 0, 100)
    return [(struct.unpack(">i", k)[0], v.decode()) for k, v in zip(b.keys, b.values, strict=True)]


def test_a_waiting_left_record_is_released_only_by_its_own_partition(tmp_path: Any) -> None:
    assert partition_for_key(struct.pack(">i", 3), 4) != partition_for_key(struct.pack(">i", 9), 4)
    assert partition_for_key(struct.pack(">i", 3), 4) == partition_for_key(struct.pack(">i", 2), 4)
    with Engine(str(tmp_path), {"auto.offset.reset": "earliest"}) as e:
        e.execute("CREATE STREAM L (K INT KEY, A STRING) WITH (kafka_topic='l', value_format='JSON', partitions=4);")
        e.execute("CREATE STREAM R (K INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', partitions=4);")
        e.execute("CREATE STREAM OUT WITH (PARTITIONS=1) AS SELECT L.K AS K, A, B FROM L LEFT JOIN R "
                  "WITHIN 1 SECOND GRACE PERIOD 2 SECONDS ON L.K = R.K;")
        e.execute("INSERT INTO L (ROWTIME, K, A) VALUES (18500, 3, 'waits');")
        e.execute("INSERT INTO L (ROWTIME, K, A) VALUES (40000, 9, 'other partition');")
        e.drain(10)
        assert _out(e) == []  # key 9's partition has its own stream time
        e.execute("INSERT INTO L (ROWTIME, K, A) VALUES (21501, 2, 'same partition');")
        e.drain(10)
        assert _out(e) == [(3, '{"A":"waits","B":null}')]
