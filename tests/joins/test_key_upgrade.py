"""Joins and pull queries across an upgrade of the key bytes of schema-registry key formats.

Earlier releases wrote an unwrapped AVRO key as a ``["null", T]`` union (now the bare type, as ksqlDB) and
keyed join stores by the key's framed bytes, whose schema id came from a process-local registry (so it
could differ in the next process). A data directory written that way is built here by running the old
encodings (the union schema, framed store keys, a registry whose ids are taken by other schemas), then the
engine restarts with the current ones: every join and pull query must see the rows from before, exactly
as one run without the upgrade does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ksqlpy.serde as serde_pkg
from ksqlpy.engine import Engine
from ksqlpy.plan.rules import TABLE_JOIN_GROUP_BY_REPARTITION
from ksqlpy.runtime import aggregate, join_build, query_tasks
from ksqlpy.schema_registry import EmbeddedSchemaRegistry
from ksqlpy.serde import avro_format
from tests.joins.conftest import Harness

Send = Callable[[Harness, str], None]


def _old_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """The encodings of the earlier release: unwrapped AVRO roots as unions, framed store keys, and a
    process-local registry whose first ids are someone else's."""
    current = avro_format.avro_schema

    def union_root(columns: Any, *, wrap: bool, full_name: str | None = None) -> Any:
        schema = current(columns, wrap=wrap, full_name=full_name)
        return ["null", schema] if not wrap and len(columns) == 1 else schema

    monkeypatch.setattr(avro_format, "avro_schema", union_root)
    monkeypatch.setattr(join_build, "store_encoder", lambda fmt, encode: encode)
    monkeypatch.setattr(serde_pkg, "placed", lambda fmt, serialize: serialize)  # repartition keys: the local id
    monkeypatch.setattr(aggregate, "placed", lambda fmt, serialize: serialize)  # (GROUP BY's too)
    monkeypatch.setattr(query_tasks, "relocate", lambda *args: 0)  # (nor did it mark stores placed)
    local = EmbeddedSchemaRegistry()
    for i in range(3):
        local.register("other-key", f'{{"type": "record", "name": "R{i}", "fields": []}}', "AVRO")
    monkeypatch.setattr(serde_pkg, "_LOCAL", [local])


def _new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serde_pkg, "_LOCAL", [])


# the plan rule revision (``plan.rules``) the old release's statements were planned under: a restart replays
# them under it, so the state keeps its layout (a table join's GROUP BY on its key stays in the join's task)
OLD_RELEASE_RULES = TABLE_JOIN_GROUP_BY_REPARTITION - 1


def _across_upgrade(tmp: Path, statements: list[str], before: Callable[[Harness], None],
                    monkeypatch: pytest.MonkeyPatch, *, upgrade: bool = True,
                    props: dict[str, Any] | None = None, restart_props: dict[str, Any] | None = None) -> Harness:
    """A harness whose ``statements`` ran and ``before`` fed (and ran) them under the old release's
    encodings, then a new process's engine over the same data directory with the statements replayed, as a
    server restarts (with ``restart_props`` too); without ``upgrade`` the current release's engine runs on
    (one run, to compare with).
    The caller closes ``h.engine``."""
    with monkeypatch.context() as m:
        if upgrade:
            _old_release(m)
        h = Harness(str(tmp), props)
        if upgrade:
            h.engine.plan_rules = OLD_RELEASE_RULES
        for s in statements:
            h.sql(s)
        before(h)
        if not upgrade:
            return h
        h.engine.close()
    _new_process(monkeypatch)
    h.props = {**h.props, **(restart_props or {})}
    h.engine = Engine(h.data_dir, h.props)
    h.engine.plan_rules = OLD_RELEASE_RULES  # the statements replay with the revision they were recorded with
    try:
        for s in statements:
            h.sql(s)
    except BaseException:
        h.engine.close()
        raise
    return h


