"""Names in a join query.

Every source of a join contributes a block of columns to the joined row, each named ``ALIAS_COLUMN``
(ksqlDB's naming): its non-key columns in declaration order, the pseudo columns ROWTIME, ROWPARTITION
and ROWOFFSET, WINDOWSTART/WINDOWEND if windowed, then its key columns. ``JoinScope`` resolves
``alias.col`` and ``col`` against the sources and rewrites expressions onto those block columns, so the
rest of the query can be analyzed as a query over one (virtual) source.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.analysis.written import column_refs
from ksqlpy.catalog import Source
from ksqlpy.errors import KsqlStatementError, at
from ksqlpy.expr.format import format_expression
from ksqlpy.grammar.ast import Query
from ksqlpy.plan.logical import ColumnRole, SchemaColumn

PSEUDO = (("ROWTIME", T.BIGINT), ("ROWPARTITION", T.INTEGER), ("ROWOFFSET", T.BIGINT))
WINDOW_BOUNDS = ("WINDOWSTART", "WINDOWEND")
# a name the join may give its synthetic key column: ksqlDB's ColumnNames.maybeSyntheticJoinKey (from memory)
# tests only the prefix (``text().startsWith("ROWKEY")``), so ROWKEYX, ROWKEY_A are left to the later stages too
SYNTHETIC_KEY_PREFIX = "ROWKEY"


def maybe_synthetic_key(name: str) -> bool:
    return name.startswith(SYNTHETIC_KEY_PREFIX)


def block_columns(source: Source, alias: str) -> list[SchemaColumn]:
    """The block a source fills in the joined row, in ksqlDB's order."""
    cols = [SchemaColumn(f"{alias}_{c.name}", c.type, ColumnRole.VALUE) for c in source.columns if not c.key]
    cols += [SchemaColumn(f"{alias}_{n}", t, ColumnRole.VALUE) for n, t in PSEUDO]
    if source.windowed is not None:
        cols += [SchemaColumn(f"{alias}_WINDOWSTART", T.BIGINT, ColumnRole.VALUE),
                 SchemaColumn(f"{alias}_WINDOWEND", T.BIGINT, ColumnRole.VALUE)]
    cols += [SchemaColumn(f"{alias}_{c.name}", c.type, ColumnRole.VALUE) for c in source.key_columns]
    return cols


def source_column_names(source: Source, offsets: bool = True) -> list[str]:
    """Every name a query may use for a column of ``source`` (its columns, pseudo and window columns);
    ``offsets``: ROWPARTITION and ROWOFFSET are pseudo columns (``ksql.rowpartition.rowoffset.enabled``; the
    block keeps their places either way)."""
    names = [c.name for c in source.columns] + [n for n, _ in PSEUDO if offsets or n == "ROWTIME"]
    if source.windowed is not None:
        names += ["WINDOWSTART", "WINDOWEND"]
    return names


