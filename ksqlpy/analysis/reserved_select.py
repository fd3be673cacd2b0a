"""Reserved column names as the names of a query's result columns.

ksqlDB's Analyzer visits the SELECT items after the FROM clause (sources, join criteria, windowing) and
before it validates any clause's column references (Analyzer.validateSelect, from memory); the logical
planner (join steps, aggregation, WHERE typing) and code generation come later still. So this check runs
there, for every query shape (CSAS, CTAS, INSERT INTO, push, pull; joins or not, aggregates or not), before
an unknown column in any clause, a join's key/type faults, a non-aggregate select item or a type error.

Two messages, by what the item is:
* the pseudo or window column itself - selected un-aliased, or aliased to its own name (``ROWTIME AS ROWTIME``,
  ``L.ROWTIME AS ROWTIME``):
  ``Reserved column name in select: `<NAME>`. Please remove or alias the column.``
* any other expression whose result name is a reserved name - aliased to it (``X AS ROWTIME``,
  ``COUNT(*) AS WINDOWSTART``) or a struct field of that name, whose alias the sanitizer derives from the
  field (``ST->ROWTIME`` is named ``ROWTIME``; ``ST->ROWTIME AS ROWTIME`` alike):
  ``` `<NAME>` is a reserved column name. You cannot use it as an alias for a column.```
The first is the Analyzer's and holds for persistent queries only (validateSelect's ``if (persistent)``): a
push or pull query may select ``ROWTIME`` or ``L.ROWTIME AS ROWTIME``. The second is not the Analyzer's: by
the time it runs every item carries an alias (AstSanitizer names them), so it could not tell ``X AS ROWTIME``
from ``ROWTIME``; ksqlDB refuses the alias where the item is built from the text (from memory of
SingleColumn's checkForReservedToken: an alias that is a system column name, unless the expression's text
after its qualifier is that name: ``text.substring(text.indexOf(".") + 1)``), which knows nothing of the
statement's kind - so it holds for every query, push and pull included. AstSanitizer builds a new item with the
alias it derives, so the check meets un-aliased items too: a column reference passes (its text after the
qualifier is its name), a struct field ``ST->ROWTIME`` does not (its text is ``ST->ROWTIME``). (It stays at the Analyzer's SELECT stage, where the rules reference lists it, rather
than before the sources are resolved, where SingleColumn would put it.)
"""

from __future__ import annotations

from sqlglot import exp

from ksqlpy.analysis.written import is_star, natural_name
from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar.ast import Query


def check_reserved_select(query: Query, reserved: frozenset[str], *, join: bool, persistent: bool) -> None:
    """Refuse the first SELECT item (in select order) whose result column takes a reserved name.
    ``join``: an un-aliased column reference of a join is named ``<SOURCE>_<COL>`` (AstSanitizer), never
    a reserved name by itself. ``persistent``: a persistent query, which may not select a reserved column
    as itself either."""
    for item in query.select:
        e = item.expr
        if is_star(e):
            continue
        natural = natural_name(e)
        if item.alias is None:
            if join and isinstance(e, exp.Column):
                continue
            name = natural
        else:
            name = item.alias
        if name is None or name not in reserved:
            continue
        if isinstance(e, exp.Column) and (item.alias is None or natural == item.alias):
            if not persistent:
                continue
            raise KsqlStatementError(f"Reserved column name in select: `{name}`. Please remove or alias the column.")
        raise KsqlStatementError(f"`{name}` is a reserved column name. You cannot use it as an alias for a column.")
