"""ksqlDB's JoinTree places the joins by their criteria, not by the order written.

The tree starts from the first criteria's source other than the one that join adds - usually the FROM source,
but a source joined later when the criteria names it. Each later join adds the source the tree lacks: its own
joined source, or, when that one is already in the tree, the criteria's other source, the join flipped (LEFT
and RIGHT exchanged). A join whose two sources are both in the tree is circular; one with neither cannot be
placed. The result's columns (SELECT *) follow the tree's order, and the kinds (stream or table) of the
tree's steps decide which joins are allowed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("tree")), {})
    for name in "ABCD":
        e.execute(f"CREATE STREAM S{name} (ID INT KEY, V{name} INT) "
                  f"WITH (kafka_topic='s{name.lower()}', value_format='JSON', partitions=1);")
        e.execute(f"CREATE TABLE T{name} (ID INT PRIMARY KEY, W{name} INT) "
                  f"WITH (kafka_topic='t{name.lower()}', value_format='JSON', partitions=1);")
    yield e
    e.close()


_counter = iter(range(10_000))


def _columns(engine: Engine, select: str, kind: str = "STREAM") -> list[str]:
    name = f"O{next(_counter)}"
    engine.execute(f"CREATE {kind} {name} AS {select};")
    return [c.name for c in engine.catalog.source(name).columns]


@pytest.mark.parametrize("kind", ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN"])
@pytest.mark.parametrize("flipped", [False, True])
def test_three_streams_start_from_the_source_the_first_criteria_names(engine: Engine, kind: str,
                                                                       flipped: bool) -> None:
    first = "SC.ID = SB.ID" if flipped else "SB.ID = SC.ID"
    cols = _columns(engine, f"SELECT * FROM SA {kind} SB WITHIN 1 SECOND ON {first} "
                            f"{kind} SC WITHIN 1 SECOND ON SA.ID = SC.ID")
    # a FULL OUTER join's key is neither side's column: the synthetic ROWKEY
    key = ["ROWKEY"] if kind.startswith("FULL") else []
    assert cols == [*key, "SC_ID", "SC_VC", "SB_ID", "SB_VB", "SA_ID", "SA_VA"]


@pytest.mark.parametrize("kind", ["JOIN", "LEFT JOIN", "RIGHT JOIN"])
def test_three_tables(engine: Engine, kind: str) -> None:
    cols = _columns(engine, f"SELECT * FROM TA {kind} TB ON TB.ID = TC.ID {kind} TC ON TA.ID = TC.ID", "TABLE")
    assert cols == ["TC_ID", "TC_WC", "TB_ID", "TB_WB", "TA_ID", "TA_WA"]


def test_four_sources_each_join_flipped_after_the_first(engine: Engine) -> None:
    cols = _columns(engine, "SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID "
                            "JOIN SC WITHIN 1 SECOND ON SC.ID = SD.ID JOIN SD WITHIN 1 SECOND ON SD.ID = SA.ID")
    assert cols == ["SC_ID", "SC_VC", "SB_ID", "SB_VB", "SD_ID", "SD_VD", "SA_ID", "SA_VA"]


def test_a_later_join_may_name_an_earlier_source_on_both_sides_of_the_tree(engine: Engine) -> None:
    # the tree {SC, SB} gets SA through the third join only after the second added SD to it
    cols = _columns(engine, "SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID "
                            "JOIN SC WITHIN 1 SECOND ON SA.ID = SC.ID JOIN SD WITHIN 1 SECOND ON SB.ID = SD.ID")
    assert cols == ["SC_ID", "SC_VC", "SB_ID", "SB_VB", "SA_ID", "SA_VA", "SD_ID", "SD_VD"]


def test_from_a_table_a_tree_rooted_at_a_stream_gives_a_stream(engine: Engine) -> None:
    cols = _columns(engine, "SELECT * FROM TA JOIN TB ON TB.ID = SC.ID JOIN SC ON SC.ID = TA.ID")
    assert cols == ["SC_ID", "SC_VC", "TB_ID", "TB_WB", "TA_ID", "TA_WA"]
    with pytest.raises(KsqlError, match="Invalid result type. Your SELECT query produces a STREAM"):
        engine.execute("CREATE TABLE OX AS SELECT * FROM TA JOIN TB ON TB.ID = SC.ID JOIN SC ON SC.ID = TA.ID;")


@pytest.mark.parametrize(("sql", "message"), [
    ("SELECT * FROM SA JOIN TB ON TB.ID = TC.ID JOIN TC ON SA.ID = TC.ID",
     "Invalid join order: table-stream joins are not supported; only stream-table joins. Got TC [INNER] JOIN SA."),
    # the flipped LEFT join is a RIGHT join of the stream-table kind
    ("SELECT * FROM TA LEFT JOIN TB ON TB.ID = SC.ID LEFT JOIN SC ON SC.ID = TA.ID",
     "Invalid join type encountered: RIGHT [OUTER] JOIN"),
    ("SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = TC.ID JOIN TC ON SA.ID = TC.ID",
     "Invalid join order: table-stream joins are not supported; only stream-table joins. Got TC [INNER] JOIN SB."),
    ("SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID JOIN SC ON SA.ID = SC.ID",
     "Stream-Stream joins must have a WITHIN clause specified."),
])
def test_the_tree_decides_the_kinds_of_its_steps(engine: Engine, sql: str, message: str) -> None:
    with pytest.raises(KsqlError) as info:
        engine.execute(sql + " EMIT CHANGES;")
    assert message in str(info.value)


def test_key_missing_names_the_keys_in_tree_order(engine: Engine) -> None:
    with pytest.raises(KsqlError) as info:
        engine.execute("CREATE STREAM OK1 AS SELECT SA.VA FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID "
                       "JOIN SC WITHIN 1 SECOND ON SA.ID = SC.ID;")
    assert "must include the join expressions SC.ID, SB.ID or SA.ID in its projection" in str(info.value)


@pytest.mark.parametrize(("sql", "message"), [
    ("SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID JOIN SC WITHIN 1 SECOND ON SB.ID = SC.ID",
     "Cannot perform circular join - both `SC` and SB.ID are already included in the current join tree"),
    ("SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SB.ID = SC.ID JOIN SC WITHIN 1 SECOND ON SC.ID = SD.ID "
     "JOIN SD WITHIN 1 SECOND ON SD.ID = SB.ID",
     "Cannot perform circular join - both `SD` and SB.ID are already included in the current join tree"),
    ("SELECT * FROM SA JOIN SB WITHIN 1 SECOND ON SA.ID = SB.ID JOIN SC WITHIN 1 SECOND ON SC.ID = SD.ID "
     "JOIN SD WITHIN 1 SECOND ON SD.ID = SA.ID",
     "Cannot build JOIN tree; neither source in the join is the FROM source or included in a previous JOIN"),
])
def test_circular_and_unplaceable_joins_are_refused(engine: Engine, sql: str, message: str) -> None:
    with pytest.raises(KsqlError) as info:
        engine.execute(sql + " EMIT CHANGES;")
    assert message in str(info.value)
