"""Checks ksqlDB makes on one join step: WITHIN where (and only where) it belongs, windowing of the two
sides, and key types a join can be keyed by."""

from __future__ import annotations

from typing import Any

from ksqlpy import types as T
from ksqlpy.catalog import WindowInfo
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar.ast import JoinClause, WithinSpec
from ksqlpy.plan.logical import Join, JoinFlavor, JoinKey, ResultKind


def check_within(jc: JoinClause, left_kind: ResultKind, right_kind: ResultKind) -> None:
    if left_kind is right_kind is ResultKind.STREAM:
        if jc.within is None:
            raise KsqlStatementError(
                "Stream-Stream joins must have a WITHIN clause specified. None was provided. To learn about how to "
                "specify a WITHIN clause with a stream-stream join, please visit: "
                "https://docs.confluent.io/current/ksql/docs/syntax-reference.html#create-stream-as-select")
        check_join_window(jc.within)
    elif jc.within is not None:
        if left_kind is right_kind is ResultKind.TABLE:
            raise KsqlStatementError(
                "A window definition was provided for a Table-Table join. These joins are not windowed. Please "
                "drop the window definition (i.e. the WITHIN clause) and try to execute your Table-Table join "
                "again.")
        raise KsqlStatementError(
            "A window definition was provided for a Stream-Table join. These joins are not windowed. Please drop "
            "the window definition (ie. the WITHIN clause) and try to execute your join again.")


def check_windows(left: Any, right: Any) -> None:
    """``left``/``right``: join inputs (``name``, ``windowed``)."""
    lw, rw = left.windowed, right.windowed
    if (lw is None) != (rw is None):
        def line(inp: Any, w: WindowInfo | None) -> str:
            return f"`{inp.name}` is {w.type.upper()} windowed" if w else f"`{inp.name}` is not windowed"

        raise KsqlStatementError("Can not join windowed source to non-windowed source.\n"
                                 f"{line(left, lw)}\n{line(right, rw)}")
    if lw is not None and rw is not None and (lw.type.upper() == "SESSION") != (rw.type.upper() == "SESSION"):
        raise KsqlStatementError(
            f"Incompatible windowed sources.\nLeft source: {lw.type.upper()}\nRight source: {rw.type.upper()}\n"
            "Session windowed sources can only be joined to other session windowed sources, and may still not "
            "result in expected behaviour as session bounds must be an exact match for the join to work\n"
            "Hopping and tumbling windowed sources can only be joined to other hopping and tumbling windowed "
            "sources")



def check_foreign_key_join(kind: str, described: str, conditions: list[str], *, n_way: bool) -> None:
    """What ksqlDB refuses of a foreign-key table-table join: FULL and RIGHT joins, and joining by a foreign
    key inside an n-way join - ``n_way``: the step's left side is the result of earlier steps. ksqlDB's
    ``LogicalPlanner.verifyJoin`` (from memory) refuses a foreign-key join unless both its inputs are data
    source nodes, so the innermost join of an n-way join may be one; any later step may not."""
    if kind == "FULL":
        raise KsqlStatementError("Invalid join type: full-outer join not supported for foreign-key table-table "
                                 f"join. Got {described}.")
    if kind == "RIGHT":
        raise KsqlStatementError("RIGHT OUTER JOIN on a foreign key is not supported")
    if n_way:
        raise KsqlStatementError("Invalid join condition: foreign-key table-table joins are not supported as part "
                                 f"of n-way joins. Got {' AND '.join(conditions)}.")


def table_rekey_refusal(key: str, *expressions: str) -> KsqlStatementError:
    """ksqlDB's ``SchemaKTable.selectKey`` refusing to re-key a table (from memory): the table's key column's
    name, then the list of key expressions it was asked for, printed as a Java list (``[T1_ID]``)."""
    return KsqlStatementError("Cannot repartition a TABLE source. If this is a join, make sure that the criteria "
                              f"uses the TABLE's key column {key} instead of [{', '.join(expressions)}]")


def join_key_column(node: Join) -> str:
    """The key column of a join result as ksqlDB's JoinNode names it in its schema: the synthetic ``ROWKEY``,
    a foreign-key join's left table key under its joined name (``L_ID``: ksqlDB's ``JoinKey.foreignKey`` over
    the left source's key columns), else the column the key equals (``T1_ID``)."""
    k = node.keys[0]
    if k.synthetic:
        return k.name
    if node.flavor is JoinFlavor.FOREIGN_KEY:
        leaf = node.leaves[0]
        return f"{leaf.alias}_{leaf.source.key_columns[0].name}"
    return k.display or k.name


def check_key_type(k: JoinKey) -> None:
    if T.contains_map(k.type):
        name = k.display or k.name
        raise KsqlStatementError(
            "Map keys, including types that contain maps, are not supported as they may lead to unexpected "
            f"behavior due to inconsistent serialization. Key column name: `{name}`. Column type: {k.type}. "
            "See https://github.com/confluentinc/ksql/issues/6621 for more.")


DAY_MS = 24 * 3600 * 1000
WINDOW_INTERVAL_NEGATIVE = "Window interval (ie, beforeMs+afterMs) must not be negative."


def check_join_window(w: WithinSpec) -> None:
    """Kafka Streams' JoinWindows as ksqlDB builds a WITHIN: ``of(before)`` (or ``ofTimeDifferenceAndGrace(before,
    grace)``) - a window of ``before`` on both sides -, then ``.after(after)``; each constructor refuses a
    negative interval (before + after), then a negative grace (messages from memory of Kafka's JoinWindows).
    ``WITHIN (2 SECONDS, -1 SECOND)`` is a window [-2 s, -1 s] and is accepted. The interval is Java long
    arithmetic: ``WITHIN 9223372036854775807 MILLISECONDS`` (a duration saturated there) overflows to a
    negative interval and is refused."""
    if _java_long(w.before_ms + w.before_ms) < 0:
        raise KsqlStatementError(WINDOW_INTERVAL_NEGATIVE)
    if w.grace_ms is not None and w.grace_ms < 0:
        raise KsqlStatementError("Grace period must not be negative.")
    if _java_long(w.before_ms + w.after_ms) < 0:
        raise KsqlStatementError(WINDOW_INTERVAL_NEGATIVE)
    # then the join builds its window stores (``KStreamImplJoin``, from memory): retention = size + grace,
    # the grace of ``of(before)`` being what is left of 24 hours after 2 x before; ``Stores.persistentWindowStore``
    # refuses a retention that overflowed
    grace = w.grace_ms if w.grace_ms is not None else max(_java_long(DAY_MS - _java_long(2 * w.before_ms)), 0)
    if _java_long(_java_long(w.before_ms + w.after_ms) + grace) < 0:
        raise KsqlStatementError("retentionPeriod cannot be negative")


def _java_long(n: int) -> int:
    """``n`` wrapped as a Java long's arithmetic wraps it."""
    return (n + 2**63) % 2**64 - 2**63
