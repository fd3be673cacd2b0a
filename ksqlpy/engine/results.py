"""What executing a statement returns: a typed result the front doors (shell, REST) render."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ksqlpy.grammar import ast as A


@dataclass
class StatementResult:
    """``kind`` names the shape of ``data`` (mirrors ksqlDB's entity ``@type`` values):

    currentStatus (message, query_id), streams, tables, queries, properties, sourceDescription,
    queryDescription, kafka_topics, function_names, describe_function, type_list, variables,
    rows (pull query: columns + rows), push (a running push query handle in ``data``), message.
    """

    kind: str
    statement: str
    message: str = ""
    data: Any = None
    query_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    # The statement found its work done already (IF NOT EXISTS on an existing source): it changed nothing,
    # so a distributed statement takes no command offset (ksqlDB's DistributingExecutor answers it without
    # writing the command).
    unchanged: bool = False
    # The statement as ksqlDB's injectors left it, when one reprinted it (a CREATE ... AS SELECT with its sink
    # topic's properties, a CREATE STREAM/TABLE with a format filled in): the ``statementText`` of the REST
    # ``currentStatus`` (DistributingExecutor answers with ``injected.getMaskedStatementText()``).
    injected_text: str | None = None


def status(stmt: A.Statement, message: str, query_id: str | None = None, *,
           injected_text: str | None = None) -> StatementResult:
    """The ``currentStatus`` result of a statement that changed something (a query id when it started one)."""
    return StatementResult("currentStatus", stmt.text, message=message, query_id=query_id,
                           injected_text=injected_text)


class TombstoneRow(tuple):  # noqa: SLOT001 - a plain tuple with a meaning
    """A push query's delete of a table row (a tombstone, a group or window that went away, a row that
    stopped matching): the result's key columns carry the deleted key, the others are NULL.

    A tuple like every other row, so a consumer that does not know deletes shows NULLs; the REST server
    marks it ``"tombstone": true`` where ksqlDB's wire format does.
    """
