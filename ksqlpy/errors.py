"""User-facing errors. Every error a user can cause is one of these, with a message naming the problem."""

from __future__ import annotations


class KsqlError(Exception):
    """Base of all ksqlpy user errors."""

    error_code = 40000

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class KsqlParseError(KsqlError):
    """The SQL text does not parse. Carries the 1-based line and column of the offending token."""

    error_code = 40001

    def __init__(self, message: str, line: int = 0, column: int = 0, token: str | None = None) -> None:
        where = f"line {line}:{column}: " if line else ""
        super().__init__(f"{where}{message}")
        self.raw_message = message
        self.line = line
        self.column = column
        self.token = token


class KsqlStatementError(KsqlError):
    """The statement parsed but is not valid (unknown source, wrong types, bad properties...)."""

    error_code = 40001


class KsqlTypeError(KsqlStatementError):
    """An expression does not type-check."""


class KsqlExpressionError(KsqlError):
    """An expression ksqlDB rejects with a plain (not statement) error, e.g. arithmetic on a bare NULL."""

    error_code = 40000


class KsqlRuntimeError(KsqlError):
    """Something failed while executing a valid statement."""

    error_code = 50000
