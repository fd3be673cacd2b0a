"""A pull query's WHERE compares DOUBLE values by the same rules as a push query's (expr/codegen): IN is
Double.equals (-0.0 is not IN (0.0), NaN is IN a list holding NaN), = is the unboxed operator (-0.0 = 0.0), a
DECIMAL operand makes the DOUBLE BigDecimal.valueOf(d) and a NaN row fails the filter."""

from __future__ import annotations

import pytest

from tests.stateful.conftest import Harness


@pytest.fixture
def table(h: Harness) -> Harness:
    h.sql("CREATE STREAM S (K STRING KEY, D DOUBLE) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
    h.sql("CREATE TABLE T AS SELECT K, LATEST_BY_OFFSET(D) AS D FROM S GROUP BY K;")
    # "-0.0" as text: a JSON number -0.0 reads as 0.0 (a BigDecimal has no negative zero), text is Double.parseDouble
    for ts, (k, d) in enumerate((("pos", 0.0), ("neg", "-0.0"), ("nan", "NaN"), ("tenth", 0.1), ("half", 0.5))):
        h.send("s", k, {"D": d}, 1000 + ts)
    h.run()
    return h


@pytest.mark.parametrize(("where", "keys"), [
    ("D IN (0.0)", ["pos"]),
    ("D IN (0)", ["pos"]),
    ("D IN (-0.0E0, SQRT(-1))", ["nan", "neg"]),
    ("D = 0.0", ["neg", "pos"]),             # BigDecimal.valueOf(-0.0) is 0
    ("D = CAST(0 AS DOUBLE)", ["neg", "pos"]),
    ("D = 0.1", ["tenth"]),
    ("D < 0.100000000000000001", ["neg", "pos", "tenth"]),  # the NaN row fails the filter
    ("D BETWEEN 0.1 AND 0.5", ["half", "tenth"]),
    ("D <> D", []),
    ("K = 'neg' AND D IN (0.0E0)", []),
    ("K = 'neg' AND D = 0.0E0", ["neg"]),
])
def test_pull_where_on_double(table: Harness, where: str, keys: list[str]) -> None:
    assert sorted(r[0] for r in table.pull(f"SELECT K FROM T WHERE {where};")) == keys
