"""Statement parsers, one function per leading keyword, collected in ``STATEMENT_PARSERS``.

Each function starts with the cursor on the statement's first word and returns one of the
dataclasses of ``ast.py``. They follow ksqlDB's ``statement`` rule (SqlBase.g4) and also raise the
few errors ksqlDB raises while building its AST (KEY on a table column...), because ksqlDB reports
those as parse failures too, and check each WITH clause (``with_clause.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sqlglot.tokens import Token, TokenType

from ksqlpy.errors import KsqlParseError

from . import ast
from . import follow as F
from .errors import SYNTAX_ERROR, syntax_detail, unknown_statement
from .insert_values import prepare_insert_values
from .query import parse_integer_number, parse_limit, parse_query
from .types import expected_after_type, parse_type
from .variables import NAME_PATTERN
from .with_clause import PrepareError, PropertyScope, prepare_properties

if TYPE_CHECKING:
    from .parser import KsqlParser

StatementParser = Callable[["KsqlParser"], ast.Statement]


# --------------------------------------------------------------------------- CREATE


def _create(p: KsqlParser) -> ast.Statement:
    p.expect_word("CREATE")
    or_replace = p.match_word("OR", "REPLACE")
    if not or_replace:
        if p.match_word("SOURCE", "CONNECTOR"):
            return _create_connector(p, source=True)
        if p.match_word("SINK", "CONNECTOR"):
            return _create_connector(p, source=False)
        if p.match_word("TYPE"):
            return _create_type(p)
        if p._curr and p._curr.token_type == TokenType.OR:  # CREATE OR without REPLACE: no CREATE
            p._advance()                                     # statement fits the word after OR
            raise p.syntax_error(None)
    is_source = p.match_word("SOURCE")
    kind = p.word()
    if kind not in ("STREAM", "TABLE"):
        raise p.syntax_error(None)  # no CREATE statement fits: no viable alternative
    p._advance()
    if_not_exists = _if_not_exists(p, undecided=not is_source)
    # CREATE [OR REPLACE] STREAM|TABLE begins both CREATE forms (with columns, AS query): ANTLR's prediction
    # reads on until they part - at the column list or AS - so a syntax error in the name or the WITH clause
    # has no viable alternative (a SOURCE stream or table has one form). Once the form without a query
    # could end, the prediction settles on it and a stray token is the statement's own error.
    undecided = not is_source
    if undecided and not p.is_identifier():
        raise p.syntax_error(None)
    name = p.parse_identifier("a source name")
    columns = _table_elements(p) if p._curr.token_type == TokenType.L_PAREN else None
    undecided = undecided and columns is None
    with_at = p.line_col(p._curr)
    properties, _ = _undecided_properties(p) if undecided else (
        p.parse_properties() if p.match_word("WITH") else ({}, {}))
    as_token = p._curr
    if p.match_word("AS"):
        if columns is not None or is_source:
            raise p.syntax_error(None, as_token)
        query = parse_query(p)  # ksqlDB parses the whole statement before it prepares it
        _defer_persistent_limit(p, query, f"CREATE {kind} AS SELECT")
        return ast.CreateAsSelect(
            kind=kind,
            name=name,
            properties=_prepare_properties(p, PropertyScope.CREATE_AS_SELECT, properties, with_at),
            query=query,
            or_replace=or_replace,
            if_not_exists=if_not_exists,
        )
    # ksqlDB's AstBuilder.visitCreateStream/Table, once the whole text parsed: each column's type (deferred as
    # it was read), TableElements.of (duplicate names), CreateSourceProperties.from (the WITH clause), then the
    # CreateStream/CreateTable constructor (KEY vs PRIMARY KEY) - the first fault in that order is reported
    _defer_duplicate_columns(p, columns or [])
    prepared = _prepare_properties(p, PropertyScope.CREATE_SOURCE, properties, with_at, defer=True)
    _defer_key_constraint(p, kind, columns or [])
    # text after the statement (two or more tokens): ANTLR's sync remembered the first optional clause left out
    # - ``(tableElements)?`` ('(' or WITH) or ``(WITH tableProperties)?`` - and lists it with ';'; after the WITH
    # clause nothing is left (its ')' was matched after a sync sure of it)
    p.tail = () if properties else ("WITH",) if columns is not None else ("(", "WITH")
    return ast.CreateSource(
        kind=kind,
        name=name,
        columns=columns or [],
        properties=prepared,
        or_replace=or_replace,
        if_not_exists=if_not_exists,
        is_source=is_source,
    )


def _if_not_exists(p: KsqlParser, *, undecided: bool = False) -> bool:
    """``(IF NOT EXISTS)?``. ANTLR predicts the clause from IF NOT (IF alone may be the name: nonReserved), then
    matches EXISTS with inline recovery: a token before EXISTS is extraneous, a name where EXISTS should be
    has it missing (``missing 'EXISTS' at 'x'``), anything else is a mismatch (``Expecting 'EXISTS'``).
    ``undecided``: the statement's form is still being predicted (CREATE STREAM|TABLE, with columns or AS
    query), so a token that is not EXISTS fails that prediction - no viable alternative at it."""
    curr, nxt = p._curr, p._next
    if not (curr and nxt and p.word() == "IF" and nxt.text.upper() == "NOT"
            and nxt.token_type not in (TokenType.IDENTIFIER, TokenType.STRING)):
        return False
    p._advance(2)
    if p.match_word("EXISTS"):
        return True
    if undecided:
        raise p.syntax_error(None)
    p.expect_keyword("EXISTS", p.is_identifier)
    return True


def _defer_duplicate_columns(p: KsqlParser, columns: list[ast.ColumnDef]) -> None:
    """ksqlDB's TableElements refuses a name declared twice (from memory): ``Duplicate column names: `V```,
    the names in the order they are first declared, without a position."""
    names = [c.name for c in columns]
    duplicates = [n for i, n in enumerate(names) if names.count(n) > 1 and names.index(n) == i]
    if duplicates:
        p.defer(KsqlParseError("Duplicate column names: " + ", ".join(f"`{n}`" for n in duplicates), prepared=True))


KEY_KINDS = ("\nTables have PRIMARY KEYs, which are unique and NON NULL.\n"
             "Streams have KEYs, which have no uniqueness or NON NULL constraints.")


def _defer_key_constraint(p: KsqlParser, kind: str, columns: list[ast.ColumnDef]) -> None:
    """A stream's PRIMARY KEY or a table's KEY: refused by ksqlDB's CreateStream/CreateTable constructor, at the
    first such column, as a ParseFailedException of its own - worded ``Line: L, Col: C: ...`` and not prefixed
    ``Failed to prepare statement:`` (from memory)."""
    for c in columns:
        if kind == "STREAM" and c.primary_key:
            wrong, right, kinds = "PRIMARY KEY", "KEY", "streams"
        elif kind == "TABLE" and c.key and not c.primary_key:
            wrong, right, kinds = "KEY", "PRIMARY KEY", "tables"
        else:
            continue
        p.defer(KsqlParseError(f"Column `{c.name}` is a '{wrong}' column: please use '{right}' for {kinds}.{KEY_KINDS}",
                               c.line, c.column, located=True))
        return


def _prepare_properties(p: KsqlParser, scope: PropertyScope, properties: dict[str, Any],
                        where: tuple[int, int], *, defer: bool = False) -> dict[str, Any]:
    """The WITH clause prepared as ksqlDB's AST builder does - after the whole text parsed: with text left
    after the statement (a syntax error, reported first), or a fault the builder found earlier (``defer``),
    its refusal waits."""
    try:
        return prepare_properties(scope, properties, where)
    except KsqlParseError as e:
        if not p._curr and not defer and p.deferred is None:
            raise
        p.defer(e)
        return {}


def _defer_persistent_limit(p: KsqlParser, query: ast.Query, statement: str) -> None:
    """A persistent query takes no LIMIT: ksqlDB's AstBuilder refuses it in visitCreateStreamAs,
    visitCreateTableAs and visitInsertInto once the query is built and before the WITH clause is checked
    (from memory), so DefaultKsqlParser words it ``Failed to prepare statement: <statement> statements don't
    support LIMIT clause.`` - before IF NOT EXISTS, the sink's name or any source is looked at."""
    if query.limit is not None:
        p.defer(PrepareError(f"{statement} statements don't support LIMIT clause."))


