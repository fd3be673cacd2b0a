"""User-facing errors. Every error a user can cause is one of these, with a message naming the problem."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class KsqlError(Exception):
    """Base of all ksqlpy user errors. ``location``: (line, column) of the SQL the error is about, when
    known (set by the expression compiler); the statement boundary names it in the message."""

    error_code = 40000
    location: tuple[int, int] | None = None
    # ksqlDB names no position for it (an expression's type or code-generation error, raised without a
    # NodeLocation), whatever the errors it was raised from knew
    unplaced: bool = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def set_message(self, message: str) -> None:
        self.message = message
        self.args = (message,)


def location(node: object) -> tuple[int, int] | None:
    """(line, column), 1-based in the submitted text, of a node the parser placed; None if unknown.

    sqlglot expression nodes carry it in their meta (``line``/``col``), statement parts (ColumnDef,
    SourceRef...) as ``line``/``column`` attributes; 0 or missing means unknown (a node built later).
    """
    meta = getattr(node, "_meta", None)
    if isinstance(meta, dict):
        line, col = meta.get("line"), meta.get("col")
    else:
        line, col = getattr(node, "line", None), getattr(node, "column", None)
    if isinstance(line, int) and isinstance(col, int) and line > 0:
        return line, col
    return None


def location_within(node: object) -> tuple[int, int] | None:
    """Where an expression is: its own position, else that of its first placed part (left to right)."""
    where = location(node)
    if where is not None:
        return where
    walk = getattr(node, "walk", None)
    if walk is None:
        return None
    for part in walk(bfs=False):
        where = location(part)
        if where is not None:
            return where
    return None


def error_location(e: BaseException | None) -> tuple[int, int] | None:
    """The location carried by ``e`` or by an error it was raised from."""
    seen: set[int] = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if getattr(e, "unplaced", False):
            return None
        where = getattr(e, "location", None)
        if where:
            return where
        e = e.__cause__ or e.__context__
    return None


# the wording ksqlDB's engine puts before the message of an error from the stage that raised it; a
# location belongs to that message, after the stage's words ('Exception while preparing statement: Line: 2,
# Col: 32: Column 'X' is ambiguous...', EngineContext.prepare wrapping the sanitizer's error)
STAGE_PREFIXES = ("Exception while preparing statement: ", "Failed to prepare statement: ")


def name_location(e: KsqlError) -> None:
    """Prefix ``e``'s message with ksqlDB's ``Line: n, Col: m: `` if it carries a location and does not
    say where it is yet - after the words of the stage that wrapped it, if any."""
    where = error_location(e)
    if where is None or "Line: " in e.message or e.message.startswith("line "):
        return
    stage = next((p for p in STAGE_PREFIXES if e.message.startswith(p)), "")
    e.set_message(f"{stage}Line: {where[0]}, Col: {where[1]}: {e.message[len(stage):]}")


@contextmanager
def locating(where: tuple[int, int] | None) -> Iterator[None]:
    """KsqlErrors raised inside carry ``where`` unless they already know a more precise position."""
    try:
        yield
    except KsqlError as e:
        if e.location is None:
            e.location = where
        raise


def at(node: object, message: str) -> str:
    """``message`` with ksqlDB's location prefix ``Line: n, Col: m: `` when ``node`` has a position."""
    where = location(node)
    return f"Line: {where[0]}, Col: {where[1]}: {message}" if where else message


class KsqlParseError(KsqlError):
    """The SQL text does not parse. Carries the 1-based line and column of the offending token.

    Syntax errors read ``line L:C: ...`` (ksqlDB's ANTLR form). ``prepared=True`` marks what ksqlDB's AST
    builder rejects in well-formed text, while it prepares the statement: ``Failed to prepare statement: ``
    then ``line L:C: ...``. ``located=True``: a ParseFailedException the builder throws itself, in the
    node-location form ``Line: L, Col: C: ...``, which ksqlDB's prepare passes on without the prefix.
    """

    error_code = 40001

    def __init__(self, message: str, line: int = 0, column: int = 0, token: str | None = None,
                 *, located: bool = False, prepared: bool = False, silent: bool = False) -> None:
        if not line or silent:  # silent: the position is kept on the error, not in its text (as ksqlDB's)
            where = ""
        elif located:
            where = f"Line: {line}, Col: {column}: "
        else:
            where = f"line {line}:{column}: "
        stage = "Failed to prepare statement: " if prepared else ""
        super().__init__(f"{stage}{where}{message}")
        self.raw_message = message
        self.prepared = prepared
        self.located = located
        self.line = line
        self.column = column
        self.token = token


def caused_by(message: str) -> str:
    """ksqlDB's ErrorMessageUtil cause line: ``Caused by: <message>`` wrapped at 80 columns, each continuation
    line starting with a tab (commons-text ``WordUtils.wrap(text, 80, "\\n\\t", true)``)."""
    words, lines, line = ("Caused by: " + message).split(" "), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > 80:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n\t".join(lines)


class KsqlStatementError(KsqlError):
    """The statement parsed but is not valid (unknown source, wrong types, bad properties...)."""

    error_code = 40001


class KsqlAssertionError(KsqlError):
    """An ASSERT statement's assertion did not hold within its timeout (ksqlDB answers 417)."""

    error_code = 41700


class KsqlSchemaRegistryUnconfigured(KsqlError):
    """A statement needs the schema registry (AVRO, PROTOBUF, JSON_SR) and none is configured
    (``ksql.schema.registry.url`` empty): ksqlDB's ``KsqlSchemaRegistryNotConfiguredException``,
    answered with HTTP 428 wherever it is raised."""

    error_code = 42801


class KsqlTypeError(KsqlStatementError):
    """An expression does not type-check."""


class KsqlExpressionError(KsqlError):
    """An expression ksqlDB rejects with a plain (not statement) error, e.g. arithmetic on a bare NULL."""

    error_code = 40000


class KsqlRuntimeError(KsqlError):
    """Something failed while executing a valid statement."""

    error_code = 50000


class StreamsError(KsqlRuntimeError):
    """A record's processing failed in a way that stops the query (Kafka Streams' ``StreamsException``):
    an aggregate function or a sink serializer raised. Unlike an expression's failure (NULL plus a
    processing-log entry), the task does not skip the record: the query goes to ERROR and is retried
    from its committed position, as ksqlDB's does."""

    def __init__(self, task_id: str, topic: str, partition: int, offset: int | None, cause: BaseException) -> None:
        where = f"taskId={task_id}, topic={topic}, partition={partition}"
        if offset is not None:
            where += f", offset={offset}"
        super().__init__(f"Exception caught in process. {where}: {cause}")
        self.cause = cause

