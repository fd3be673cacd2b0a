"""Which pseudo columns a statement sees: ``ksql.rowpartition.rowoffset.enabled``.

ksqlDB's ``SystemColumns`` reads the property per statement: when it is true (the default) the pseudo
columns are ROWTIME, ROWPARTITION and ROWOFFSET; when false only ROWTIME. A name that is not a pseudo
column is an ordinary name: it may be declared as a column or used as an alias, and referring to it where
no column has it is an unknown column. A source declared with a column named ROWPARTITION or ROWOFFSET
while the feature was off cannot be queried once it is on (``Analyzer``'s refusal below).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ksqlpy.catalog import WINDOW_COLUMNS

PROPERTY = "ksql.rowpartition.rowoffset.enabled"
OFFSET_COLUMNS = ("ROWPARTITION", "ROWOFFSET")


def offsets_enabled(properties: Mapping[str, Any]) -> bool:
    """Whether ROWPARTITION and ROWOFFSET are pseudo columns for a statement with ``properties``."""
    return str(properties.get(PROPERTY, "true")).strip().lower() != "false"


def pseudo_columns(properties: Mapping[str, Any]) -> tuple[str, ...]:
    return ("ROWTIME", *OFFSET_COLUMNS) if offsets_enabled(properties) else ("ROWTIME",)


def reserved_names(properties: Mapping[str, Any]) -> frozenset[str]:
    """Names no column may be declared with and no SELECT item aliased to: the pseudo and window columns."""
    return frozenset(pseudo_columns(properties)) | frozenset(WINDOW_COLUMNS)


def check_queryable(column_names: list[str], properties: Mapping[str, Any]) -> None:
    """ksqlDB refuses a query over a source whose own columns take a pseudo column's name."""
    from ksqlpy.errors import KsqlStatementError

    if not offsets_enabled(properties):
        return
    clash = [n for n in OFFSET_COLUMNS if n in column_names]
    if clash:
        raise KsqlStatementError("Your stream/table has columns with the same name as newly introduced pseudocolumns "
                                 f"in ksqlDB, and cannot be queried as a result. The conflicting names are: "
                                 f"{', '.join(clash)}.\n")