class JoinScope:
    """Resolves column references of a join query to (alias, column) and to joined-row column names."""

    def __init__(self, sources: list[tuple[Source, str]], *, offsets: bool = True) -> None:
        self.sources = sources
        self.aliases = [a for _, a in sources]
        self.by_alias = {a: s for s, a in sources}
        # ksqlDB's AstBuilder knows every name its SourceAccumulator saw in FROM and JOIN - each source's own
        # name (visitTableName) and its alias (visitAliasedRelation) - so a qualifier naming an aliased source
        # is no prepare error; the analysis then finds no source of that alias with the column
        self.written = {s.name for s, _ in sources}
        self.names = {a: source_column_names(s, offsets) for s, a in sources}
        self.types = {a: {**{c.name: c.type for c in s.columns}, **dict(PSEUDO),
                          **({"WINDOWSTART": T.BIGINT, "WINDOWEND": T.BIGINT} if s.windowed else {})}
                      for s, a in sources}
        self.extra: dict[str, str] = {}  # unqualified names of joined-row columns (the synthetic key)
        # an inner step's synthetic key, read as a value (ksqlDB's JoinParamsFactory appends it to the value
        # schema): its name -> its value as an expression over the joined row
        self.computed: dict[str, exp.Expression] = {}

    # ---------------------------------------------------------------- resolution
    def check_qualifier(self, qual: str) -> None:
        """ksqlDB's AstBuilder.throwOnUnknownNameOrAlias (from memory): a qualifier must be a source's name or
        alias written in FROM / JOIN."""
        if qual not in self.by_alias and qual not in self.written:
            raise KsqlStatementError(f"Failed to prepare statement: '{qual}' is not a valid stream/table name or "
                                     "alias.")

    def resolve(self, col: exp.Column, clause: str) -> tuple[str | None, str]:
        """(alias, column) of a reference; alias None for a joined-row column such as the synthetic key."""
        name = col.name
        qual = col.table or None
        if qual:
            self.check_qualifier(qual)
            if qual not in self.by_alias or name not in self.names[qual]:
                raise KsqlStatementError(at(col, f"{clause} column '{qual}.{name}' cannot be resolved."))
            return qual, name
        # a window bound is reached only qualified: ksqlDB's sanitizer looks names up in the sources' columns
        # with their pseudo columns but without window bounds, so WINDOWSTART alone is no source's column -
        # nor, in a join, the bound of an aggregation's window (ksqlDB issue 5931)
        owners = self._owners(col)
        if owners:
            return owners[0], name
        if name in self.extra or name in self.computed:
            return None, name
        raise KsqlStatementError(at(col, f"{clause} column '{name}' cannot be resolved."))

    def _owners(self, col: exp.Column) -> list[str]:
        """The sources an unqualified reference may mean; more than one is ksqlDB's sanitizer's refusal."""
        name = col.name
        owners = [] if name in WINDOW_BOUNDS else [a for a in self.aliases if name in self.names[a]]
        if len(owners) > 1:
            could = [f"{a}.{name}" for a in owners]
            text = " or ".join(could) if len(could) == 2 else ", ".join(could[:-1]) + " or " + could[-1]
            raise KsqlStatementError("Exception while preparing statement: "
                                     + at(col, f"Column '{name}' is ambiguous. Could be {text}."))
        return owners

    def check_ambiguity(self, expressions: Iterable[exp.Expression]) -> None:
        """ksqlDB's sanitizer (before any analysis) refuses an unqualified column that more than one source
        has, in every clause, in its order of clauses - so this runs before the join and key checks. An unknown
        qualifier fails earlier still (when the statement is prepared)."""
        expressions = list(expressions)
        for e in expressions:
            for col in column_refs(e):
                if col.table:
                    self.check_qualifier(col.table)
        for e in expressions:
            for col in column_refs(e):
                if not col.table:
                    self._owners(col)

    def virtual_name(self, alias: str | None, name: str) -> str:
        return self.extra[name] if alias is None else f"{alias}_{name}"

    def virtual(self, alias: str | None, name: str) -> exp.Expression:
        """A reference over the joined row: its column, or an inner step's synthetic key's value."""
        if alias is None and name not in self.extra and name in self.computed:
            return self.computed[name].copy()
        return exp.column(self.virtual_name(alias, name))

    def type_of(self, alias: str, name: str) -> T.SqlType:
        return self.types[alias][name]

    def aliases_of(self, e: exp.Expression, clause: str) -> set[str]:
        """The sources an expression references."""
        out = set()
        for c in column_refs(e):
            alias, _ = self.resolve(c, clause)
            if alias is not None:
                out.add(alias)
        return out

    def is_unique(self, name: str) -> bool:
        return sum(name in self.names[a] for a in self.aliases) == 1

    # ---------------------------------------------------------------- rewriting
    def qualify(self, e: exp.Expression, clause: str) -> exp.Expression:
        """A copy of ``e`` with every column reference qualified by its source's alias."""
        return self._map_columns(e, clause, lambda a, n: exp.column(n, table=a) if a else exp.column(n))

    def rewrite(self, e: exp.Expression, clause: str) -> exp.Expression:
        """A copy of ``e`` over the joined row's columns (``alias.col`` -> ``ALIAS_COL``)."""
        return self._map_columns(e, clause, self.virtual)

    def _map_columns(self, e: exp.Expression, clause: str, fn) -> exp.Expression:  # type: ignore[no-untyped-def]
        root = e.copy()
        for col in column_refs(root):
            alias, name = self.resolve(col, clause)
            new = fn(alias, name)
            if col is root:
                return new
            col.replace(new)
        return root


def check_clause_columns(query: Query, scope: JoinScope, *, pull: bool = False) -> None:
    """ksqlDB's Analyzer, once the FROM clause and its joins are read, resolves the columns of WHERE, GROUP BY,
    PARTITION BY, HAVING and then SELECT (its ColumnReferenceValidator; from memory) - all before the logical
    planner checks any join's order, type and keys. A window bound (resolved by the clause that may read it) is
    left to the later stages, and so is a name that may be the join's synthetic key - in SELECT only, and only
    when there is no GROUP BY (the one place the joined row's key column is read: WHERE, GROUP BY, PARTITION BY
    and HAVING are resolved against the sources, and a grouped SELECT reads the aggregation's columns; ksqlDB's
    Analyzer, from memory). Whether the join has such a key is known once its tree is planned; a pull query
    (``pull``) reads none."""
    clauses = [("WHERE", [query.where] if query.where is not None else []), ("GROUP BY", query.group_by),
               ("PARTITION BY", query.partition_by), ("HAVING", [query.having] if query.having is not None else []),
               ("SELECT", [i.expr for i in query.select])]
    synthetic_clauses = () if query.group_by or pull else ("SELECT",)
    for clause, exprs in clauses:
        for e in exprs:
            for col in column_refs(e):
                if not col.table and (col.name in WINDOW_BOUNDS or (clause in synthetic_clauses
                                                                    and maybe_synthetic_key(col.name))):
                    continue
                scope.resolve(col, clause)


def text(e: exp.Expression) -> str:
    return format_expression(e)


def join_list(items: Iterable[str]) -> str:
    """``A``, ``A or B``, ``A, B or C`` as ksqlDB lists alternatives."""
    xs = list(items)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " or " + xs[-1]