def _sources(fmt: str, key: str, partitions: int = 1) -> list[str]:
    w = f"key_format='{fmt}', value_format='JSON', partitions={partitions}"
    return [f"CREATE STREAM S (ID {key} KEY, V STRING) WITH (kafka_topic='s', {w});",
            f"CREATE STREAM R (ID {key} KEY, W STRING) WITH (kafka_topic='r', {w});",
            f"CREATE TABLE T (ID {key} PRIMARY KEY, N STRING) WITH (kafka_topic='t', {w});",
            f"CREATE TABLE U (ID {key} PRIMARY KEY, M STRING) WITH (kafka_topic='u', {w});",
            f"CREATE TABLE F (FID STRING PRIMARY KEY, REF {key}) WITH (kafka_topic='f', {w.replace(fmt, 'KAFKA', 1)});"]


JOINS = {
    "stream-table": "CREATE STREAM J AS SELECT S.ID, V, N FROM S JOIN T ON S.ID = T.ID;",
    "stream-table-left": "CREATE STREAM J AS SELECT S.ID, V, N FROM S LEFT JOIN T ON S.ID = T.ID;",
    "table-table": "CREATE TABLE J AS SELECT T.ID, N, M FROM T JOIN U ON T.ID = U.ID;",
    "table-table-outer": "CREATE TABLE J AS SELECT ROWKEY AS ID, N, M FROM T FULL JOIN U ON T.ID = U.ID;",
    "stream-stream": "CREATE STREAM J AS SELECT S.ID, V, W FROM S JOIN R WITHIN 1 HOUR ON S.ID = R.ID;",
    "stream-stream-outer": "CREATE STREAM J AS SELECT ROWKEY AS ID, V, W FROM S FULL JOIN R WITHIN 10 SECONDS "
                           "GRACE PERIOD 0 SECONDS ON S.ID = R.ID;",
    "foreign-key": "CREATE TABLE J AS SELECT FID, REF, N FROM F JOIN T ON REF = T.ID;",
}


def _keys(key: str) -> list[Any]:
    return [f"k{i}" for i in range(4)] if key == "STRING" else [1, 2, 30, 1000]


def _before(h: Harness, key: str) -> None:
    for i, k in enumerate(_keys(key)):
        h.send("T", k, {"N": f"n{i}"}, 1000 + i)
        h.send("U", k, {"M": f"m{i}"}, 1000 + i)
        h.send("S", k, {"V": f"v{i}"}, 1000 + i)
        h.send("F", f"f{i}", {"REF": k}, 1000 + i)


def _after(h: Harness, key: str) -> None:
    for i, k in enumerate(_keys(key)):
        h.send("R", k, {"W": f"w{i}"}, 2000 + i)
        h.send("T", k, {"N": f"n{i}'"}, 2000 + i)
        h.send("S", k, {"V": f"v{i}'"}, 1500 + i)
        h.send("F", f"g{i}", {"REF": k}, 3000 + i)
    # processed first: with several partitions, the re-keying tasks of each source partition write the
    # repartition topic a batch at a time, so a record sent after them could be processed before them
    h.run()
    h.send("R", _keys(key)[0], {"W": "late"}, 60_000)  # closes the outer join's windows


def _run(tmp: Path, fmt: str, key: str, join: str, monkeypatch: pytest.MonkeyPatch, *, upgrade: bool,
         partitions: int = 1, restart_props: dict[str, Any] | None = None) -> Counter:
    def before(h: Harness) -> None:
        _before(h, key)
        h.run()

    h = _across_upgrade(tmp, [*_sources(fmt, key, partitions), JOINS[join]], before, monkeypatch, upgrade=upgrade,
                        restart_props=restart_props)
    try:
        _after(h, key)
        h.run()
        return Counter((repr(k), repr(v)) for k, v, _ in h.read("J"))
    finally:
        h.engine.close()


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
@pytest.mark.parametrize("key", ["INT", "STRING"])
@pytest.mark.parametrize("join", list(JOINS))
def test_join_after_upgrade_sees_rows_from_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                  key: str, join: str) -> None:
    expected = _run(tmp_path / "one-run", fmt, key, join, monkeypatch, upgrade=False)
    got = _run(tmp_path / "upgraded", fmt, key, join, monkeypatch, upgrade=True)
    assert got == expected


# A foreign-key join's tasks are its source topics' partitions: over AVRO keys the harness's producer writes
# the right table's keys in the other encoding after the upgrade, so its source topic holds one key in two
# partitions - the producer's change, which no join could undo (ksqlDB's neither)
PLACED = [(j, k, f) for j in JOINS for k in ("INT", "STRING") for f in ("AVRO", "JSON_SR", "PROTOBUF")
          if not (j == "foreign-key" and f == "AVRO")]


