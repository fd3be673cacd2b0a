"""Where an expression failed on a record, as ksqlDB's processing log names it.

ksqlDB catches a failing evaluation at a few places and logs a ``recordProcessingError`` whose
``errorMessage`` says which place, with the exception's messages as ``cause``:

- a projection column (``SelectValueMapper``): ``Error computing expression <expr> for column <COL> with
  index <i>``, the column NULL, the row emitted;
- a WHERE / HAVING predicate (``SqlPredicate``): ``Error evaluating predicate <expr>``, the row dropped;
- a GROUP BY expression (``GroupByParamsFactory``): ``Error calculating group-by column with index <i>.
  The source row will be excluded from the table.``, and a NULL result ``Group-by column with index <i>
  resolved to null. The source row will be excluded from the table.``;
- inside an expression (``ksql.nested.error.set.null``): a function call, CAST, field or item that fails is
  NULL on its own, ``Error processing <function|TYPE>`` (a table function: ``Table function <NAME> threw an
  exception``).

The generated code passes one of these objects to its error sink; ``message()`` is the text logged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class FailureSite(Protocol):
    def message(self) -> str: ...


@dataclass(frozen=True)
class FunctionCallSite:
    """A function call (or, with ``table``, a table function) that failed on the slow path."""

    name: str
    table: bool = False

    def message(self) -> str:
        return f"Table function {self.name} threw an exception" if self.table else f"Error processing {self.name}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class NestedSite:
    """A CAST (``what`` is its target type) or a constructor's element (``array item``, ``map key``, ``map value``,
    ``struct field``) that failed inside an expression."""

    what: str

    def message(self) -> str:
        return f"Error processing {self.what}"

    def __str__(self) -> str:
        return self.what


@dataclass(frozen=True)
class ProjectionSite:
    """A result column (its index among the key or the value columns) whose expression failed."""

    expression: str
    column: str
    index: int

    def message(self) -> str:
        return f"Error computing expression {self.expression} for column {self.column} with index {self.index}"

    def __str__(self) -> str:
        return self.column


@dataclass(frozen=True)
class PredicateSite:
    """A WHERE or HAVING predicate that failed."""

    expression: str

    def message(self) -> str:
        return f"Error evaluating predicate {self.expression}"

    def __str__(self) -> str:
        return "WHERE"


@dataclass(frozen=True)
class GroupBySite:
    """A GROUP BY expression that failed (``null``: that resolved to NULL) - the row is not aggregated."""

    index: int
    null: bool = False

    def message(self) -> str:
        if self.null:
            return (f"Group-by column with index {self.index} resolved to null. The source row will be excluded "
                    "from the table.")
        return (f"Error calculating group-by column with index {self.index}. The source row will be excluded from "
                "the table.")

    def __str__(self) -> str:
        return f"GROUP BY {self.index}"
