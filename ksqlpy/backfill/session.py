"""The SparkSession a backfill runs on: one per process, reused (starting the JVM takes seconds).

``spark.master`` defaults to ``local[*]``; every ``spark.*`` engine property passes through to the
session builder, so a cluster is a matter of configuration. The driver binds to loopback unless
``spark.driver.host`` / ``spark.driver.bindAddress`` say otherwise (a remote cluster needs them). Spark's Python workers run this
interpreter (``PYSPARK_PYTHON`` unless set), so they import the same ksqlpy.
"""

from __future__ import annotations

import os
import sys
from typing import Any

DEFAULT_MASTER = "local[*]"

_DEFAULTS = {
    # the driver, its block manager and the UI listen on loopback only unless configured otherwise
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "10000",
    "spark.sql.shuffle.partitions": "8",
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
    return builder.getOrCreate()
