"""Join runtime beyond single-partition cases: co-partitioning, restarts, rebuilt state, push queries."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the fixture's type only: importing conftest by name breaks runs over several folders
    from conftest import Harness

LEFT_RIGHT = [
    "CREATE STREAM L (ID STRING KEY, K INT, A STRING) WITH (kafka_topic='l', value_format='JSON', PARTITIONS=4);",
    "CREATE STREAM R (K INT KEY, B STRING) WITH (kafka_topic='r', value_format='JSON', PARTITIONS=4);",
]


def test_repartitioned_stream_stream_join_over_four_partitions(h: Harness) -> None:
    for s in LEFT_RIGHT:
        h.sql(s)
    h.sql("CREATE STREAM OUT AS SELECT L.K, A, B FROM L JOIN R WITHIN 7 DAYS ON L.K = R.K;")
    rnd = random.Random(7)
    lefts = [(f"id{i}", rnd.randrange(20), f"a{i}") for i in range(150)]
    rights = [(rnd.randrange(20), f"b{i}") for i in range(150)]
    events = [("L", x) for x in lefts] + [("R", x) for x in rights]
    rnd.shuffle(events)
    for n, (side, x) in enumerate(events):
        if side == "L":
            h.send("L", x[0], {"K": x[1], "A": x[2]}, 1000 + n)
        else:
            h.send("R", x[0], {"B": x[1]}, 1000 + n)
        if n % 37 == 0:
            h.run()
    h.run()
    got = Counter((k, v[0], v[1]) for k, v, _ in h.read("OUT"))
    want = Counter((lk, a, b) for _, lk, a in lefts for rk, b in rights if lk == rk)
    assert got == want
    topics = {t.name for t in h.engine.log.list_topics()}
    assert any(t.endswith("CSAS_OUT_0-Join-left-repartition") for t in topics)
    assert not any(t.endswith("Join-right-repartition") for t in topics)


def test_stream_table_join_over_four_partitions_needs_no_repartition(h: Harness) -> None:
    h.sql("CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', PARTITIONS=4);")
    h.sql("CREATE TABLE T (K INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='t', value_format='JSON', PARTITIONS=4);")
    h.sql("CREATE STREAM OUT AS SELECT S.K, V, NAME FROM S LEFT JOIN T ON S.K = T.K;")
    for k in range(10):
        h.send("T", k, {"NAME": f"n{k}"}, 1)
    h.run()
    for i in range(40):
        h.send("S", i % 13, {"V": i}, 10 + i)
    h.run()
    got = sorted((k, v[0], v[1]) for k, v, _ in h.read("OUT"))
    assert got == sorted((i % 13, i, f"n{i % 13}" if i % 13 < 10 else None) for i in range(40))
    assert not any(t.name.endswith("-repartition") for t in h.engine.log.list_topics())


def test_stream_stream_state_survives_a_restart(h: Harness) -> None:
    statements = [*LEFT_RIGHT, "CREATE STREAM OUT AS SELECT L.K, A, B FROM L JOIN R WITHIN 1 HOUR ON L.K = R.K;"]
    for s in statements:
        h.sql(s)
    h.send("L", "x", {"K": 1, "A": "before"}, 1000)
    h.send("R", 2, {"B": "early"}, 1000)
    h.run()
    h.restart(statements)
    h.send("R", 1, {"B": "after"}, 2000)
    h.send("L", "y", {"K": 2, "A": "late-left"}, 2000)
    h.run()
    assert sorted((k, v[0], v[1]) for k, v, _ in h.read("OUT")) == [(1, "before", "after"),
                                                                   (2, "late-left", "early")]


def test_join_state_is_rebuilt_from_changelogs_when_local_files_are_gone(h: Harness) -> None:
    statements = [
        "CREATE TABLE ORDERS (ID INT PRIMARY KEY, CUSTOMER INT, ITEM STRING) WITH (kafka_topic='o', value_format='JSON', PARTITIONS=2);",
        "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='c', value_format='JSON', PARTITIONS=3);",
        "CREATE TABLE OUT AS SELECT O.ID, ITEM, NAME FROM ORDERS O JOIN CUSTOMERS C ON O.CUSTOMER = C.ID;",
    ]
    for s in statements:
        h.sql(s)
    for c in range(5):
        h.send("CUSTOMERS", c, {"NAME": f"c{c}"}, 1)
    for o in range(10):
        h.send("ORDERS", o, {"CUSTOMER": o % 5, "ITEM": f"i{o}"}, 2)
    h.run()
    h.engine.close()
    shutil.rmtree(f"{h.data_dir}/state")
    h.restart(statements)
    h.send("CUSTOMERS", 3, {"NAME": "renamed"}, 3)
    h.send("ORDERS", 4, {"CUSTOMER": 0, "ITEM": "moved"}, 4)
    h.run()
    latest: dict[int, tuple] = {}
    for k, v, _ in h.read("OUT"):
        latest[k] = v
    assert latest == {o: (f"i{o}", f"c{o % 5}") for o in range(10) if o not in (3, 8, 4)} | {
        3: ("i3", "renamed"), 8: ("i8", "renamed"), 4: ("moved", "c0")}
    rows = {r[0]: r[1:] for r in h.engine.execute("SELECT * FROM OUT;")[0].data["rows"]}
    assert rows == latest


def test_push_query_over_a_join(h: Harness) -> None:
    h.sql("CREATE STREAM S (K INT KEY, V INT) WITH (kafka_topic='s', value_format='JSON', PARTITIONS=1);")
    h.sql("CREATE TABLE T (K INT PRIMARY KEY, NAME STRING) WITH (kafka_topic='t', value_format='JSON', PARTITIONS=1);")
    h.send("T", 1, {"NAME": "one"}, 1)
    q = h.engine.push_query("SELECT S.K, V, NAME FROM S JOIN T ON S.K = T.K EMIT CHANGES LIMIT 2;",
                            {"auto.offset.reset": "earliest"})
    h.send("S", 1, {"V": 10}, 2)
    h.send("S", 2, {"V": 20}, 3)
    h.send("S", 1, {"V": 30}, 4)
    h.run()
    assert [q.get(timeout=5), q.get(timeout=5)] == [(1, 10, "one"), (1, 30, "one")]
    assert q.get(timeout=5) is None
