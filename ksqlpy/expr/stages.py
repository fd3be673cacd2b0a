"""Which validation stage reports an expression error, and how each clause words it.

ksqlDB checks an expression three times, and the same mistake reads differently depending on which
check finds it (ksqldb-rules.md 1.8, 1.9, appendix A):

1. analysis (``ColumnReferenceValidator``...): unknown or ambiguous columns - reported as they are;
2. logical planning (``ExpressionTypeManager``): types, comparisons, functions. WHERE and HAVING go
   through ``FilterTypeValidator``, which words them ``Error in WHERE expression: <cause>`` and rejects a
   non-boolean filter; the other clauses report the cause as it is;
3. code generation (``CodeGenRunner``, or the interpreter pull queries use): what only compiling the
   expression finds - unsupported casts, non-boolean AND/OR/NOT operands, BETWEEN/LIKE operand types,
   IN-list coercion - worded ``Invalid <context>: <cause>.`` (``Invalid expression: `` for pull queries),
   and reported only once every clause of the statement has been typed.

The binder tags each error with its ``Phase``; ``BindContext`` applies the wording of the ``Clause``
being bound and holds code-generation errors back until ``check`` is called after typing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ksqlpy import types as T
from ksqlpy.errors import KsqlError, KsqlExpressionError, KsqlStatementError, KsqlTypeError
from ksqlpy.functions.registry import FunctionRegistry


class Phase(Enum):
    ANALYSIS = "analysis"
    TYPING = "typing"
    CODEGEN = "codegen"


class Clause(Enum):
    """Where an expression sits: its name in "cannot be resolved" messages, the context ksqlDB's code
    generator names, and whether it is a filter (``FilterTypeValidator``)."""

    WHERE = ("WHERE", "Predicate", True)
    HAVING = ("HAVING", "Predicate", True)
    SELECT = ("SELECT", "Select", False)
    GROUP_BY = ("GROUP BY", "Group By", False)
    PARTITION_BY = ("PARTITION BY", "SelectKey", False)
    JOIN_ON = ("JOIN ON", "SelectKey", False)
    FK_JOIN_ON = ("JOIN ON", "Left Join Expression", False)
    TABLE_FUNCTION = ("SELECT", "Table function", False)
    # INSERT VALUES: ksqlDB's GenericExpressionResolver types and compiles each value in one
    # CodeGenRunner call, so its typing errors are worded as code generation's too (see ``report``)
    INSERT_VALUE = ("VALUES", "insert value", False)

    def __init__(self, label: str, codegen: str, filter: bool) -> None:
        self.label = label
        self.codegen = codegen
        self.filter = filter


def window_bounds_message(column: str) -> str:
    """ksqlDB's refusal of WINDOWSTART/WINDOWEND outside the SELECT of a windowed aggregation (in GROUP BY,
    HAVING or an aggregate's arguments)."""
    return (f"Window bounds column {column} can only be used in the SELECT clause of windowed aggregations and "
            "can not be passed to aggregate functions.\nSee https://github.com/confluentinc/ksql/issues/4397")


class BindError(KsqlTypeError):
    """An expression error as the rule that found it words it, before any clause wording.

    ``statement``: the expression ksqlDB names after ``Statement:`` when the error is wrapped (its
    ``KsqlStatementException``s - comparisons - carry one). ``plain``: ksqlDB raises it as a plain
    ``KsqlException`` (a 40000 error when nothing wraps it)."""

    def __init__(self, message: str, phase: Phase, *, statement: str | None = None, plain: bool = False) -> None:
        super().__init__(message)
        self.phase = phase
        self.statement = statement
        self.plain = plain

    @property
    def detailed(self) -> str:
        """ksqlDB's "unlogged" text: the message and the expression it is about."""
        return self.message if self.statement is None else f"{self.message}\nStatement: {self.statement}"


@dataclass
class BindContext:
    """What binding the expressions of one statement shares: the function registry, custom types, and
    the code-generation errors found so far (reported by ``check`` once typing is done).

    ``interpreted``: the statement runs on ksqlDB's expression interpreter (pull queries), whose
    code-generation errors read ``Invalid expression: ``."""

    registry: FunctionRegistry
    custom_types: dict[str, T.SqlType] = field(default_factory=dict)
    interpreted: bool = False
    deferred: list[KsqlError] = field(default_factory=list)
    # a join's projection errors (a join key missing or selected twice; ksqlDB's FinalProjectNode): found
    # while the join is analysed, reported once the clauses below the projection are planned
    projection: list[KsqlError] = field(default_factory=list)
    # what building the physical plan refuses (a join's partition counts, re-keying, kind): found while
    # analysing, reported after the logical planning's errors and before code generation's (``check``)
    planning: list[KsqlError] = field(default_factory=list)
    # the compatibility-breaking switches of ksqlDB's code generation (``ksql.cast.strings.preserve.nulls``,
    # ``ksql.nested.error.set.null``), both true for queries planned now; recorded on the bound nodes
    preserve_string_nulls: bool = True
    nested_errors_null: bool = True

    def report(self, e: BindError, clause: Clause | None) -> KsqlError:
        """The user-facing error for ``e`` found while binding an expression of ``clause``. Only analysis
        errors say where they are (``Line: n, Col: m:``): ksqlDB's column and source checks put the node's
        location in their text, while ExpressionTypeManager, FilterTypeValidator and CodeGenRunner raise
        theirs without one (from memory) - so a type error reads the same in a pull query, a push query and
        a CREATE ... AS SELECT."""
        if e.phase is Phase.ANALYSIS:
            return _located(KsqlStatementError(e.message), e)
        if e.phase is Phase.TYPING and clause is not Clause.INSERT_VALUE:
            if clause is not None and clause.filter:
                return _unplaced(KsqlStatementError(f"Error in {clause.label} expression: {e.detailed}"))
            return _unplaced((KsqlExpressionError if e.plain else KsqlTypeError)(e.message))
        if clause is None:
            return _unplaced(KsqlTypeError(e.message))
        context = "expression" if self.interpreted else clause.codegen
        text = e.detailed if e.statement is None else e.message
        end = "" if text.endswith(".") else "."
        return _unplaced(KsqlStatementError(f"Invalid {context}: {text}{end}"))

    def defer(self, e: BindError, clause: Clause | None) -> None:
        """Hold a code-generation error back until ``check``."""
        self.deferred.append(self.report(e, clause))

    def planned(self, e: KsqlError) -> None:
        """Hold back an error of physical planning until ``check``."""
        self.planning.append(e)

    def check(self) -> None:
        """Raise the first physical-planning error found, else the first code-generation error, in the order
        the clauses were bound."""
        if self.planning:
            raise self.planning[0]
        if self.deferred:
            raise self.deferred[0]


def _unplaced(err: KsqlError) -> KsqlError:
    err.unplaced = True
    return err


def _located(err: KsqlError, cause: KsqlError) -> KsqlError:
    err.location = cause.location
    return err