def _undecided_properties(p: KsqlParser) -> tuple[dict[str, Any], dict[str, Any]]:
    """``WITH (...)`` while both CREATE forms are viable: a syntax error in it fails the prediction there."""
    if not p.match_word("WITH"):
        return {}, {}
    try:
        return p.parse_properties()
    except KsqlParseError as e:
        if e.raw_message.startswith(SYNTAX_ERROR):
            raise p.syntax_error(None) from None
        raise


def _table_elements(p: KsqlParser) -> list[ast.ColumnDef]:
    p.expect(TokenType.L_PAREN, "(")
    columns = [parse_column_def(p)]
    while p._match(TokenType.COMMA):
        columns.append(parse_column_def(p))
    if not p._match(TokenType.R_PAREN):
        raise p.syntax_error("{',', ')'}")
    return columns


def parse_column_def(p: KsqlParser) -> ast.ColumnDef:
    """``name type [KEY | PRIMARY KEY | HEADERS | HEADER('k')]`` (KEY vs PRIMARY KEY: ``_defer_key_constraint``)."""
    name_token = p._curr
    line, col = p.line_col(name_token)
    name = p.parse_identifier("a column name")
    with p.followed_by(F.COLUMN_TYPE):
        column = ast.ColumnDef(name=name, type=parse_type(p), line=line, column=col)
    if p.match_word("PRIMARY", "KEY"):
        column.key = column.primary_key = True
    elif p.match_word("KEY"):
        column.key = True
    elif p.match_word("HEADERS"):
        column.headers = True
    elif p.match_word("HEADER"):
        p.expect(TokenType.L_PAREN, "(")
        column.header_key = p.parse_string(_is(TokenType.R_PAREN))
        p.expect_close(TokenType.R_PAREN, ")", F.COLUMN_END)
    return column


