"""The Spark backfill: a persistent query's history recomputed on PySpark, then handed to streaming.

``backfill(engine, sql)`` runs one CREATE STREAM/TABLE AS SELECT whose past input is processed by Spark
(tasks reading the log themselves) with the streaming runtime's own decoders,
generated pipelines, aggregators and serializers, and whose state is then handed to the streaming query,
which continues at the next offset. See docs/backfill.md. PySpark is optional (``ksqlpy[spark]``):
nothing here imports it until a backfill runs.
"""

from ksqlpy.backfill.handoff import BackfillResult
from ksqlpy.backfill.run import backfill
from ksqlpy.backfill.support import BackfillUnsupported

__all__ = ["BackfillResult", "BackfillUnsupported", "backfill"]
