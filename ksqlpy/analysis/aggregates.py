"""GROUP BY / WINDOW / HAVING analysis (aggregations)."""

from __future__ import annotations

from ksqlpy.errors import KsqlStatementError


def plan_aggregation(query, source, schema, alias, catalog, gen):  # type: ignore[no-untyped-def]
    raise KsqlStatementError("Unsupported: GROUP BY / aggregations")