def _create_connector(p: KsqlParser, source: bool) -> ast.CreateConnector:
    if_not_exists = _if_not_exists(p)
    name = p.parse_identifier("a connector name")
    p.expect_word("WITH")
    properties, _ = p.parse_properties(upper_keys=False)
    return ends(p, ast.CreateConnector(name=name, source=source, properties=properties, if_not_exists=if_not_exists))


def _create_type(p: KsqlParser) -> ast.CreateType:
    if_not_exists = _if_not_exists(p)
    name = p.parse_identifier("a type name")
    p.expect_keyword("AS", p.starts_type)
    with p.followed_by(F.STATEMENT_END):
        statement = ast.CreateType(name=name, type=parse_type(p), if_not_exists=if_not_exists)
    p.tail_detail = expected_after_type(p, (";",))
    return statement


# --------------------------------------------------------------------------- INSERT / SELECT


def _insert(p: KsqlParser) -> ast.Statement:
    p.expect_word("INSERT")
    if not p.match_word("INTO"):
        # both INSERT statements (``INSERT INTO s query``, ``INSERT INTO s (cols) VALUES``) begin INSERT INTO:
        # ANTLR's statement prediction finds no viable alternative at the token after INSERT
        raise p.syntax_error(None)
    line, col = p.line_col(p._curr)
    if not p.is_identifier():
        raise p.syntax_error(None)  # both INSERT INTO forms need the target: the prediction fails here
    target = p.parse_identifier("a source name")
    with_at = p.line_col(p._curr)
    if p.match_word("WITH"):
        properties, _ = p.parse_properties()
        query = parse_query(p)  # ksqlDB parses the whole statement before it prepares it
        _defer_persistent_limit(p, query, "INSERT INTO")
        properties = _prepare_properties(p, PropertyScope.INSERT_INTO, properties, with_at)
        return ast.InsertInto(target=target, properties=properties, query=query, target_line=line,
                              target_column=col)
    if p.word() == "SELECT":
        query = parse_query(p)
        _defer_persistent_limit(p, query, "INSERT INTO")
        return ast.InsertInto(target=target, properties={}, query=query, target_line=line, target_column=col)
    columns = None
    if p._match(TokenType.L_PAREN):
        columns = [_insert_column(p)]
        while p._match(TokenType.COMMA):
            columns.append(_insert_column(p))
        p.expect_list_end(TokenType.R_PAREN, ")")
    if not p.match_word("VALUES"):
        # after a column list only INSERT VALUES fits (one token expected); without one, neither INSERT form
        # fits this token: ANTLR's statement prediction finds no viable alternative
        raise p.syntax_error("'VALUES'" if columns is not None else None)
    p.expect(TokenType.L_PAREN, "(")
    with p.followed_by(F.IN_LIST):
        values = [] if p._curr.token_type == TokenType.R_PAREN else p._parse_list(p.parse_value_expression)
    p.expect_list_end(TokenType.R_PAREN, ")")
    p.tail = ()
    return prepare_insert_values(ast.InsertValues(target=target, columns=columns, values=values), (line, col))


