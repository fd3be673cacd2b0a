"""The error a statement fails with on an engine, for tests that check rules' messages (imported by module
name from any test folder, as ``kafka_broker`` is)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from ksqlpy.errors import KsqlError, KsqlStatementError

if TYPE_CHECKING:
    from ksqlpy.engine import Engine


def raised(engine: Engine, sql: str, kind: type[KsqlError] = KsqlError) -> KsqlError:
    """The error ``engine.execute(sql)`` raises; it must be a ``kind`` (the test fails if nothing is raised)."""
    with pytest.raises(kind) as info:
        engine.execute(sql)
    return info.value


def error(engine: Engine, sql: str, kind: type[KsqlError] = KsqlError) -> str:
    """The message of the ``kind`` error ``engine.execute(sql)`` raises."""
    return raised(engine, sql, kind).message


def statement_error(engine: Engine, sql: str) -> str:
    """The message of the ``KsqlStatementError`` (an error a statement's rule gave, with the statement)
    ``engine.execute(sql)`` raises."""
    return error(engine, sql, KsqlStatementError)
