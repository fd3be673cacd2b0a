"""A local Spark runs below the priority of the process that started it (``ksqlpy.backfill.spark.nice``), so
a backfill does not starve a server's queries; the starting thread keeps its own priority."""

from __future__ import annotations

import os
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def _nice(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def _java_children() -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{d}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and comm == "java":
            out.append(int(d))
    return out


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads priorities from /proc")
def test_local_spark_runs_niced(spark: Any) -> None:
    jvms = _java_children()
    assert jvms, "the session's JVM is a child of this process"
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    assert all(_nice(p) >= min(19, mine + 10) for p in jvms)
    # the Python workers are the JVM's descendants and inherit it
    assert spark.sparkContext.parallelize([0], 1).map(lambda _: os.getpriority(os.PRIO_PROCESS, 0)).collect() == [
        min(19, mine + 10)]


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="reads the JVM's command line from /proc")
def test_local_spark_jvm_compiles_with_the_first_jit_tier_only(spark: Any) -> None:
    """The JVM's C2 compiler threads were most of a backfill run's JVM CPU: the session starts the JVM with
    ``-XX:TieredStopAtLevel=1`` unless ``spark.driver.extraJavaOptions`` says otherwise."""
    from ksqlpy.backfill.session import _DEFAULTS

    jvms = _java_children()
    assert jvms
    with open(f"/proc/{jvms[0]}/cmdline", "rb") as f:
        args = f.read().split(b"\0")
    assert b"-XX:TieredStopAtLevel=1" in args
    assert _DEFAULTS["spark.executor.extraJavaOptions"] == "-XX:TieredStopAtLevel=1"  # (a cluster's executors)


def test_a_worker_freezes_its_imported_modules_once_and_the_driver_never(spark: Any) -> None:
    """PySpark's daemon collects the whole heap after every task of a reused worker: the first backfill task
    of a worker freezes what is alive then (the modules), so later collections walk only the tasks' objects."""
    import gc

    from ksqlpy.backfill.datasource import settle_worker

    before = gc.get_freeze_count()
    settle_worker()  # not in a Spark task: nothing
    assert gc.get_freeze_count() == before

    def frozen(_: Any) -> tuple[int, int]:
        import gc

        from ksqlpy.backfill import datasource

        datasource.settle_worker()  # (a reused worker may have settled in an earlier test's task)
        first = gc.get_freeze_count()
        datasource.settle_worker()  # once per process
        return first, gc.get_freeze_count()

    (first, second), = spark.sparkContext.parallelize([0], 1).map(frozen).collect()
    assert first > 1000 and second == first