def _insert_column(p: KsqlParser) -> tuple[str | None, str]:
    """``[qualifier.]column`` of an INSERT VALUES column list."""
    name = p.parse_identifier("a column name")
    if p._curr.token_type == TokenType.DOT:
        p._advance()
        return name, p.parse_identifier("a column name")
    return None, name


def _select(p: KsqlParser) -> ast.SelectStatement:
    return ast.SelectStatement(query=parse_query(p))


# --------------------------------------------------------------------------- SHOW / DESCRIBE / EXPLAIN

_SHOW_SIMPLE = ("PROPERTIES", "FUNCTIONS", "TYPES", "VARIABLES", "CONNECTORS")
_SHOW_EXTENDED = ("STREAMS", "TABLES", "TOPICS", "QUERIES")


_S = TypeVar("_S", bound=ast.Statement)


def ends(p: KsqlParser, statement: _S, *optional: str) -> _S:
    """``statement`` parsed up to its end, where ``optional`` are the keywords that could still have begun
    the optional clauses it left out: from the first one left out since its last required token (ANTLR's
    ``sync`` keeps the first optional point where a token did not fit), to the end. Text after the statement
    is reported against these and ';' (``KsqlParser._trailing``)."""
    p.tail = optional
    return statement


def _extended(p: KsqlParser, make: Callable[[bool], _S]) -> _S:
    """A statement ending ``EXTENDED?``."""
    extended = p.match_word("EXTENDED")
    return ends(p, make(extended), *(() if extended else ("EXTENDED",)))


def _show(p: KsqlParser) -> ast.Show:
    p._advance()  # SHOW | LIST
    word = p.word()
    if word in _SHOW_SIMPLE:
        p._advance()
        return ends(p, ast.Show(what=word))
    if p.match_word("ALL", "TOPICS"):
        return _extended(p, lambda extended: ast.Show(what="ALL_TOPICS", extended=extended))
    if word in _SHOW_EXTENDED:
        p._advance()
        return _extended(p, lambda extended: ast.Show(what=word, extended=extended))
    if word in ("SOURCE", "SINK") and p.next_word() == "CONNECTORS":
        p._advance(2)
        return ends(p, ast.Show(what=f"{word}_CONNECTORS"))
    if p.match_word("CONNECTOR", "PLUGINS"):
        return ends(p, ast.Show(what="CONNECTOR_PLUGINS"))
    # no SHOW/LIST statement fits this word: ANTLR's prediction among the statement's alternatives finds
    # no viable one (as for ASSERT), worded with the word and its position
    raise p.syntax_error(None)