@pytest.mark.parametrize(("join", "key", "fmt"), PLACED)
def test_join_after_upgrade_finds_rows_stored_in_another_partition(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, key: str, join: str) -> None:
    """Over 4 partitions the old repartition bytes (another schema id, AVRO's union) placed most keys in
    another task than the current ones do: their stored rows are moved there before the tasks restore
    (``join_placement``), so the restart joins them as one run does."""
    expected = _run(tmp_path / "one-run", fmt, key, join, monkeypatch, upgrade=False, partitions=4)
    got = _run(tmp_path / "upgraded", fmt, key, join, monkeypatch, upgrade=True, partitions=4)
    assert got == expected


def _pull(h: Harness, text: str) -> list[tuple]:
    (res,) = h.engine.execute(text)
    return sorted(tuple(r) for r in res.data["rows"])


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
def test_tables_read_keys_of_both_encodings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    """A table topic holding a key in the old and the new encoding (the writer's registered schema says
    which) is one row per key: source tables, materialized tables and their joins after the restart."""
    w = f"key_format='{fmt}', value_format='JSON', partitions=1"
    statements = [f"CREATE SOURCE TABLE T (ID INT PRIMARY KEY, N STRING) WITH (kafka_topic='t', {w});",
                  f"CREATE TABLE U (ID INT PRIMARY KEY, M STRING) WITH (kafka_topic='u', {w});",
                  "CREATE TABLE MU AS SELECT * FROM U;",
                  "CREATE TABLE J AS SELECT T.ID AS ID, N, M FROM T JOIN U ON T.ID = U.ID;"]

    def before(h: Harness) -> None:
        for k in (1, 2, 3):
            h.send("T", k, {"N": f"n{k}"}, 1000 + k)
            h.send("U", k, {"M": f"m{k}"}, 1000 + k)
        h.run()

    h = _across_upgrade(tmp_path, statements, before, monkeypatch)
    try:
        h.send("T", 2, {"N": "n2'"}, 2000)
        h.send("U", 3, {"M": "m3'"}, 2000)
        h.send("U", 4, {"M": "m4"}, 2000)
        h.run()
        assert _pull(h, "SELECT * FROM T;") == [(1, "n1"), (2, "n2'"), (3, "n3")]
        assert _pull(h, "SELECT * FROM T WHERE ID = 2;") == [(2, "n2'")]
        assert _pull(h, "SELECT * FROM MU;") == [(1, "m1"), (2, "m2"), (3, "m3'"), (4, "m4")]
        assert _pull(h, "SELECT * FROM J;") == [(1, "n1", "m1"), (2, "n2'", "m2"), (3, "n3", "m3'")]
        assert _pull(h, "SELECT * FROM J WHERE ID = 3;") == [(3, "n3", "m3'")]
    finally:
        h.engine.close()


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
@pytest.mark.parametrize("join", ["table-table", "table-table-outer"])
def test_pull_queries_after_upgrade_see_one_row_per_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                      join: str) -> None:
    """A table join's materialized result is in the join's task too: its rows move with the join's stores,
    so a pull query over 4 partitions finds one row per key after the upgrade (it found the row from before
    beside the new one, and a key lookup the old one)."""
    def before(h: Harness) -> None:
        _before(h, "INT")
        h.run()

    h = _across_upgrade(tmp_path, [*_sources(fmt, "INT", 4), JOINS[join]], before, monkeypatch)
    try:
        _after(h, "INT")
        h.run()
        want = [(k, f"n{i}'", f"m{i}") for i, k in enumerate(_keys("INT"))]
        assert _pull(h, "SELECT * FROM J;") == want
        key = "ID" if join == "table-table-outer" else "T_ID"
        for row in want:
            assert _pull(h, f"SELECT * FROM J WHERE {key} = {row[0]};") == [row]
    finally:
        h.engine.close()


