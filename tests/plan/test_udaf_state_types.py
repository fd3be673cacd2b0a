"""Each built-in aggregate's state (intermediate) type, as the aggregate store's changelog registers it
after the required columns (``KSQL_AGG_VARIABLE_<n>``): ksqlDB's UDAF aggregate schemas, from memory of
its Kudaf/Udaf classes (AverageUdaf, StandardDeviationSampUdaf, CorrelationUdaf, KudafByOffsetUtils,
TopkKudaf, CountDistinct, Attr, HistogramUdaf, ...). The internal encoding of our own stores is private; this type
is what a schema-registry value format registers and what DELIMITED refuses when it is not primitive."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ksqlpy.engine import Engine

SEQ_VAL = "STRUCT<`SEQ` BIGINT, `VAL` {}>"
STDDEV = "STRUCT<`SUM` {}, `COUNT` BIGINT, `M2` DOUBLE>"
CASES = [
    ("COUNT(*)", "BIGINT"), ("COUNT(I)", "BIGINT"),
    ("SUM(I)", "INTEGER"), ("SUM(L)", "BIGINT"), ("SUM(D)", "DOUBLE"), ("SUM(N)", "DECIMAL(4, 2)"),
    ("SUM_LIST(AI)", "INTEGER"), ("SUM_LIST(AD)", "DOUBLE"),
    ("AVG(I)", "STRUCT<`SUM` INTEGER, `COUNT` BIGINT>"), ("AVG(L)", "STRUCT<`SUM` BIGINT, `COUNT` BIGINT>"),
    ("AVG(D)", "STRUCT<`SUM` DOUBLE, `COUNT` BIGINT>"),
    ("MIN(I)", "INTEGER"), ("MAX(S)", "STRING"), ("MIN(N)", "DECIMAL(4, 2)"),
    ("COLLECT_LIST(S)", "ARRAY<STRING>"), ("COLLECT_SET(I)", "ARRAY<INTEGER>"),
    ("HISTOGRAM(S)", "MAP<STRING, BIGINT>"),
    ("TOPK(I, 2)", "ARRAY<INTEGER>"), ("TOPKDISTINCT(D, 2)", "ARRAY<DOUBLE>"),
    ("EARLIEST_BY_OFFSET(S)", SEQ_VAL.format("STRING")), ("LATEST_BY_OFFSET(I)", SEQ_VAL.format("INTEGER")),
    ("LATEST_BY_OFFSET(L, false)", SEQ_VAL.format("BIGINT")),
    ("LATEST_BY_OFFSET(I, 2)", f"ARRAY<{SEQ_VAL.format('INTEGER')}>"),
    ("EARLIEST_BY_OFFSET(L, 2, false)", f"ARRAY<{SEQ_VAL.format('BIGINT')}>"),
    ("STDDEV_SAMP(I)", STDDEV.format("INTEGER")), ("STDDEV_SAMP(L)", STDDEV.format("BIGINT")),
    ("STDDEV_SAMP(D)", STDDEV.format("DOUBLE")), ("STDDEV_SAMPLE(D)", STDDEV.format("DOUBLE")),
    ("CORRELATION(D, L)", "STRUCT<`X_SUM` DOUBLE, `Y_SUM` DOUBLE, `X_SQUARED_SUM` DOUBLE, `Y_SQUARED_SUM` DOUBLE, "
                          "`XY_SUM` DOUBLE, `COUNT` BIGINT>"),
    ("COUNT_DISTINCT(S)", "ARRAY<INTEGER>"),
    ("ATTR(S)", "ARRAY<STRUCT<`VALUE` STRING, `COUNT` INTEGER>>"),
    ("ATTR(N)", "ARRAY<STRUCT<`VALUE` DECIMAL(4, 2), `COUNT` INTEGER>>"),
    ("TOPK(D, S, 2)", "ARRAY<STRUCT<`sort_col` DOUBLE, `col0` STRING>>"),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(Path(tmp_path_factory.mktemp("udaf"))), {"ksql.service.id": "t_"})
    e.execute("CREATE STREAM S (K STRING KEY, G STRING, I INT, L BIGINT, D DOUBLE, N DECIMAL(4,2), S STRING, "
              "AI ARRAY<INT>, AD ARRAY<DOUBLE>) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    yield e
    e.close()


@pytest.mark.parametrize(("call", "state"), CASES)
def test_the_aggregate_store_holds_each_udaf_state_type(engine: Engine, call: str, state: str) -> None:
    name = f"T{CASES.index((call, state))}"
    engine.execute(f"CREATE TABLE {name} AS SELECT G, {call} AS V FROM S GROUP BY G;")
    (query,) = [q for q in engine.queries.values() if q.sink_name == name]
    (topic,) = [t for t in query.built.topology.topics
                if t.name.endswith("-Aggregate-Aggregate-Materialize-changelog")]
    assert topic.key is not None
    assert [(n, str(t)) for n, t in topic.key.values[-1:]] == [("KSQL_AGG_VARIABLE_0", state)]