def _describe(p: KsqlParser) -> ast.Describe:
    p.expect_word("DESCRIBE")
    word = p.word()
    if word in ("STREAMS", "TABLES"):
        p._advance()
        return _extended(p, lambda extended: ast.Describe(name=None, what=word, extended=extended))
    if word == "FUNCTION" and p.is_identifier(p._next):
        p._advance()
        return ends(p, ast.Describe(name=p.parse_identifier("a function name").upper(), what="FUNCTION"))
    if p.match_word("CONNECTOR"):
        return ends(p, ast.Describe(name=p.parse_identifier("a connector name"), what="CONNECTOR"))
    if not p.is_identifier():
        raise p.syntax_error(None)  # no DESCRIBE form begins here: ANTLR's prediction fails at this token
    name = p.parse_identifier("a source name")
    return _extended(p, lambda extended: ast.Describe(name=name, extended=extended))


def _explain(p: KsqlParser) -> ast.Explain:
    p.expect_word("EXPLAIN")
    if p.word() in STATEMENT_PARSERS and p._next:
        first = p._curr
        inner = p.parse_statement()
        last = p._prev
        inner.text = p.sql[first.start : last.end + 1]
        inner.line, inner.column = p.positions.line_col(first.start)
        return ast.Explain(statement=inner)
    return ends(p, ast.Explain(query_id=p.parse_identifier("a query id or a statement")))


# --------------------------------------------------------------------------- queries lifecycle


def _query_id_or_all(p: KsqlParser) -> str | None:
    if p.match_word("ALL"):
        return None
    if not p.is_identifier():
        # <KEYWORD> identifier and <KEYWORD> ALL are two statement forms: ANTLR's prediction fails here
        raise p.syntax_error(None)
    return p.parse_identifier("a query id or ALL")


def _terminate(p: KsqlParser) -> ast.Terminate:
    p.expect_word("TERMINATE")
    return ends(p, ast.Terminate(query_id=_query_id_or_all(p)))


def _reset(p: KsqlParser) -> ast.ResetQuery:
    """``RESET QUERY id [TO EARLIEST | TO TIMESTAMP 'iso' | TO TIMESTAMP ms]`` (ksqlpy's; not in ksqlDB)."""
    p.expect_word("RESET", "QUERY")
    query_id = p.parse_identifier("a query id")
    to: int | str | None = None
    if p.match_word("TO"):
        if p.match_word("TIMESTAMP"):
            to = p.parse_string() if p._curr.token_type == TokenType.STRING else p.parse_integer(
                "a timestamp (epoch milliseconds or an ISO-8601 string)")
        elif not p.match_word("EARLIEST"):
            raise p.syntax_error("{'EARLIEST', 'TIMESTAMP'}")
    return ast.ResetQuery(query_id=query_id, to_timestamp=to)


def _pause_resume(p: KsqlParser) -> ast.PauseResume:
    action = p.word() or ""
    p._advance()
    return ends(p, ast.PauseResume(action=action, query_id=_query_id_or_all(p)))


# --------------------------------------------------------------------------- DROP / ALTER


def _drop(p: KsqlParser) -> ast.Statement:
    p.expect_word("DROP")
    kind = p.word()
    if kind not in ("STREAM", "TABLE", "TYPE", "CONNECTOR"):
        raise p.syntax_error(None)  # no DROP statement fits: no viable alternative
    p._advance()
    if_exists = p.match_word("IF", "EXISTS")
    if kind == "TYPE":
        return ends(p, ast.DropType(name=p.parse_identifier("a type name"), if_exists=if_exists))
    if kind == "CONNECTOR":
        return ends(p, ast.DropConnector(name=p.parse_identifier("a connector name"), if_exists=if_exists))
    name = p.parse_identifier("a source name")
    delete_topic = p.match_word("DELETE")
    if delete_topic and not p.match_word("TOPIC"):
        if p.statement_ends(p._curr):
            # the statement could end after TOPIC: ANTLR inserts it and says it is missing at the ';' (with no
            # ';' the text's end cannot follow TOPIC: a mismatch)
            raise p.error(syntax_detail("missing 'TOPIC' at ';'"))
        raise p.syntax_error("'TOPIC'")
    return ends(p, ast.Drop(kind=kind, name=name, if_exists=if_exists, delete_topic=delete_topic),
                *(() if delete_topic else ("DELETE",)))


