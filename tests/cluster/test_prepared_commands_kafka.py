"""On a real broker: a server that joins the service id later replays the command topic as the first
server accepted it, under its own, different defaults (the formats and the sink topic name were filled in
when the statements were accepted; the commands hold them)."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest

pytest.importorskip("confluent_kafka")

from cluster_helpers import cluster_properties, ksql  # noqa: E402

from ksqlpy.testing.server_process import ServerProcess  # noqa: E402


@pytest.mark.slow
def test_a_later_server_replays_what_the_first_accepted(tmp_path: Any, bootstrap: str) -> None:
    service = f"p{uuid.uuid4().hex[:8]}_"
    topic = f"pin{int(time.time() * 1000) % 10**8}"
    first_config = cluster_properties(bootstrap, service, **{"ksql.persistence.default.format.value": "JSON",
                                                              "ksql.output.topic.name.prefix": ""})
    later_config = cluster_properties(bootstrap, service, **{"ksql.persistence.default.format.value": "DELIMITED",
                                                              "ksql.persistence.default.format.key": "JSON",
                                                              "ksql.output.topic.name.prefix": "later_"})
    first = ServerProcess(os.path.join(str(tmp_path), "a"), first_config, startup_timeout_s=120).start()
    try:
        ksql(first, f"CREATE STREAM S (ID INT KEY, V STRING) WITH (KAFKA_TOPIC='{topic}', PARTITIONS=1);")
        created = ksql(first, "CREATE STREAM S2 AS SELECT * FROM S;")[0]
        later = ServerProcess(os.path.join(str(tmp_path), "b"), later_config, startup_timeout_s=120).start()
        try:
            seq = created["commandSequenceNumber"]
            for server in (first, later):
                for name, topic_name in (("S", topic), ("S2", "S2")):
                    described = ksql(server, f"DESCRIBE {name} EXTENDED;", commandSequenceNumber=seq)[0]
                    source = described["sourceDescription"]
                    assert (source["keyFormat"], source["valueFormat"], source["topic"]) == (
                        "KAFKA", "JSON", topic_name), (server.url, name)
            queries = ksql(later, "SHOW QUERIES;")[0]["queries"]
            assert [q["id"] for q in queries] == [created["commandStatus"]["queryId"]]
        finally:
            later.stop()
    finally:
        first.stop()