# An aggregation grouped by the join key runs in the join's task (no repartition): its store is keyed by the
# group key there, so its rows are placed by the join key's bytes as the join's stores are
AGGREGATIONS = {
    "stream-table": "CREATE TABLE A AS SELECT S.ID, COUNT(*) AS C, COLLECT_LIST(V) AS VS FROM S JOIN T "
                    "ON S.ID = T.ID GROUP BY S.ID;",
    "table-table": "CREATE TABLE A AS SELECT T.ID, COUNT(*) AS C, SUM(LEN(N)) AS L FROM T JOIN U "
                   "ON T.ID = U.ID GROUP BY T.ID;",
    "stream-stream-tumbling": "CREATE TABLE A AS SELECT S.ID, COUNT(*) AS C FROM S JOIN R WITHIN 1 HOUR "
                              "ON S.ID = R.ID WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY S.ID;",
    "stream-table-hopping": "CREATE TABLE A AS SELECT S.ID, COUNT(*) AS C FROM S LEFT JOIN T ON S.ID = T.ID "
                            "WINDOW HOPPING (SIZE 2 HOURS, ADVANCE BY 1 HOUR) GROUP BY S.ID;",
    "stream-table-session": "CREATE TABLE A AS SELECT S.ID, COUNT(*) AS C FROM S JOIN T ON S.ID = T.ID "
                            "WINDOW SESSION (1 HOUR) GROUP BY S.ID;",
}


def _aggregate(tmp: Path, fmt: str, aggregation: str, monkeypatch: pytest.MonkeyPatch, *, upgrade: bool,
               pull: list[str]) -> tuple[Counter, list[list[tuple]]]:
    """Records before the restart (in the old release's encodings with ``upgrade``) and after it: the
    aggregate's output records and the pull queries' rows at the end."""
    statements = [*_sources(fmt, "INT", 4), AGGREGATIONS[aggregation]]
    keys = _keys("INT")
    props = {"cache.max.bytes.buffering": 0}  # every update out: batches differ across the restart

    def before(h: Harness) -> None:
        for i, k in enumerate(keys):
            h.send("T", k, {"N": f"n{i}"}, 1000 + i)
            h.send("U", k, {"M": f"m{i}"}, 1000 + i)
        h.run()
        for i, k in enumerate(keys):
            h.send("S", k, {"V": f"v{i}"}, 2000 + i)
            h.send("R", k, {"W": f"w{i}"}, 2000 + i)
            h.send("S", k, {"V": f"x{i}"}, 3000 + i)
        h.run()

    h = _across_upgrade(tmp, statements, before, monkeypatch, upgrade=upgrade, props=props)
    try:
        for i, k in enumerate(keys):
            h.send("T", k, {"N": f"n{i}''"}, 4000 + i)
        h.run()
        for i, k in enumerate(keys):
            h.send("S", k, {"V": f"y{i}"}, 5000 + i)
            h.send("R", k, {"W": f"z{i}"}, 5000 + i)
        h.run()
        return (Counter((repr(k), repr(v)) for k, v, _ in h.read("A")), [_pull(h, q) for q in pull])
    finally:
        h.engine.close()


@pytest.mark.parametrize("fmt", ["AVRO", "JSON_SR", "PROTOBUF"])
@pytest.mark.parametrize("aggregation", list(AGGREGATIONS))
def test_aggregation_on_the_join_key_after_upgrade_continues_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, aggregation: str) -> None:
    """Over 4 partitions the old repartition bytes placed most keys in another task than the current ones:
    the aggregate's rows (and a table aggregation's last row per source key, which its undo reads) move
    there with the join's stores, so the aggregates after the restart continue from the rows before it as
    one run does, and pull queries find one row per key and window."""
    key = "T_ID" if aggregation == "table-table" else "S_ID"
    # (a session-windowed table is looked up by key only: no table scan of a session table)
    scan = [] if "session" in aggregation else ["SELECT * FROM A;"]
    pull = [*scan, *(f"SELECT * FROM A WHERE {key} = {k};" for k in _keys("INT"))]
    expected = _aggregate(tmp_path / "one-run", fmt, aggregation, monkeypatch, upgrade=False, pull=pull)
    got = _aggregate(tmp_path / "upgraded", fmt, aggregation, monkeypatch, upgrade=True, pull=pull)
    assert got == expected