def _alter(p: KsqlParser) -> ast.AlterSource | ast.AlterSystem:
    p.expect_word("ALTER")
    if p.match_word("SYSTEM"):  # ALTER SYSTEM 'prop'='value'
        name = p.parse_string(_is(TokenType.EQ))
        p.expect_token(TokenType.EQ, "=", _is(TokenType.STRING))
        return ends(p, ast.AlterSystem(name=name, value=p.parse_string(p.statement_ends)))
    kind = p.word()
    if kind not in ("STREAM", "TABLE"):
        raise p.syntax_error(None)  # no ALTER statement fits: no viable alternative
    p._advance()
    name = p.parse_identifier("a source name")
    columns = []
    while True:
        p.expect_word("ADD")
        p.match_word("COLUMN")
        column = p.parse_identifier("a column name")
        with p.followed_by(F.ADDED_COLUMN_TYPE):
            columns.append(ast.ColumnDef(name=column, type=parse_type(p)))
        if not p._match(TokenType.COMMA):
            break
    # the ``(',' alterOption)*`` loop and the statement's end follow the last type (ANTLR's sync at the loop
    # found its point remembered already, in the type)
    p.tail_detail = expected_after_type(p, (",", ";"))
    return ast.AlterSource(kind=kind, name=name, columns=columns)


# --------------------------------------------------------------------------- session


def _set(p: KsqlParser) -> ast.SetProperty:
    p.expect_word("SET")
    name = p.parse_string(_is(TokenType.EQ))
    p.expect_token(TokenType.EQ, "=", _is(TokenType.STRING))
    return ends(p, ast.SetProperty(name=name, value=p.parse_string(p.statement_ends)))


def _unset(p: KsqlParser) -> ast.UnsetProperty:
    p.expect_word("UNSET")
    return ends(p, ast.UnsetProperty(name=p.parse_string(p.statement_ends)))


def _variable_name(p: KsqlParser) -> str:
    """A variable name: a bare word, reserved words included (ksqlDB tolerates them in DEFINE/UNDEFINE), spelled
    as ksqlDB's IDENTIFIER token is (``variables.NAME``: '@' after the first character too), so every name a
    ``${name}`` reference can hold can be defined and undefined."""
    token = p._curr
    bare_word = bool(token) and token.token_type not in (TokenType.STRING, TokenType.NUMBER, TokenType.IDENTIFIER,
                                                         TokenType.SENTINEL) and NAME_PATTERN.fullmatch(token.text)
    if not bare_word:
        # ``variableName: IDENTIFIER | nonReserved``: ANTLR's sync before it reports a mismatch against every
        # token that can begin it - no detail (the statement was predicted at DEFINE / UNDEFINE)
        raise p.syntax_error("a variable name")
    token = p._curr
    p._advance()
    return token.text


def _is(token_type: TokenType) -> Callable[[Token | None], bool]:
    """A ``follows`` test for ``parse_string``: the token after the string is of ``token_type``."""
    return lambda token: token is not None and token.token_type == token_type


def _define(p: KsqlParser) -> ast.DefineVariable:
    p.expect_word("DEFINE")
    name = _variable_name(p)
    p.expect_token(TokenType.EQ, "=", _is(TokenType.STRING))
    return ends(p, ast.DefineVariable(name=name, value=p.parse_string(p.statement_ends)))


def _undefine(p: KsqlParser) -> ast.UndefineVariable:
    p.expect_word("UNDEFINE")
    return ends(p, ast.UndefineVariable(name=_variable_name(p)))


# --------------------------------------------------------------------------- PRINT / ASSERT / RUN SCRIPT


