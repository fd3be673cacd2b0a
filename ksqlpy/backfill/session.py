"""The SparkSession a backfill runs on: one per process, reused (starting the JVM takes seconds).

``spark.master`` defaults to ``local[*]``; every ``spark.*`` engine property passes through to the
session builder, so a cluster is a matter of configuration. The driver binds to loopback unless
``spark.driver.host`` / ``spark.driver.bindAddress`` say otherwise (a remote cluster needs them). Spark's Python workers run this
interpreter (``PYSPARK_PYTHON`` unless set), so they import the same ksqlpy.

A local Spark shares the machine with the server that started it: its JVM and Python workers run at a lower
CPU priority (``ksqlpy.backfill.spark.nice``, default 10; 0 leaves it), so that a backfill does not starve
the queries the server answers meanwhile. The JVM is launched from a short-lived thread that lowered its
own priority (on Linux a thread's nice value is its own, and children inherit it): the caller keeps its
priority, and every thread and worker process of the JVM is born with the lower one.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

DEFAULT_MASTER = "local[*]"
NICE_PROPERTY = "ksqlpy.backfill.spark.nice"
DEFAULT_NICE = 10

_DEFAULTS = {
    # the driver, its block manager and the UI listen on loopback only unless configured otherwise
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "10000",
    "spark.sql.shuffle.partitions": "8",
    # the JIT's first tier only: a backfill's JVM mostly schedules tasks and moves Arrow batches, and with C2
    # its compiler threads were most of a run's JVM CPU (0.4-0.6 s per run on a warm session, measured per
    # thread; 0.05-0.1 s without) - each backfill reaches new code paths, so the compiling never settles
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1",
    "spark.executor.extraJavaOptions": "-XX:TieredStopAtLevel=1",
}


def spark_session(master: str | None = None, properties: dict[str, Any] | None = None) -> Any:
    """A SparkSession on ``master`` (the active one if it exists: Spark keeps one per JVM)."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as e:
        raise RuntimeError(f"the Spark backfill needs PySpark: pip install 'ksqlpy[spark]' ({e})") from e

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # (else Spark picks the first non-loopback address)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("ksqlpy-backfill").master(master or DEFAULT_MASTER)
    conf = dict(_DEFAULTS)
    # Spark's own progress bar ([Stage 1:====>   (3 + 2) / 8]) on a terminal, as spark-submit shows it
    conf["spark.ui.showConsoleProgress"] = "true" if sys.stderr.isatty() else "false"
    for k, v in (properties or {}).items():
        if k.startswith("spark.") and k != "spark.master":
            conf[k] = str(v)
    for k, v in conf.items():
        builder = builder.config(k, v)
    nice = int((properties or {}).get(NICE_PROPERTY, DEFAULT_NICE) or 0)
    if nice <= 0 or not sys.platform.startswith("linux"):
        return builder.getOrCreate()
    return _started_niced(builder, nice)


def _started_niced(builder: Any, nice: int) -> Any:
    """``builder.getOrCreate()`` from a thread running ``nice`` steps below the caller (see the module)."""
    out: dict[str, Any] = {}

    def start() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, 0) + nice)
        except OSError:  # (not permitted: the session starts at the caller's priority)
            pass
        try:
            out["session"] = builder.getOrCreate()
        except BaseException as e:  # noqa: BLE001 - raised again in the caller
            out["error"] = e

    t = threading.Thread(target=start, name="ksqlpy-spark-start", daemon=True)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["session"]
