"""``ksql.new.query.planner.enabled``: ksqlDB's experimental planner takes only the simplest persistent
query - plain column references (or ``*``) selected from one stream - and refuses the rest with its own
messages, before the usual planner would look at the query."""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ksqlpy.errors import KsqlStatementError
from ksqlpy.grammar import ast as A

PROPERTY = "ksql.new.query.planner.enabled"


def enabled(properties: dict[str, Any]) -> bool:
    return str(properties.get(PROPERTY, "false")).strip().lower() == "true"


def _unsupported(what: str) -> KsqlStatementError:
    return KsqlStatementError(f"New query planner does not support {what}. Set {PROPERTY}=false.")


def check_new_planner(query: A.Query, source_kind: str) -> None:
    """Raise ksqlDB's message for what the new planner cannot plan (``source_kind``: the FROM source's)."""
    clauses = [
        ("joins", bool(query.joins)),
        ("WINDOWS", query.window is not None),
        ("WHERE", query.where is not None),
        ("GROUP BY", bool(query.group_by)),
        ("PARTITION BY", query.partition_by_written),
        ("HAVING", query.having is not None),
        ("LIMIT", query.limit is not None),
    ]
    for what, present in clauses:
        if present:
            raise _unsupported(what)
    if source_kind == "TABLE":
        raise KsqlStatementError("Input TABLES are not supported by the new planner")
    for item in query.select:
        plain = isinstance(item.expr, exp.Star) or (isinstance(item.expr, exp.Column) and item.alias is None)
        if not plain:
            raise KsqlStatementError("New query planner only support column references, no expressions or aliases.")
