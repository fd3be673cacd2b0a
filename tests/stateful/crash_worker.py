"""A worker process for the crash tests: runs one windowed aggregation over a prepared input topic.

    python tests/stateful/crash_worker.py DATA_DIR [--pull KEY...]

It creates the engine over DATA_DIR (the embedded log and the state stores live there), registers the
stream and the table exactly as every previous run did - so the query gets the same id, consumer group,
changelog and state directory and resumes where the last committed batch left it - and processes until
its input is consumed, then prints ``DONE``. The crash test kills it with SIGKILL at random points.
With ``--pull`` it instead prints the JSON result of pull queries on the given keys and exits.
"""

from __future__ import annotations

import contextlib
import sys
import time

import orjson

from ksqlpy.engine import Engine

STATEMENTS = [
    "CREATE STREAM EVENTS (K STRING KEY, V INT) WITH (kafka_topic='events', value_format='JSON', partitions=2);",
    "CREATE TABLE COUNTS AS SELECT K, COUNT(*) AS C, SUM(V) AS S, MAX(V) AS M FROM EVENTS "
    "WINDOW TUMBLING (SIZE 5 SECONDS, GRACE PERIOD 2 SECONDS) GROUP BY K;",
    # GROUP BY a non-key over 2 partitions: a repartition topic between two sub-topologies
    "CREATE TABLE BY_MOD AS SELECT V % 7 AS MOD, COUNT(*) AS C, SUM(V) AS S FROM EVENTS GROUP BY V % 7;",
]
# the record cache off: every update is an output, so two runs compare update for update whatever batches
# the kills cut (with the cache on, each batch's last value per key goes out and batches differ by run)
PROPERTIES = {"auto.offset.reset": "earliest", "processing.guarantee": "exactly_once_v2",
              "ksql.service.id": "crash_", "cache.max.bytes.buffering": 0}


def open_engine(data_dir: str) -> Engine:
    engine = Engine(data_dir, dict(PROPERTIES))
    for sql in STATEMENTS:
        engine.execute(sql)
    return engine


def caught_up(engine: Engine) -> bool:
    return all(t.position >= engine.log.end_offset(t.topic, t.partition)
               for q in engine.queries.values() for t in q.tasks)


def main(argv: list[str]) -> int:
    engine = open_engine(argv[0])
    if len(argv) > 1 and argv[1] == "--pull":
        out = {k: engine.execute(f"SELECT * FROM COUNTS WHERE K='{k}';")[0].data["rows"] for k in argv[2:]}
        out["*"] = engine.execute("SELECT * FROM COUNTS;")[0].data["rows"]
        print(orjson.dumps(out).decode())
        return 0
    print("STARTED", flush=True)
    while not caught_up(engine):
        with contextlib.suppress(TimeoutError):  # drain in slices (it raises when a slice ends first)
            engine.drain(0.5)
        time.sleep(0)
    print("DONE", flush=True)
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
