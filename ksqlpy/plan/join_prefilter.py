"""The conjuncts of a join query's WHERE that the stream side of a stream-table join can apply to its own
records before they are re-keyed and joined, that an INNER stream-table join checks on the table row it
finds, and that an INNER stream-stream join checks on a matched pair before building its row.

ksqlDB filters after the join (its plan, and the topology ksqlpy describes, stay so); the WHERE still runs
there on every joined row. Applied early as well, a conjunct only saves work: a stream record of a
stream-table join (INNER or LEFT) yields at most one row, which carries the record's columns unchanged,
so a conjunct over those columns alone is false for that row exactly when it is false for the record -
and a stream-table join keeps no time or other state that a dropped stream record would have moved. Only
conjuncts that cannot fail are taken (columns and literals compared, combined, tested for NULL, of
primitive types, numeric widening the only conversion), so no record's processing-log entry moves
either. Stream-stream joins are left alone: a record kept in a window store is matched by the other
side's later records, which an outer join would then emit unmatched.
"""

from __future__ import annotations

from dataclasses import replace

from ksqlpy.expr import bound as B
from ksqlpy.plan.logical import Filter, Join, JoinFlavor, JoinKind, Scan

_NUMERIC = frozenset({"INTEGER", "BIGINT", "DOUBLE"})
_SCALAR = _NUMERIC | {"STRING", "BOOLEAN"}


def _family(t: object) -> str | None:
    name = getattr(t, "name", None)
    if name in _NUMERIC:
        return "NUMBER"
    return name if name in _SCALAR else None


def _safe(e: B.Expr, columns: range) -> bool:
    """``e`` reads only columns in ``columns`` and cannot raise (nor convert but by numeric widening)."""
    if isinstance(e, B.ColumnRef):
        return e.index in columns and _family(e.type) is not None
    if isinstance(e, B.Literal):
        return e.value is None or _family(e.type) is not None
    if isinstance(e, B.Cast):
        return (e.implicit and getattr(e.type, "name", None) in _NUMERIC
                and getattr(e.operand.type, "name", None) in _NUMERIC and _safe(e.operand, columns))
    if isinstance(e, B.Arithmetic):
        # integer arithmetic wraps as Java's does and cannot fail; a division or remainder only by a positive
        # literal (no zero divisor, no MIN / -1)
        if getattr(e.type, "name", None) not in ("INTEGER", "BIGINT") or not _safe(e.left, columns):
            return False
        if e.op in (B.ArithOp.DIVIDE, B.ArithOp.MODULUS):
            r = e.right
            while isinstance(r, B.Cast) and r.implicit:
                r = r.operand
            return isinstance(r, B.Literal) and type(r.value) is int and r.value > 0
        return _safe(e.right, columns)
    if isinstance(e, B.Comparison):
        fl, fr = _family(e.left.type), _family(e.right.type)
        return fl is not None and fl == fr and _safe(e.left, columns) and _safe(e.right, columns)
    if isinstance(e, B.Logical):
        return _safe(e.left, columns) and _safe(e.right, columns)
    if isinstance(e, (B.Not, B.IsNull)):
        return _safe(e.operand, columns)
    return False


def _conjuncts(e: B.Expr) -> list[B.Expr]:
    if isinstance(e, B.Logical) and e.op is B.LogicOp.AND:
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _block_conjuncts(where: Filter, join: Join, *leaves: Scan) -> list[B.Expr]:
    """The safe conjuncts of ``where`` over the blocks of ``leaves`` alone (adjacent in the join's row, in
    that order), rewritten over those blocks side by side."""
    # the join's row: its key columns, then every block, then the pseudo columns
    names = [c.name for c in join.schema.columns]
    mine = [c.name for leaf in leaves for c in leaf.columns]
    start = names.index(mine[0]) if mine and mine[0] in names else -1
    if start < 0 or names[start:start + len(mine)] != mine:
        return []
    block = range(start, start + len(mine))

    def to_block(e: B.Expr) -> B.Expr:
        return replace(e, index=e.index - start) if isinstance(e, B.ColumnRef) else e

    return [c.transform(to_block) for c in _conjuncts(where.predicate) if _safe(c, block)]


def table_prefilter(where: Filter | None, join: Join) -> list[B.Expr]:
    """The conjuncts of ``where`` (right above the query's top ``join``) over the table side's own columns
    that an INNER stream-table join checks on the table row it finds: a stream record meeting a row that
    fails one yields a joined row the WHERE drops, so it is not built. None for other joins (a LEFT join
    would emit the record unmatched instead)."""
    if (where is None or where.input is not join or join.flavor is not JoinFlavor.STREAM_TABLE
            or join.kind is not JoinKind.INNER or not isinstance(join.right, Scan)):
        return []
    return _block_conjuncts(where, join, join.right)


def stream_prefilter(where: Filter | None, join: Join) -> list[B.Expr]:
    """The conjuncts of ``where`` (the WHERE right above the query's top ``join``) that the join's stream
    side can apply first, over that side's own columns (its block); none when the join is no INNER or
    LEFT stream-table join of a source stream."""
    if (where is None or where.input is not join or join.flavor is not JoinFlavor.STREAM_TABLE
            or join.kind not in (JoinKind.INNER, JoinKind.LEFT) or not isinstance(join.left, Scan)):
        return []
    return _block_conjuncts(where, join, join.left)


def pair_prefilter(where: Filter | None, join: Join) -> list[B.Expr]:
    """The conjuncts of ``where`` (right above the query's top ``join``) over the two sides' own columns
    that an INNER stream-stream join checks on each pair of records it matches, rewritten over the two
    blocks side by side (left, then right): a pair failing one yields a joined row the WHERE drops, so it
    is not built. Both records are still stored and move stream time as before - only the row goes. None
    for other joins (an outer join would emit an unmatched record instead) and n-way steps."""
    if (where is None or where.input is not join or join.flavor is not JoinFlavor.STREAM_STREAM
            or join.kind is not JoinKind.INNER or not isinstance(join.left, Scan)
            or not isinstance(join.right, Scan)):
        return []
    return _block_conjuncts(where, join, join.left, join.right)