# GROUP BY on other columns than the key: the groups are placed by the group key's repartition bytes
GROUPINGS = {
    "stream": ("STREAM", "CREATE TABLE A AS SELECT G, COUNT(*) AS C, SUM(LEN(V)) AS L FROM S GROUP BY G;"),
    "stream-tumbling": ("STREAM", "CREATE TABLE A AS SELECT G, COUNT(*) AS C FROM S WINDOW TUMBLING (SIZE 1 HOUR) "
                                  "GROUP BY G;"),
    "stream-session": ("STREAM", "CREATE TABLE A AS SELECT G, COUNT(*) AS C FROM S WINDOW SESSION (1 HOUR) "
                                 "GROUP BY G;"),
    "table": ("TABLE", "CREATE TABLE A AS SELECT G, COUNT(*) AS C, SUM(LEN(V)) AS L FROM S GROUP BY G;"),
}


def _grouped(tmp: Path, fmt: str, grouping: str, monkeypatch: pytest.MonkeyPatch, *,
             upgrade: bool) -> tuple[Counter, list[tuple]]:
    kind, query = GROUPINGS[grouping]
    key = "KEY" if kind == "STREAM" else "PRIMARY KEY"
    statements = [f"CREATE {kind} S (ID INT {key}, G INT, V STRING) WITH (kafka_topic='s', key_format='{fmt}', "
                  "value_format='JSON', partitions=4);", query]

    def before(h: Harness) -> None:
        for i in range(8):
            h.send("S", i, {"G": i % 4 * 7, "V": f"v{chr(97 + i)}"}, 1000 + i)
        h.run()

    h = _across_upgrade(tmp, statements, before, monkeypatch, upgrade=upgrade,
                        props={"cache.max.bytes.buffering": 0})
    try:
        # a table's rows 4..7 change (their old values are taken back), then rows 8..11 come: every V is as
        # long and each step is processed before the next, so no result depends on the order the 4 source
        # partitions' records meet in a group
        for batch in (range(4, 8), range(8, 12)):
            for i in batch:
                h.send("S", i, {"G": i % 4 * 7, "V": f"w{chr(97 + i)}"}, 2000 + i)
            h.run()
        # (a session-windowed table is looked up by key only: no table scan of a session table)
        pulls = [f"SELECT * FROM A WHERE G = {g};" for g in (0, 7, 14, 21)] if "session" in grouping \
            else ["SELECT * FROM A;"]
        return Counter((repr(k), repr(v)) for k, v, _ in h.read("A")), [row for q in pulls for row in _pull(h, q)]
    finally:
        h.engine.close()


# a table's rows change after the upgrade: over AVRO keys the harness's producer writes them in the other
# encoding, so the source topic holds one row in two partitions (the producer's change, as for foreign keys)
GROUPED = [(g, f) for g in GROUPINGS for f in ("AVRO", "JSON_SR", "PROTOBUF") if not (g == "table" and f == "AVRO")]


@pytest.mark.parametrize(("grouping", "fmt"), GROUPED)
def test_group_by_after_upgrade_continues_its_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str,
                                                     grouping: str) -> None:
    """A GROUP BY that repartitions writes its group key in the input's key format: over 4 partitions the old
    bytes (another schema id, AVRO's union) placed a group in another task than the current bytes do, so the
    restart started the group anew there (a pull query found two rows of it); its rows move to the
    partition the key is placed in now before the tasks restore, and the aggregates go on as one run does.
    (Sessions: the rows at the end; how the sessions grow on the way depends on the order the source
    partitions' records meet.)"""
    expected = _grouped(tmp_path / "one-run", fmt, grouping, monkeypatch, upgrade=False)
    got = _grouped(tmp_path / "upgraded", fmt, grouping, monkeypatch, upgrade=True)
    if grouping.endswith("session"):
        assert got[1] == expected[1]
    else:
        assert got == expected


WORKERS = {"ksqlpy.workers": "process", "num.stream.threads": 2}


@pytest.mark.slow
@pytest.mark.parametrize("join", ["table-table", "stream-stream-outer"])
def test_join_after_upgrade_with_worker_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, join: str) -> None:
    """The restart after the upgrade runs the query in two worker processes: each moves the stored rows
    placed in its own partitions (``join_placement``), and together they join as one run does."""
    expected = _run(tmp_path / "one-run", "AVRO", "INT", join, monkeypatch, upgrade=False, partitions=4)
    got = _run(tmp_path / "upgraded", "AVRO", "INT", join, monkeypatch, upgrade=True, partitions=4,
               restart_props=WORKERS)
    assert got == expected
