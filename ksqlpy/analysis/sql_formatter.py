"""Statements printed the way ksqlDB's ``SqlFormatter`` prints them, after its injectors rewrote them.

ksqlDB does not keep a persistent statement as it was typed. Its injectors change the statement before it is
executed and stored, and the text they store is the statement printed by ``SqlFormatter`` (from memory of
ksqlDB's DefaultFormatInjector, DefaultSchemaInjector, TopicCreateInjector, SqlFormatter, AstSanitizer):

- the parser's sanitizer gives every source an alias (``FROM S S``), qualifies every column reference by it
  (``S.ID``) and names every select item (``(S.A + 1) KSQL_COL_0``); ``*`` stays ``*``;
- a CREATE ... AS SELECT is always reprinted (TopicCreateInjector): its WITH clause gains ``CLEANUP_POLICY``,
  ``KAFKA_TOPIC``, ``PARTITIONS``, ``REPLICAS`` and ``RETENTION_MS`` of the sink topic; WITH properties print
  sorted by name, values as literals;
- a CREATE STREAM/TABLE is reprinted only when an injector changed it: a format taken from
  ``ksql.persistence.default.format.*`` or ``FORMAT`` split (DefaultFormatInjector), columns read from the
  schema registry (DefaultSchemaInjector); otherwise it keeps the text the user sent, as does INSERT INTO;
- the query prints one clause per line: ``SELECT`` with a single item on its line, several items one per
  line indented by two spaces; ``FROM``, ``WINDOW`` (the window expression's own ``toString``:
  ``TUMBLING ( SIZE 30 SECONDS ) ``), ``WHERE``, ``GROUP BY``, ``PARTITION BY``, ``HAVING``, ``EMIT CHANGES``
  (or ``FINAL``); expressions as ExpressionFormatter prints them (``ksqlpy.expr.format``).

The same printer makes the ``Statement: ...`` that ends ksqlDB's physical-planning errors of a C*AS (the
statement as planned; ksqlDB's test harness reprints it without TopicCreateInjector's properties).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ksqlpy.analysis.written import qualified
from ksqlpy.expr.format import format_expression
from ksqlpy.grammar import ast as A
from ksqlpy.grammar.with_clause import literal_text
from ksqlpy.plan.logical import Scan, Sink
from ksqlpy.types import SqlType, quote_ident
from ksqlpy.types import type_sql as types_sql

DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000  # the broker's retention.ms a topic without its own reports


def type_sql(t: SqlType) -> str:
    """A column type as SqlFormatter prints it (``STRUCT<F STRING>``: field names quoted only if needed)."""
    return types_sql(t, quote_ident)


def _element(c: A.ColumnDef, kind: str) -> str:
    text = f"{quote_ident(c.name)} {type_sql(c.type)}"
    if c.headers:
        text += " HEADERS"
    elif c.header_key is not None:
        text += " HEADER(" + literal_text(c.header_key) + ")"
    elif c.key:
        text += " PRIMARY KEY" if kind == "TABLE" else " KEY"
    return text


def with_clause(properties: Mapping[str, Any]) -> str:
    """`` WITH (A=1, B='x')``: the properties sorted by name (their map is sorted), or nothing."""
    if not properties:
        return ""
    return " WITH (" + ", ".join(f"{k}={literal_text(properties[k])}" for k in sorted(properties)) + ")"


def with_formats(properties: Mapping[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """The WITH clause as ksqlDB's DefaultFormatInjector leaves it: ``FORMAT`` becomes both formats, and a
    format not given takes its ``ksql.persistence.default.format.*`` (when there is one)."""
    props = {str(k).upper(): v for k, v in properties.items()}
    both = props.pop("FORMAT", None)
    if both is not None:
        props.setdefault("KEY_FORMAT", both)
        props.setdefault("VALUE_FORMAT", both)
    for name, default in (("KEY_FORMAT", config.get("ksql.persistence.default.format.key", "KAFKA")),
                          ("VALUE_FORMAT", config.get("ksql.persistence.default.format.value"))):
        if props.get(name) is None and default:
            props[name] = str(default)
    return props


def create_source_sql(stmt: A.CreateSource, properties: Mapping[str, Any]) -> str:
    """``stmt`` with the WITH clause ``properties``, as SqlFormatter prints a CREATE STREAM/TABLE."""
    head = "CREATE "
    if stmt.or_replace:
        head += "OR REPLACE "
    if stmt.is_source:
        head += "SOURCE "
    head += f"{stmt.kind} "
    if stmt.if_not_exists:
        head += "IF NOT EXISTS "
    head += quote_ident(stmt.name)
    if stmt.columns:
        head += " (" + ", ".join(_element(c, stmt.kind) for c in stmt.columns) + ")"
    return head + with_clause(properties) + ";"


def stored_create_source(written: A.CreateSource, injected: A.CreateSource, config: Mapping[str, Any]) -> str:
    """The text ksqlDB stores for a CREATE STREAM/TABLE: reprinted when an injector changed the statement
    (``injected`` carries the registry's columns; the formats are filled in here), else as the user sent it."""
    written_props = {str(k).upper(): v for k, v in written.properties.items()}
    props = with_formats(injected.properties, config)
    if props == written_props and injected.columns == written.columns:
        return written.text
    return create_source_sql(injected, props)


def _window(w: A.WindowSpec) -> str:
    """ksqlDB's window expressions' ``toString`` (`` TUMBLING ( SIZE 1 SECONDS , GRACE PERIOD 0 SECONDS ) ``),
    each duration in the unit it was written in (WindowTimeClause keeps the TimeUnit)."""
    def dur(what: str, v: int) -> str:
        return w.printed.get(what, f"{v} MILLISECONDS")

    parts = [f"SIZE {dur('size', w.size_ms)}"] if w.type != "SESSION" else [dur("size", w.size_ms)]
    if w.advance_ms is not None:
        parts.append(f"ADVANCE BY {dur('advance', w.advance_ms)}")
    if w.retention_ms is not None:
        parts.append(f"RETENTION {dur('retention', w.retention_ms)}")
    if w.grace_ms is not None:
        parts.append(f"GRACE PERIOD {dur('grace', w.grace_ms)}")
    return f"WINDOW {w.type} ( {' , '.join(parts)} ) "


def _select(items: list[str]) -> str:
    """SqlFormatter's visitSelect: one item on the SELECT line, several one per line."""
    if len(items) == 1:
        return f"SELECT {items[0]}"
    return "SELECT\n" + ",\n".join(f"  {i}" for i in items)


def query_sql(q: A.Query, plan: Sink) -> str:
    """The query of a planned persistent statement as SqlFormatter prints it (no trailing newline)."""
    emit = f"EMIT {q.emit or 'CHANGES'}"  # a persistent query emits changes unless FINAL
    if plan.project.printed_from is not None:  # a join: printed by the join analysis (join_text)
        items = [f"{text} {quote_ident(name)}" for text, name in plan.project.printed]
        return "\n".join([_select(items), *plan.project.printed_from, emit])
    scan = plan.bottom
    alias = scan.alias if isinstance(scan, Scan) else plan.input_source.name
    items = plan.project.printed_select or [f"{text} {quote_ident(name)}" for text, name in plan.project.printed]
    lines = [_select(items), f"FROM {quote_ident(q.source.name)} {quote_ident(q.source.alias or q.source.name)}"]
    if q.window is not None:
        lines.append(_window(q.window))
    if q.where is not None:
        lines.append(f"WHERE {format_expression(qualified(q.where, alias))}")
    if q.group_by:
        lines.append("GROUP BY " + ", ".join(format_expression(qualified(g, alias)) for g in q.group_by))
    if q.partition_by:
        lines.append("PARTITION BY " + ", ".join(format_expression(qualified(p, alias)) for p in q.partition_by))
    if q.having is not None:
        lines.append(f"HAVING {format_expression(qualified(q.having, alias))}")
    lines.append(emit)
    return "\n".join(lines)


def create_as_sql(stmt: A.CreateAsSelect, plan: Sink, properties: Mapping[str, Any]) -> str:
    """A CREATE ... AS SELECT with the WITH clause ``properties`` (no ``;``)."""
    head = "CREATE "
    if stmt.or_replace:
        head += "OR REPLACE "
    head += f"{stmt.kind} "
    if stmt.if_not_exists:
        head += "IF NOT EXISTS "
    head += quote_ident(stmt.name) + with_clause(properties)
    return f"{head} AS {query_sql(stmt.query, plan)}"


def create_as_text(stmt: A.CreateAsSelect, plan: Sink) -> str:
    """The statement as ksqlDB's physical-planning errors quote it (``Statement: ...``): as written, reprinted."""
    return create_as_sql(stmt, plan, {str(k).upper(): v for k, v in stmt.properties.items()})


def sink_topic_properties(kind: str, topic: str, partitions: int, replicas: int, topic_config: Mapping[str, str],
                          inherited_retention_ms: int | None) -> dict[str, Any]:
    """The properties TopicCreateInjector adds to a CREATE ... AS SELECT (``CreateSourceAsProperties.withTopic``
    and the cleanup policy it inferred): the sink topic's name, counts, cleanup policy and retention."""
    retention = topic_config.get("retention.ms")
    return {
        "CLEANUP_POLICY": topic_config.get("cleanup.policy", "compact" if kind == "TABLE" else "delete"),
        "KAFKA_TOPIC": topic, "PARTITIONS": partitions, "REPLICAS": replicas,
        "RETENTION_MS": int(retention) if retention is not None else (
            inherited_retention_ms if inherited_retention_ms is not None else DEFAULT_RETENTION_MS),
    }


def stored_create_as(stmt: A.CreateAsSelect, plan: Sink, topic_properties: Mapping[str, Any]) -> str:
    """The text ksqlDB stores for a CREATE ... AS SELECT: reprinted with the sink topic's properties."""
    props = {str(k).upper(): v for k, v in stmt.properties.items()}
    return create_as_sql(stmt, plan, {**props, **topic_properties}) + ";"


__all__ = ["create_as_sql", "create_as_text", "create_source_sql", "query_sql", "sink_topic_properties",
           "stored_create_as", "stored_create_source", "type_sql", "with_clause", "with_formats"]
