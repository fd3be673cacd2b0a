"""A join's criteria must name the source that join adds (ksqlDB's Analyzer, visitJoinedSource).

A criteria naming two other sources of the query - the FROM source or an earlier one, and one joined later -
is refused with ``A join criteria is expected to reference the source (`<joined>`) in the FROM clause, instead
the right source references `<R>` and the left source references `<L>` ``, R and L being the sources of the
comparison's right and left sides as written. The scope: every join kind of stream-stream, stream-table and
table-table joins, with and without aliases, 3 and 4 sources, the faulty join at each place but the last, and
both orders of the comparison.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError

KINDS = {
    "stream-stream": ("S", ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "INNER JOIN", "LEFT OUTER JOIN"]),
    "stream-table": ("T", ["JOIN", "LEFT JOIN", "INNER JOIN", "LEFT OUTER JOIN"]),
    "table-table": ("T", ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "RIGHT OUTER JOIN"]),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("joins")), {})
    for i in range(1, 5):
        e.execute(f"CREATE STREAM S{i} (ID INT KEY, V{i} INT) "
                  f"WITH (kafka_topic='s{i}', value_format='JSON', partitions=1);")
        e.execute(f"CREATE TABLE T{i} (ID INT PRIMARY KEY, W{i} INT) "
                  f"WITH (kafka_topic='t{i}', value_format='JSON', partitions=1);")
    yield e
    e.close()


def _cases() -> Iterator[tuple[str, int, int, bool, bool, str]]:
    for family, (_, kinds) in KINDS.items():
        for n in (3, 4):
            for bad in range(1, n - 1):  # the join (1-based) whose criteria names a later source
                for aliased in (False, True):
                    for flipped in (False, True):
                        yield family, n, bad, aliased, flipped, kinds[(n + bad) % len(kinds)]


@pytest.mark.parametrize(("family", "n", "bad", "aliased", "flipped", "kind"), list(_cases()))
def test_a_criteria_naming_a_later_source_is_refused(engine: Engine, family: str, n: int, bad: int, aliased: bool,
                                                     flipped: bool, kind: str) -> None:
    first = "T1" if family == "table-table" else "S1"
    joined_prefix = "S" if family == "stream-stream" else "T"
    sources = [first] + [f"{joined_prefix}{i}" for i in range(2, n + 1)]
    names = [f"X{i}" for i in range(1, n + 1)] if aliased else sources
    within = " WITHIN 1 SECOND" if family == "stream-stream" else ""
    sql = f"SELECT * FROM {sources[0]}{' ' + names[0] if aliased else ''}"
    for j in range(1, n):
        other = names[bad + 1] if j == bad else names[j]  # the faulty join names the source after its own
        left, right = (other, names[0]) if flipped and j == bad else (names[0], other)
        sql += f" {kind} {sources[j]}{' ' + names[j] if aliased else ''}{within} ON {left}.ID = {right}.ID"
    sql += " EMIT CHANGES;"
    with pytest.raises(KsqlError) as info:
        engine.execute(sql)
    left, right = (names[bad + 1], names[0]) if flipped else (names[0], names[bad + 1])
    assert str(info.value).endswith(
        f"A join criteria is expected to reference the source (`{names[bad]}`) in the FROM clause, instead the "
        f"right source references `{right}` and the left source references `{left}`"), sql


@pytest.mark.parametrize("kind", ["JOIN", "LEFT JOIN"])
def test_the_joined_source_named_on_either_side_is_accepted(engine: Engine, kind: str) -> None:
    for criteria in ("S1.ID = T2.ID", "T2.ID = S1.ID"):
        engine.execute(f"SELECT * FROM S1 {kind} T2 ON {criteria} {kind} T3 ON T3.ID = S1.ID EMIT CHANGES LIMIT 1;")


def test_in_persistent_queries_too(engine: Engine) -> None:
    with pytest.raises(KsqlError, match=r"expected to reference the source \(`T2`\)"):
        engine.execute("CREATE STREAM O AS SELECT * FROM S1 JOIN T2 ON S1.ID = T3.ID JOIN T3 ON S1.ID = T3.ID;")
