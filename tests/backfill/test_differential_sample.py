"""Invariant 1 over conformance cases: a sample of our own QTT cases, one or more per rule area the backfill
runs (aggregations and their formats, every window kind and its lateness, EMIT FINAL, repartitioned GROUP BY,
table functions, serdes, expression errors into the processing log, joins and TABLE sources on the replay
lowering), each run streaming and backfilled on
Spark with the sinks compared (``ksqlpy.testing.differential``, ``ksqlpy test --backfill-differential``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.testing.differential import Outcome, run_differential
from ksqlpy.testing.extension import with_test_functions
from ksqlpy.testing.runner import load_cases

pytestmark = pytest.mark.slow

CASES = Path(__file__).resolve().parents[1] / "cases"

# file -> case names (each must be supported by the backfill and write records)
SAMPLE: dict[str, tuple[str, ...]] = {
    "aggregation.json": ("running count and sum per user, one update per input",
                         "tumbling windows count per key and carry their bounds"),
    "aggregation-edges.json": ("ROWTIME, ROWPARTITION and ROWOFFSET as aggregate arguments",
                               "a TIMESTAMP column places records in windows and stamps the results",
                               "a record with a null key grouped by the key is dropped"),
    "aggregation-shapes.json": ("emit final on hopping windows finds closed windows still retained",
                                "emit final on session windows", "emit final with a grace period",
                                "aggregate stream grouped by non key column in four partitions"),
    "session-windows.json": ("session max merges and tombstones the merged sessions",
                             "a record between two sessions merges all three",
                             "session late record after gap and grace is dropped"),
    "window-lateness.json": ("tumbling: a window ending at stream time - grace is closed, the next one is open",
                             "hopping: one record is late for its older window and on time for the newer one",
                             "session: lateness is judged on the merged session, not the record"),
    "window-rules.json": ("hopping windows start at multiples of the advance when the size is not one",),
    "window-grace-defaults.json": ("session default grace is a day minus the gap",),
    "windowed-keys.json": ("tumbling key format KAFKA", "session key format KAFKA"),
    "windowed-sources.json": ("filter windowed stream on windowstart", "hopping windowed count"),
    "table-functions.json": ("EXPLODE gives a row per element, none for a NULL or empty array, NULL elements kept, "
                             "timestamps inherited", "a field of each exploded struct"),
    "aggregate-formats.json": ("collect_list INTEGER [AVRO]", "collect_list INTEGER [PROTOBUF]",
                               "collect_set INTEGER [AVRO]"),
    "serde-rules.json": ("json decimals must fit", "delimited reads empty fields as null and writes them empty"),
    "null-arithmetic.json": ("a NULL operand fails the whole expression: COALESCE, IS NULL, CASE and comparisons "
                             "around it do not answer",
                             "a WHERE with arithmetic on a NULL operand drops the row, even under IS NULL"),
    "partition-by.json": ("a null row re-keyed by ROWTIME gets a NULL key part, as every value-side column",),
    "text-functions.json": ("TO_JSON_STRING writes DATE, TIME and TIMESTAMP as ISO text, at any depth",),
    "json-reading.json": ("nested NULLs are kept: struct fields, array elements, map values",),
    "with-clause.json": ("a tab-delimited copy keeps its delimiters",),
    # the replay lowering: joins of every kind and TABLE sources
    "joins/stream-table-changes.json": ("INNER stream-table join, JSON values: table updates, deletes and late "
                                        "stream records",
                                        "INNER stream-table join, AVRO values: table updates, deletes and late "
                                        "stream records"),
    "joins/table-table-changes.json": ("INNER table-table join, PROTOBUF values: updates, deletes and re-added keys",
                                       "FULL table-table join, PROTOBUF values: updates, deletes and re-added keys"),
    "joins/stream-stream-windows.json": ("INNER WITHIN 1 SECOND GRACE PERIOD 2 SECONDS, records out of order",
                                         "INNER WITHIN 1 SECOND (no grace), records after an emptied outer store"),
    "joins/foreign-key-formats.json": ("KAFKA/KAFKA INT foreign key LEFT",),
    "join-rules.json": ("stream stream join output time is the later side", "left join unmatched stream rows keep nulls"),
    "table-where.json": ("a source delete passes a filtered table only for a key whose row matched [JSON]",
                         "a table grouped after a WHERE retracts a row only when it had matched [JSON]"),
}


def _cases(sample: dict[str, tuple[str, ...]] | None = None) -> list[Any]:
    out = []
    for file, names in (SAMPLE if sample is None else sample).items():
        by_name = {c.name: c for c in load_cases([CASES / file])}
        out += [by_name[n] for n in names]
    return out


def _factory(data_dir: str, properties: dict[str, Any]) -> Engine:
    return Engine(data_dir, with_test_functions(properties))


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_backfill_sink_equals_streaming_sink(spark: Any, case: Any) -> None:
    result = run_differential(case, spark, _factory, live=0.5)
    assert result.outcome is Outcome.EQUAL, result.reason
    assert result.records > 0  # the comparison saw records


# the native tier (Spark's own aggregates over Arrow-decoded batches) on cases it lowers
NATIVE: dict[str, tuple[str, ...]] = {
    "aggregations/cross-stream-aggregates.json": ("SUM of INT over nulls keeps INTEGER [AVRO]",),
    "aggregations/cross-windowed-aggregates.json": ("HOPPING with bounds in the projection, key KAFKA",),
    "aggregations/group-by-repartition.json": ("stream grouped by the key - JSON key - 1 partition(s)",),
    "aggregations/udaf-scope.json": ("COUNT of INT into PROTOBUF",),
    "aggregations/windowed-structured-keys.json": ("TUMBLING grouped by K, N, key JSON",),
}


@pytest.mark.parametrize("case", _cases(NATIVE), ids=lambda c: c.id)
def test_native_tier_sink_equals_streaming_sink(spark: Any, case: Any) -> None:
    result = run_differential(case, spark, _factory, backfill_properties={"ksqlpy.backfill.tier": "native"}, live=0.5)
    assert result.outcome is Outcome.EQUAL, result.reason
    assert result.records > 0
