"""The SELECT list of a join query: star expansion, output names and which item becomes the key.

ksqlDB's rules, which this module reproduces:

- ``*`` is the synthetic key column (if the join has one) followed by every source's key and value
  columns, each named ``ALIAS_COL`` (a windowed source's WINDOWSTART/WINDOWEND after its key, as
  ksqlDB's ``DataSourceNode.resolveSelectStar`` orders them: keys, window bounds, values, headers);
  ``alias.*`` is that source's columns. With PARTITION BY, ``*`` is
  every column of the joined row (pseudo columns included), as ksqlDB expands it there.
- A plain column reference is named ``COL`` when no other source has a column of that name, else
  ``ALIAS_COL``.
- The first item equal to one of the join's key expressions becomes the key column and carries the
  join key's value; the same expression selected again is an error; an item equal to another
  expression of the same key (``R.A`` after ``L.A``) is an ordinary value column. Equal means equal
  as bound expressions (``ksqlpy.analysis.join_keys``): ``(l.id)`` selects the key ``L.ID``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ksqlpy.analysis.join_keys import KeyBinder, KeyExpr
from ksqlpy.analysis.join_scope import JoinScope, join_list
from ksqlpy.analysis.query_rejections import KEYS_LINK, key_more_than_once
from ksqlpy.analysis.written import is_star
from ksqlpy.errors import KsqlError, KsqlStatementError
from ksqlpy.grammar.ast import Query, SelectItem
from ksqlpy.plan.logical import Scan


@dataclass
class KeyComponent:
    """One column of the join's final key: its column in the joined row and the expressions equal to it."""

    column: str  # name of the key column in the joined row
    viable: list[KeyExpr]  # the column references (or the synthetic column) that select the key
    synthetic: bool


def expand_stars(query: Query, scope: JoinScope, leaves: list[Scan], keys: list[KeyComponent],
                 rekey: bool) -> list[tuple[exp.Expression, str | None, bool]]:
    """Select items as (expression, alias, virtual); star items get their ALIAS_COL names. ``virtual``: the
    expression already names a joined-row column (PARTITION BY's ``*``)."""
    out: list[tuple[exp.Expression, str | None, bool]] = []
    for item in query.select:
        e = item.expr
        if not is_star(e):
            out.append((e, item.alias, False))
            continue
        qual = e.table if isinstance(e, exp.Column) else None
        if qual:
            scope.check_qualifier(qual)
            chosen = [lf for lf in leaves if lf.alias == qual]
        else:
            chosen = leaves
            if rekey:
                for lf in leaves:
                    for c in lf.columns:
                        out.append((exp.column(c.name), c.name, True))
                continue
            for k in keys:
                if k.synthetic:
                    out.append((exp.column(k.column), k.column, False))
        for lf in chosen:
            src = lf.source
            for c in src.key_columns:
                out.append((exp.column(c.name, table=lf.alias), f"{lf.alias}_{c.name}", False))
            if src.windowed is not None:
                for bound in ("WINDOWSTART", "WINDOWEND"):
                    out.append((exp.column(bound, table=lf.alias), f"{lf.alias}_{bound}", False))
            for c in src.value_columns + src.header_columns:  # headers after the values (``_star_columns``)
                out.append((exp.column(c.name, table=lf.alias), f"{lf.alias}_{c.name}", False))
    return out


def natural_join_name(e: exp.Expression, scope: JoinScope) -> str | None:
    """ksqlDB's name for an unaliased column reference in a join's SELECT."""
    if isinstance(e, exp.Column) and isinstance(e.this, exp.Identifier):
        alias, name = scope.resolve(e, "SELECT")
        if alias is None:
            return name
        return name if scope.is_unique(name) else f"{alias}_{name}"
    return None


def plan_select(query: Query, scope: JoinScope, keys_of: KeyBinder, leaves: list[Scan], keys: list[KeyComponent], *,
                sink_name: str | None, persistent: bool, keyed: bool,
                foreign_key_left: str | None = None, held: list[KsqlError] | None = None) -> list[SelectItem]:
    """The select list rewritten over the joined row. ``keyed``: the join key is the result's key (no
    GROUP BY / PARTITION BY re-keys it), so the projection must include it. ``foreign_key_left``: the left
    table of a foreign-key join, whose primary key is the result's key. ``held``: where the projection's key
    errors go (ksqlDB's ``FinalProjectNode`` finds them once the WHERE, GROUP BY and the rest below the
    projection are planned), else they are raised."""
    found: list[KsqlError] = [] if held is None else held
    items = expand_stars(query, scope, leaves, keys, rekey=bool(query.partition_by))
    selected = [None if virtual else keys_of(e, "SELECT") for e, _, virtual in items]
    names = [alias if virtual else (alias if alias is not None else natural_join_name(e, scope)) for e, alias, virtual in items]
    # each key column goes to the item selecting its left-most expression (ksqlDB's preference)
    chosen: dict[int, int] = {}  # item index -> key component
    claimed: set[int] = set()
    if keyed:
        for k, comp in enumerate(keys):
            best = min(((comp.viable.index(s), i) for i, s in enumerate(selected) if s in comp.viable),
                       default=None)
            if best is not None:
                chosen[best[1]] = k
                claimed.add(k)
                key = selected[best[1]]
                for j, s in enumerate(selected):
                    if j != best[1] and s is not None and s == key and not found:
                        a, b = names[best[1]] or s.shown, names[j] or s.shown
                        # the join's key column is named after the viable key the projection selects
                        # first (ksqlDB's LogicalPlanner.buildJoinKey), not after the first viable one
                        column = comp.column if comp.synthetic or key.column is None else key.column.name
                        found.append(KsqlStatementError(key_more_than_once(column, a, b)))
    out: list[SelectItem] = []
    for i, (e, _, virtual) in enumerate(items):
        name = names[i]
        if virtual:
            out.append(SelectItem(e, name))
        elif i in chosen:
            out.append(SelectItem(exp.column(keys[chosen[i]].column), name))
        else:
            out.append(SelectItem(scope.rewrite(e, "SELECT"), name))
    if keyed and persistent and sink_name is not None:
        missing = [k for i, k in enumerate(keys) if i not in claimed]
        if missing and foreign_key_left is not None:
            found.append(_missing_primary_key(foreign_key_left, missing))
        found += [_missing_key(sink_name, k) for k in missing]
    if found and held is None:
        raise found[0]
    return out


def _missing_primary_key(left: str, missing: list[KeyComponent]) -> KsqlStatementError:
    """A foreign-key join is keyed by the left table's primary key: every column of it must be selected."""
    what = "column" if len(missing) == 1 else "columns"
    names = ", ".join(f"`{k.viable[0].shown.split('.', 1)[-1]}`" for k in missing)
    return KsqlStatementError(f"Primary key {what} missing in projection. For foreign-key table-table joins, the "
                              "projection must include all primary key columns "
                              f"from the left input table (`{left}`). Missing {what}: {names}.")


def _missing_key(sink: str, key: KeyComponent) -> KsqlStatementError:
    shown = [k.shown for k in key.viable]
    what = "join expression" if len(shown) == 1 else "join expressions"
    link = KEYS_LINK if key.synthetic or len(shown) > 1 else ""
    msg = (f"Key missing from projection (ie, SELECT). {link}\nThe query used to build `{sink}` must include the "
           f"{what} {join_list(shown)} in its projection (eg, SELECT {shown[0]}...).")
    if key.synthetic:
        msg += (f"\n{shown[0]} was added as a synthetic key column because the join criteria did not match "
                "any source column. This expression must be included in the projection and may be aliased. ")
    return KsqlStatementError(msg)
