"""A join step's key: whether each side is already keyed by the criteria (a table side must be joined on its
primary key), and the result's key columns - ``$JOIN_KEY`` names shown as the first viable column, or a
synthetic ``ROWKEY[_n]`` when no column carries the key (a FULL join, or expressions on both sides)."""

from __future__ import annotations

import re

from ksqlpy import types as T
from ksqlpy.analysis.join_criteria import Condition
from ksqlpy.analysis.join_inputs import StepInput
from ksqlpy.analysis.join_keys import KeyBinder, KeyExpr
from ksqlpy.analysis.join_projection import KeyComponent
from ksqlpy.analysis.join_scope import SYNTHETIC_KEY_PREFIX
from ksqlpy.errors import KsqlStatementError
from ksqlpy.plan.logical import ColumnRole, Join, JoinFlavor, JoinKey, JoinKind, ResultKind, SchemaColumn

KEY_PREFIX = "$JOIN_KEY"
_SUFFIX = re.compile(r"_([0-9]+)")


def order_by_key(conds: list[Condition], right: StepInput, left: StepInput, described: str) -> list[Condition]:
    """Joins with a table: each condition's right side is a primary-key column, in key order."""
    keys = [cl[0] for cl in right.classes]
    rights = [c.right_key for c in conds]
    if len(rights) != len(keys) or any(k not in rights for k in keys):
        bad = next((c for c in conds if c.right_key not in keys), conds[0])
        if left.kind is ResultKind.STREAM:
            raise KsqlStatementError(f"Invalid join condition: stream-table joins require to join on the table's "
                                     f"primary key. Got {bad.written}.")
        raise KsqlStatementError(f"Invalid join condition: table-table joins require to join on the primary key "
                                 f"of the right input table. Got {bad.written}.")
    return [next(c for c in conds if c.right_key == k) for k in keys]


def keyed(inp: StepInput, conds: list[Condition]) -> tuple[bool, list[Condition]]:
    """Is the input already keyed by the conditions' expressions on its side? Conditions come back in the
    order of the input's key columns when it is."""
    lefts = [c.left_key for c in conds]
    if len(inp.classes) != len(conds) or not conds:
        return False, conds
    ordered = []
    used: set[int] = set()
    for cl in inp.classes:
        hit = next((i for i, k in enumerate(lefts) if i not in used and k in cl), None)
        if hit is None:
            return False, conds
        used.add(hit)
        ordered.append(conds[hit])
    return True, ordered


def step_keys(kind: JoinKind, flavor: JoinFlavor, left: StepInput, conds: list[Condition], left_keyed: bool,
               all_columns: set[str]) -> tuple[list[JoinKey], list[list[KeyExpr]], list[list[KeyExpr]]]:
    """The step's output key: its columns, and per column the expressions equal to it."""
    if flavor is JoinFlavor.FOREIGN_KEY:
        keys = [JoinKey(n, t) for n, t in zip(_key_names(len(left.classes)), left.key_types, strict=True)]
        return keys, left.classes, left.columns
    keys: list[JoinKey] = []
    classes: list[list[KeyExpr]] = []
    columns: list[list[KeyExpr]] = []
    names = _key_names(len(conds))
    synthetic_taken: set[str] = set()
    for i, c in enumerate(conds):
        lk, rk = c.left_key, c.right_key
        if kind is JoinKind.FULL:
            cl, cols = [], []
        elif left_keyed:
            cl = _distinct([*left.classes[i], lk, rk])
            cols = _distinct([*left.columns[i], *(k for k in (lk, rk) if k.column is not None)])
        else:
            cl = _distinct([lk, rk])
            cols = [k for k in cl if k.column is not None]
        first = cols[0].column if cols else None
        if first is None:
            name = _synthetic_name(all_columns, synthetic_taken)
            keys.append(JoinKey(name, c.left_type or T.STRING, synthetic=True))
            classes.append([KeyBinder.synthetic(name)])
            columns.append([KeyBinder.synthetic(name)])
        else:
            keys.append(JoinKey(names[i], c.left_type or T.STRING, display=first.name))
            classes.append(cl)
            columns.append(cols)
    return keys, classes, columns


def _distinct(keys: list[KeyExpr]) -> list[KeyExpr]:
    """``keys`` without repeats, first occurrences kept (bound nodes need not hash: a literal may hold a list)."""
    out: list[KeyExpr] = []
    for k in keys:
        if k not in out:
            out.append(k)
    return out


def _key_names(n: int) -> list[str]:
    return [KEY_PREFIX if i == 0 else f"{KEY_PREFIX}_{i}" for i in range(n)]


def _synthetic_name(all_columns: set[str], taken: set[str]) -> str:
    """``ROWKEY`` when no source column has that name, else ``ROWKEY_<n+1>`` for the highest ``n`` of any
    ``ROWKEY_<n>`` column - not the first free number (ROWKEY and ROWKEY_3 give ROWKEY_4). From memory of
    ksqlDB's ColumnNames.generateSyntheticJoinKey: it scans the names starting ROWKEY, keeps the largest
    numeric ``_<digits>`` suffix, and returns ROWKEY if unused, else ROWKEY_(max + 1); other suffixes
    (ROWKEYX, ROWKEY_A) only count as names."""
    used = all_columns | taken
    name = SYNTHETIC_KEY_PREFIX
    if name in used:
        suffixes = (_SUFFIX.fullmatch(c[len(SYNTHETIC_KEY_PREFIX):]) for c in used if c.startswith(name))
        name = f"{SYNTHETIC_KEY_PREFIX}_{max((int(m.group(1)) for m in suffixes if m), default=0) + 1}"
    taken.add(name)
    return name


def final_key(current: StepInput, root: Join) -> tuple[list[KeyComponent], list[SchemaColumn]]:
    comps = []
    cols = []
    for k, viable in zip(root.keys, current.columns, strict=True):
        comps.append(KeyComponent(column=k.name, viable=list(viable), synthetic=k.synthetic))
        cols.append(SchemaColumn(k.name, k.type, ColumnRole.KEY))
    return comps, cols
