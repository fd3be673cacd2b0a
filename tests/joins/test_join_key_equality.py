"""Which expressions a join treats as the same key: equality of bound expressions, not of printed text.

ksqlDB compares join expressions as expression trees (``Expression.equals``): parentheses are not part of
the tree, unquoted identifiers are upper-cased, a column is the same however it is qualified, and a
literal is its value (``01`` is the integer 1). Where the join reads its key (is a side already keyed by
its join expression? which viable key columns does the result have? which SELECT item is the key?) the
same rule applies, so every spelling of one expression behaves alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.analysis.query import analyze_query
from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import parse


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(str(tmp_path), {})
    for kind, name in (("STREAM", "L"), ("STREAM", "R"), ("STREAM", "S"), ("TABLE", "T"), ("TABLE", "U")):
        key = "PRIMARY KEY" if kind == "TABLE" else "KEY"
        e.execute(f"CREATE {kind} {name} (ID INT {key}, V INT, W INT) WITH (kafka_topic='{name.lower()}', "
                  "value_format='JSON', partitions=1);")
    yield e
    e.close()


def _join(engine: Engine, sql: str) -> Any:
    (stmt,) = parse(sql)
    plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False)
    return plan.bottom


def _schema(engine: Engine, sql: str) -> list[tuple[str, bool]]:
    engine.execute(sql)
    out = engine.catalog.source("OUT")
    assert out is not None
    return [(c.name, c.key) for c in out.columns]


# ----------------------------------------------------------------------------- a side keyed by its expression

SAME_KEY = ["L.ID = R.ID", "(L.ID) = (R.ID)", "l.id = r.Id", 'L."ID" = R.ID', "R.ID = L.ID", "((L.ID)) = R.ID"]


@pytest.mark.parametrize("on", SAME_KEY)
def test_stream_stream_on_both_keys_however_written_rekeys_neither_side(engine: Engine, on: str) -> None:
    node = _join(engine, f"SELECT * FROM L JOIN R WITHIN 1 SECOND ON {on} EMIT CHANGES;")
    assert (node.repartition_left, node.repartition_right) == (False, False)
    assert [(k.name, k.synthetic) for k in node.keys] == [("$JOIN_KEY", False)]


@pytest.mark.parametrize("on", ["(L.ID) = (R.ID)", "L.ID = (R.ID)", "(L.ID) = R.ID", "((L.ID)) = ((R.ID))"])
def test_a_parenthesized_key_column_is_a_viable_key_not_a_synthetic_one(engine: Engine, on: str) -> None:
    """ksqlDB: a side whose join expression is a plain column gives the result a viable key column."""
    assert _schema(engine, f"CREATE STREAM OUT AS SELECT L.ID, L.V FROM L JOIN R WITHIN 1 SECOND ON {on};") == [
        ("L_ID", True), ("L_V", False)]


@pytest.mark.parametrize("on", ["(T.ID) = (U.ID)", "T.ID = (U.ID)", "t.id = u.ID"])
def test_table_table_on_a_parenthesized_key_is_a_primary_key_join_with_both_keys_viable(engine: Engine,
                                                                                      on: str) -> None:
    node = _join(engine, f"SELECT * FROM T JOIN U ON {on} EMIT CHANGES;")
    assert node.flavor.name == "TABLE_TABLE"
    # the right table's key is a viable key column of the result
    assert _schema(engine, f"CREATE TABLE OUT AS SELECT U.ID, T.V FROM T JOIN U ON {on};") == [
        ("U_ID", True), ("T_V", False)]


@pytest.mark.parametrize("on", ["L.V = (T.ID)", "(T.ID) = L.V", "L.V = t.id"])
def test_stream_table_on_the_tables_key_however_written_is_accepted(engine: Engine, on: str) -> None:
    node = _join(engine, f"SELECT * FROM L JOIN T ON {on} EMIT CHANGES;")
    assert (node.repartition_left, node.repartition_right) == (True, False)


# ----------------------------------------------------------------------------- n-way: the key's equal expressions

@pytest.mark.parametrize("second", ["ABS(R.ID) = S.ID", "abs(R.ID) = S.ID", "(ABS((R.ID))) = S.ID",
                                    "S.ID = abs(r.id)"])
def test_a_later_step_on_an_expression_equal_to_the_key_reuses_the_key(engine: Engine, second: str) -> None:
    node = _join(engine, "SELECT * FROM L JOIN R WITHIN 1 SECOND ON L.ID = ABS(R.ID) "
                         f"JOIN S WITHIN 1 SECOND ON {second} EMIT CHANGES;")
    assert node.repartition_left is False
    assert not any(k.synthetic for k in node.keys)


@pytest.mark.parametrize("literal", ["1", "01", "001"])
def test_a_literal_is_its_value_when_comparing_key_expressions(engine: Engine, literal: str) -> None:
    """``01`` and ``1`` are the same INTEGER literal (ksqlDB's IntegerLiteral compares values)."""
    node = _join(engine, f"SELECT * FROM L JOIN T ON L.V + 1 = T.ID JOIN U ON L.V + {literal} = U.ID "
                         "EMIT CHANGES;")
    assert node.repartition_left is False


@pytest.mark.parametrize("other", ["L.V + 2", "1 + L.V", "L.W + 1", "L.V - 1", "CAST(L.V AS BIGINT) + 1"])
def test_a_different_expression_rekeys_the_earlier_join(engine: Engine, other: str) -> None:
    on = f"{other} = U.ID" if "BIGINT" not in other else f"CAST({other} AS INT) = U.ID"
    node = _join(engine, f"SELECT * FROM L JOIN T ON L.V + 1 = T.ID JOIN U ON {on} EMIT CHANGES;")
    assert node.repartition_left is True


def test_a_repeated_condition_however_written_is_refused_as_multiple_conditions(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match="joins on multiple conditions are not yet supported"):
        _join(engine, "SELECT * FROM L JOIN R WITHIN 1 SECOND ON L.ID = R.ID AND (l.id) = (R.ID) EMIT CHANGES;")


# ----------------------------------------------------------------------------- the projection's key column

@pytest.mark.parametrize("item", ["L.ID", "(L.ID)", "l.id", 'L."ID"', "((l.ID))"])
def test_the_key_selected_however_written_becomes_the_key_column(engine: Engine, item: str) -> None:
    assert _schema(engine, f"CREATE STREAM OUT AS SELECT {item} AS K, L.V FROM L JOIN R WITHIN 1 SECOND "
                           "ON L.ID = R.ID;") == [("K", True), ("L_V", False)]


@pytest.mark.parametrize("again", ["(L.ID)", "l.id", 'L."ID"'])
def test_the_key_selected_twice_in_different_spellings_is_refused(engine: Engine, again: str) -> None:
    with pytest.raises(KsqlStatementError, match=r"The projection contains a key column \(`L_ID`\) more than once"):
        engine.execute(f"CREATE STREAM OUT AS SELECT L.ID, {again} AS X, L.V FROM L JOIN R WITHIN 1 SECOND "
                       "ON L.ID = R.ID;")


def test_the_other_sides_key_in_any_spelling_is_an_ordinary_value_after_the_key(engine: Engine) -> None:
    assert _schema(engine, "CREATE STREAM OUT AS SELECT L.ID, (r.id) AS RID, L.V FROM L JOIN R WITHIN 1 SECOND "
                           "ON (L.ID) = R.ID;") == [("L_ID", True), ("RID", False), ("L_V", False)]


def test_an_expression_equal_to_a_join_expression_is_not_a_key_column(engine: Engine) -> None:
    """Only plain columns (and a synthetic key by its name) are viable keys; ``ABS(L.ID)`` selected is a
    value even when the join is on it, so the synthetic key is still missing."""
    with pytest.raises(KsqlStatementError, match=r"ROWKEY was added as a synthetic key column"):
        engine.execute("CREATE STREAM OUT AS SELECT ABS(L.ID) AS A, L.V FROM L JOIN R WITHIN 1 SECOND "
                       "ON ABS(L.ID) = (ABS(R.ID));")


def test_messages_name_keys_as_written_without_parentheses(engine: Engine) -> None:
    with pytest.raises(KsqlStatementError, match=r"must include the join expressions L\.ID or R\.ID in its "
                                                 r"projection \(eg, SELECT L\.ID\.\.\.\)"):
        engine.execute("CREATE STREAM OUT AS SELECT L.V FROM L JOIN R WITHIN 1 SECOND ON (L.ID) = ((R.ID));")
