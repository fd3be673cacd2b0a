"""Golden tests of topology lowering: SQL in (``topologies/*.sql``), topology text out (``*.txt``).

Each case runs its statement against the sources below (4 partitions unless said otherwise) and renders
the query's physical topology: the TopologyDescription EXPLAIN prints, then every topic and store with
what it is, then the tasks. ``EXPLAIN <query id>`` must print the same description. Every topology also
survives pickling (what a worker process receives) unchanged, and builds its tasks again from the copy.

To accept changed output after reviewing it: ``KSQLPY_UPDATE_GOLDEN=1 pytest tests/runtime``.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.describe import explained_plan, would_be_id, would_run
from ksqlpy.plan.describe import topology_text
from ksqlpy.plan.topology import Topology
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.query_tasks import build_tasks
from ksqlpy.runtime.workers import WorkerContext

CASES = Path(__file__).parent / "topologies"
SOURCES = [
    "CREATE STREAM ORDERS (ID INT KEY, CUSTOMER INT, ITEM STRING, AMOUNT DOUBLE) "
    "WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM MORE_ORDERS (ID INT KEY, CUSTOMER INT, ITEM STRING, AMOUNT DOUBLE) "
    "WITH (KAFKA_TOPIC='more_orders', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM PAYMENTS (ID INT KEY, ORDER_ID INT, PAID DOUBLE) "
    "WITH (KAFKA_TOPIC='payments', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE STREAM EVENTS (ID STRING KEY, KIND STRING) WITH (KAFKA_TOPIC='events', VALUE_FORMAT='JSON', PARTITIONS=1);",
    "CREATE TABLE CUSTOMERS (ID INT PRIMARY KEY, NAME STRING, REGION STRING) "
    "WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE ACCOUNTS (ID INT PRIMARY KEY, CUSTOMER INT, BALANCE DOUBLE) "
    "WITH (KAFKA_TOPIC='accounts', VALUE_FORMAT='JSON', PARTITIONS=4);",
    "CREATE TABLE REGIONS (NAME STRING PRIMARY KEY, MANAGER STRING) "
    "WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=4);",
]


def render(topology: Topology) -> str:
    """The description, then what each topic and store is, then the tasks."""
    lines = [topology_text(topology).rstrip("\n"), "", f"Application id: {topology.application_id}", "Topics:"]
    lines += [f"  {t.name} ({t.kind.value}, {t.partitions} partitions)" for t in topology.topics]
    lines.append("Stores:")
    lines += [f"  {s.name} ({s.kind.value}, sub-topology {s.sub_topology}, changelog: {s.changelog or 'none'})"
              for s in topology.stores]
    lines.append("Tasks: " + " ".join(str(t) for t in topology.tasks))
    return "\n".join(lines) + "\n"


def _topology(engine: Engine, sql: str) -> Topology:
    if sql.lstrip().upper().startswith("EXPLAIN"):  # a statement that is not run: the topology it would run
        (stmt,) = engine.parse(sql)
        inner = stmt.statement  # type: ignore[attr-defined]
        plan = explained_plan(engine, inner)
        topology = would_run(engine, plan, would_be_id(engine, inner, plan))
        assert topology is not None and engine.execute(sql)[0].data["topology"] == topology_text(topology)
        return topology
    before = set(engine.queries)
    engine.execute(sql)
    (qid,) = set(engine.queries) - before
    query = engine.queries[qid]
    explained = engine.execute(f"EXPLAIN {qid};")[0].data
    assert explained["topology"] == topology_text(query.topology)
    return query.topology  # type: ignore[no-any-return]


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    e = Engine(str(tmp_path / "data"))
    for sql in SOURCES:
        e.execute(sql)
    yield e
    e.close()


@pytest.mark.parametrize("case", sorted(p.stem for p in CASES.glob("*.sql")))
def test_topology(case: str, engine: Engine, tmp_path: Path) -> None:
    sql = "\n".join(line for line in (CASES / f"{case}.sql").read_text().splitlines() if not line.startswith("--"))
    topology = _topology(engine, sql)
    got = render(topology)
    expected_file = CASES / f"{case}.txt"
    if os.environ.get("KSQLPY_UPDATE_GOLDEN"):
        expected_file.write_text(got)
    assert got == expected_file.read_text()
    # what a worker process receives: the same topology, from which the same tasks are built
    copy = pickle.loads(pickle.dumps(topology))
    assert copy == topology and render(copy) == got
    if topology.persistent:  # built as a worker process builds it: its own context and state directory
        worker = WorkerContext(engine.log, ProcessingLog(), engine.effective_properties(), str(tmp_path / "w"))
        built = build_tasks(worker, copy)
        assert sorted(t.task_id for t in built.tasks) == sorted(str(t) for t in topology.tasks)
        built.close()
