"""kill -9 of the server that processes a partition: with a standby replica its keys are answered again
within ``session.timeout.ms`` + 2 s (measured); without one, the time until the new owner answers (the
group's session timeout, the rebalance and the restore of the partition's state) is measured too. After
the failover the table still holds every key's true values: no update lost."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import httpx
import pytest

pytest.importorskip("confluent_kafka")

from cluster_helpers import (  # noqa: E402
    SESSION_TIMEOUT_MS,
    active_map,
    cluster,
    cluster_status,
    ksql,
    produce,
    pull,
    restores,
    wait_until,
)
from test_cluster_kafka import KEYS, PARTITIONS, expected, records  # noqa: E402

from ksqlpy.log.partitioner import partition_for_key  # noqa: E402


def _standbys_of(server: Any, qid: str, partition: int) -> list[str]:
    out = []
    for host, info in cluster_status(server).items():
        parts = info["activeStandbyPerQuery"].get(qid, {}).get("standByPartitions", [])
        if info["hostAlive"] and any(p["partition"] == partition for p in parts):
            out.append(host)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("standbys", [1, 0])
def test_kill_the_active_host_of_a_partition(tmp_path: Any, bootstrap: str, standbys: int) -> None:
    n = 2 * KEYS
    with cluster(str(tmp_path), bootstrap, log_level="INFO", **{"num.standby.replicas": standbys,
                                             "ksql.query.pull.enable.standby.reads": "true"}) as servers:
        a = servers[0]
        topic = f"fo{int(time.time() * 1000) % 10**8}"
        ksql(a, f"CREATE STREAM SRC (K STRING KEY, V BIGINT) WITH (KAFKA_TOPIC='{topic}', VALUE_FORMAT='JSON', "
                f"PARTITIONS={PARTITIONS});")
        qid = ksql(a, "CREATE TABLE T AS SELECT K, COUNT(*) AS N, SUM(V) AS S FROM SRC GROUP BY K;"
                   )[0]["commandStatus"]["queryId"]
        owners = wait_until(lambda: (m if len(m := active_map(a, qid)) == PARTITIONS and len(set(m.values())) == 3
                                     else None), 90, "all partitions assigned over three hosts")
        produce(bootstrap, topic, records(n))
        want = expected(n)

        def complete(server: Any) -> bool:
            with httpx.Client(base_url=server.url, timeout=30) as cl:
                code, rows, _ = pull(cl, "SELECT K, N, S FROM T;")
            return code == 200 and len(rows) == KEYS and all(tuple(r[1:]) == want[r[0]] for r in rows)

        wait_until(lambda: complete(a), 120, "the table to hold every key", every_s=1.0)
        # the victim: the owner of a partition, not the server we ask through
        by_url = {s.url.removeprefix("http://"): s for s in servers}
        asked = servers[0]
        victim_host = next(h for h in owners.values() if h != asked.url.removeprefix("http://"))
        partition = next(p for p, h in sorted(owners.items()) if h == victim_host)
        key = next(f"k{i}" for i in range(KEYS) if partition_for_key(f"k{i}".encode(), PARTITIONS) == partition)
        standbys_at_kill: list[str] = []
        if standbys:
            standbys_at_kill = wait_until(lambda: [h for h in _standbys_of(asked, qid, partition)
                                                    if h != victim_host], 30, "a standby of the partition")
        changelog_records = sum(1 for i in range(n) if partition_for_key(f"k{i % KEYS}".encode(), PARTITIONS)
                                == partition)  # an upper bound: one changelog record per input at most
        by_url[victim_host].kill()
        killed = time.monotonic()
        first_answer = None
        with httpx.Client(base_url=asked.url, timeout=30) as cl:
            while time.monotonic() - killed < 120:
                code, rows, _ = pull(cl, f"SELECT K, N, S FROM T WHERE K='{key}';")
                if code == 200 and rows == [[key, *want[key]]]:
                    first_answer = time.monotonic() - killed
                    break
                time.sleep(0.05)
        assert first_answer is not None, "no correct answer after the kill"
        # the new active's own answer (standby reads off): the session timeout, the rebalance, and the
        # catch-up of its copy - from the standby's position with one, from its last refresh without
        active_answer = None
        with httpx.Client(base_url=asked.url, timeout=30) as cl:
            while time.monotonic() - killed < 120:
                code, rows, _ = pull(cl, f"SELECT K, N, S FROM T WHERE K='{key}';",
                                     **{"ksql.query.pull.enable.standby.reads": "false"})
                if code == 200 and rows == [[key, *want[key]]]:
                    active_answer = time.monotonic() - killed
                    break
                time.sleep(0.05)
        assert active_answer is not None, "the new active never answered"
        # the partition's new active and its restore (the last one it logged for the partition)
        new_owner = wait_until(lambda: (h if (h := active_map(asked, qid).get(partition)) not in (None, victim_host)
                                        else None), 90, "the partition's new active")
        restored = wait_until(lambda: restores(by_url[new_owner], qid, partition), 30, "the new active's restore")
        seeded, replayed, build_s = restored[-1]
        standby_of = [h for h in standbys_at_kill if h != victim_host]
        report = {"standbys": standbys, "first_correct_answer_s": round(first_answer, 3),
                  "new_active_answer_s": round(active_answer, 3), "session_timeout_s": SESSION_TIMEOUT_MS / 1000,
                  "new_active_was_standby": new_owner in standby_of, "restore_entries_from_warm_copy": seeded,
                  "restore_changelog_records_replayed": replayed, "restore_build_s": build_s,
                  "changelog_records": changelog_records}
        print(f"\nFAILOVER {json.dumps(report)}")
        out = os.environ.get("KSQLPY_FAILOVER_REPORT")
        if out:
            with open(out, "a") as f:
                f.write(json.dumps(report) + "\n")
        if standbys:
            assert first_answer <= SESSION_TIMEOUT_MS / 1000 + 2
        if new_owner in standby_of:  # the standby took over: its warm copy, then only the tail
            assert seeded > 0 and replayed < changelog_records, report
        # the survivors take the partition over and the table equals the single-instance result
        survivors = [s for s in servers if s.proc is not None]
        wait_until(lambda: len(active_map(asked, qid)) == PARTITIONS
                   and victim_host not in active_map(asked, qid).values(), 90, "the partitions to move")
        for s in survivors:
            wait_until(lambda s=s: complete(s), 90, f"every key through {s.url}", every_s=1.0)
