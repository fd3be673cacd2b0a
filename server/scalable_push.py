"""Which push queries ksqlDB serves as *scalable* push queries (``ScalablePushUtil.isScalablePushQuery``, the
conditions from memory of its source): ``ksql.query.push.v2.enabled``; one source, not a join; no GROUP BY,
WINDOW, HAVING or PARTITION BY; reading from ``latest`` (the request's ``auto.offset.reset`` in either
spelling, else the server's, else latest); exactly one persistent query writing the source (a SOURCE table's
CST_ query has no sink: not one); ROWPARTITION and
ROWOFFSET not referenced. Any other push query runs as a conventional one: an id ``transient_...``, the
requested offset reset, and records with a null key shown (a scalable one taps the writer's output, where
such records are not)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlglot import exp

from ksqlpy.engine.config import resolve
from ksqlpy.grammar import ast as A

_OFFSET_COLUMNS = frozenset({"ROWPARTITION", "ROWOFFSET"})


def is_scalable(q: A.Query, config: Mapping[str, Any], overrides: Mapping[str, Any], writers: int) -> bool:
    """``writers``: how many persistent queries write ``q``'s source."""
    enabled = resolve("ksql.query.push.v2.enabled", config, overrides, default="false")
    if str(enabled).strip().lower() != "true" or q.emit != "CHANGES":
        return False
    if q.joins or q.group_by or q.window is not None or q.having is not None or q.partition_by_written:
        return False
    latest = str(resolve("auto.offset.reset", config, overrides, default="latest")).strip().lower() == "latest"
    return latest and writers == 1 and not _names_offset_columns(q)


def _names_offset_columns(q: A.Query) -> bool:
    expressions = [item.expr for item in q.select] + ([q.where] if q.where is not None else [])
    return any(c.name.upper() in _OFFSET_COLUMNS for e in expressions for c in e.find_all(exp.Column))