def _print(p: KsqlParser) -> ast.PrintTopic:
    p.expect_word("PRINT")
    stmt = ast.PrintTopic(topic=p.parse_verbatim_name("a topic name"))
    if p.word() == "FROM":  # printClause: (FROM BEGINNING)? - entered at FROM, then BEGINNING is matched
        p._advance()
        if p.statement_ends(p._curr):  # the clause may end the statement: the ';' may follow it
            raise p.error(syntax_detail("missing 'BEGINNING' at ';'"))
        p.expect_keyword("BEGINNING", lambda token: token.text.upper() in ("INTERVAL", "SAMPLE", "LIMIT"))
        stmt.from_beginning = True
    if p.word() in ("INTERVAL", "SAMPLE"):
        p._advance()
        stmt.interval = parse_integer_number(p, "INTERVAL", "an interval")
    if p.match_word("LIMIT"):
        stmt.limit = parse_limit(p)
        return ends(p, stmt)
    # printClause: (FROM BEGINNING)? intervalClause? limitClause?
    return ends(p, stmt, *(["LIMIT"] if stmt.interval is not None else
                           ["INTERVAL", "SAMPLE", "LIMIT"] + ([] if stmt.from_beginning else ["FROM"])))


def _assert(p: KsqlParser) -> ast.Statement:
    p.expect_word("ASSERT")
    exists = not p.match_word("NOT", "EXISTS")
    if p.match_word("TOPIC"):
        topic = ast.AssertTopic(topic=p.parse_verbatim_name("a topic name"), exists=exists)
        with_clause = p.match_word("WITH")
        if with_clause:
            topic.properties, _ = p.parse_properties()
        topic.timeout_ms = _timeout(p)
        # assertTopic: ... identifier (WITH tableProperties)? timeout?
        return ends(p, topic, *([] if topic.timeout_ms is not None else
                                ["TIMEOUT"] if with_clause else ["WITH", "TIMEOUT"]))
    start = p._curr
    if not p.match_word("SCHEMA"):
        # no statement form fits: ANTLR's prediction among ASSERT TOPIC / ASSERT SCHEMA fails at the first
        # token neither continues with (after a NOT, the one that is not EXISTS)
        curr, nxt = p._curr, p._next
        after_not = bool(curr) and curr.text.upper() == "NOT" and not (nxt and nxt.text.upper() == "EXISTS")
        failing = (nxt or p.end_token) if after_not else curr
        raise p.syntax_error(None, failing or None)
    schema = ast.AssertSchema(exists=exists)
    if p.match_word("SUBJECT"):
        schema.subject = p.parse_verbatim_name("a subject name")
    if p.match_word("ID"):
        schema.schema_id = p.parse_integer("a schema id")
    schema.timeout_ms = _timeout(p)
    if schema.subject is None and schema.schema_id is None:
        raise p.error("ASSERT SCHEMA statements must include a subject name or an id", start)
    # assertSchema: ... SCHEMA (SUBJECT name)? (ID literal)? timeout?
    return ends(p, schema, *([] if schema.timeout_ms is not None else
                             ["TIMEOUT"] if schema.schema_id is not None else ["ID", "TIMEOUT"]))


def _timeout(p: KsqlParser) -> int | None:
    return p.parse_duration() if p.match_word("TIMEOUT") else None


def _run_script(p: KsqlParser) -> ast.RunScript:
    if not p.allow_run_script:
        raise p.error(syntax_detail(unknown_statement(p._curr.text)))
    p.expect_word("RUN", "SCRIPT")
    return ends(p, ast.RunScript(path=p.parse_string(p.statement_ends)))


STATEMENT_PARSERS: dict[str, StatementParser] = {
    "CREATE": _create,
    "INSERT": _insert,
    "SELECT": _select,
    "SHOW": _show,
    "LIST": _show,
    "DESCRIBE": _describe,
    "EXPLAIN": _explain,
    "TERMINATE": _terminate,
    "PAUSE": _pause_resume,
    "RESET": _reset,
    "RESUME": _pause_resume,
    "DROP": _drop,
    "ALTER": _alter,
    "SET": _set,
    "UNSET": _unset,
    "DEFINE": _define,
    "UNDEFINE": _undefine,
    "PRINT": _print,
    "ASSERT": _assert,
    "RUN": _run_script,
}
