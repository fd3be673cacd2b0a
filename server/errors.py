"""ksqlDB's error envelope: ``generic_error`` / ``statement_error`` with ``error_code`` = HTTP status x 100 (+n)."""

from __future__ import annotations

from typing import Any

from ksqlpy.errors import KsqlError

BAD_REQUEST = 40000
BAD_STATEMENT = 40001
QUERY_ENDPOINT = 40002
MAX_PUSH_QUERIES_EXCEEDED = 40003
HTTP2_ONLY = 40004
INTERNAL_ONLY = 40005
UNAUTHORIZED = 40100
FORBIDDEN = 40300
NOT_FOUND = 40400
ASSERTION_FAILED = 41700
PAYLOAD_TOO_LARGE = 41300
SERVER_ERROR = 50000
COMMAND_QUEUE_CATCHUP_TIMEOUT = 50301
SERVER_NOT_READY = 50302
SERVER_SHUTTING_DOWN = 50303
SERVER_SHUT_DOWN = 50304

INTERNAL_ERROR_MESSAGE = ("The server encountered an internal error when processing the query. Please consult the "
                          "server logs for more information.")


class ServerError(Exception):
    """An error answered with the envelope; ``statement`` makes it a ``statement_error``."""

    def __init__(self, error_code: int, message: str, statement: str | None = None,
                 status: int | None = None, headers: dict[str, str] | None = None,
                 entities: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.error_code = error_code
        self.message = message
        self.statement = statement
        self.status = status or error_code // 100
        self.headers = headers or {}
        self.entities = entities or []  # a statement_error's: what the request ran before it failed

    def body(self) -> dict[str, Any]:
        return envelope(self.error_code, self.message, self.statement, self.entities)


def envelope(error_code: int, message: str, statement: str | None = None,
             entities: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    if statement is None:
        return {"@type": "generic_error", "error_code": error_code, "message": message}
    return {"@type": "statement_error", "error_code": error_code, "message": message,
            "statementText": statement, "entities": list(entities or [])}


def bad_request(message: str) -> ServerError:
    return ServerError(BAD_REQUEST, message)


def from_ksql_error(e: KsqlError, statement: str | None) -> ServerError:
    """A user error from the engine: a statement error (40001) is a ``statement_error`` naming the
    statement; any other KsqlError a ``generic_error`` with its own code, as ksqlDB's KsqlException."""
    code = getattr(e, "error_code", BAD_REQUEST)
    if code == BAD_STATEMENT:
        return ServerError(BAD_STATEMENT, e.message, statement or "")
    return ServerError(code, e.message)
