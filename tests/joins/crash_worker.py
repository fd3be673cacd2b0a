"""A worker process for the join crash test: runs join queries over prepared input topics until caught up.

    python tests/joins/crash_worker.py DATA_DIR

Every run registers the same sources and queries (same ids, consumer groups, changelogs and state
directories), so a restarted worker resumes from the last committed batch. Prints ``DONE`` at the end.
"""

from __future__ import annotations

import contextlib
import sys

from ksqlpy.engine import Engine

STATEMENTS = [
    "CREATE STREAM CLICKS (ID STRING KEY, USERID INT, N INT) WITH (kafka_topic='clicks', value_format='JSON', "
    "partitions=2);",
    "CREATE STREAM VIEWS (USERID INT KEY, PAGE STRING) WITH (kafka_topic='views', value_format='JSON', partitions=2);",
    "CREATE TABLE ORDERS (ID INT PRIMARY KEY, USERID INT, AMOUNT INT) WITH (kafka_topic='orders', "
    "value_format='JSON', partitions=2);",
    "CREATE TABLE USERS (ID INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='users', value_format='JSON', "
    "partitions=3);",
    # stream-stream with the left side repartitioned
    "CREATE STREAM CLICK_VIEWS AS SELECT C.USERID, N, PAGE FROM CLICKS C JOIN VIEWS V WITHIN 1 HOUR "
    "ON C.USERID = V.USERID;",
    # foreign key, tables with different partition counts
    "CREATE TABLE ORDER_USERS AS SELECT O.ID, AMOUNT, NAME FROM ORDERS O JOIN USERS U ON O.USERID = U.ID;",
]
PROPERTIES = {"auto.offset.reset": "earliest", "processing.guarantee": "exactly_once_v2", "ksql.service.id": "jc_"}


def caught_up(engine: Engine) -> bool:
    return all(t.lag() == 0 for q in engine.queries.values() for t in q.tasks)


def main(argv: list[str]) -> int:
    engine = Engine(argv[0], dict(PROPERTIES))
    for sql in STATEMENTS:
        engine.execute(sql)
    print("STARTED", flush=True)
    while not caught_up(engine):
        with contextlib.suppress(TimeoutError):  # drain in slices (it raises when a slice ends first)
            engine.drain(0.5)
    engine.drain(1)
    print("DONE", flush=True)
    engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
