"""The header of a pull query's result - its query id and schema text - as ksqlDB's StreamedRow header
writes it. One rule for every front door: the server's /query and /query-stream and the shell's
embedded engine (whose JSON OUTPUT prints the header StreamedRow) both read it from here."""

from __future__ import annotations

import secrets
import time
from typing import Any, Literal

PullKind = Literal["pull_table", "pull_stream"]
PULL_TABLE: PullKind = "pull_table"
PULL_STREAM: PullKind = "pull_stream"

# (name, type, is key) - a type is a SqlType or its text
HeaderColumn = tuple[str, Any, bool]


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def pull_columns(catalog: Any, source_name: str, raw: list[Any]) -> tuple[PullKind, list[HeaderColumn]]:
    """(kind, columns with key flags): a table's pull query marks its key columns (and a windowed table's
    WINDOWSTART/WINDOWEND) `` KEY`` in the schema; a stream's pull query marks none. A column that already
    carries a flag (a dict's ``key``, a triple's third) keeps it."""
    source = catalog.source(source_name)
    is_table = source is not None and source.kind == "TABLE"
    keys: set[str] = set()
    if is_table:
        keys = {c.name for c in source.key_columns}
        if source.windowed is not None:
            keys |= {"WINDOWSTART", "WINDOWEND"}
    cols: list[HeaderColumn] = []
    for c in raw:
        if isinstance(c, dict):
            cols.append((c["name"], c["type"], bool(c.get("key"))))
        elif len(c) >= 3:
            cols.append((c[0], c[1], bool(c[2])))
        else:
            cols.append((c[0], c[1], is_table and c[0] in keys))
    return (PULL_TABLE if is_table else PULL_STREAM), cols


def pull_query_id(kind: PullKind, alias: str) -> str:
    """A table's pull query is ``query_<epoch ms>``; a stream's runs as a transient query reading up to the
    end offsets, so its id is a transient query's, ``transient_<source alias>_<random positive long>``
    (ksqlDB's QueryIdUtil, from memory)."""
    if kind == PULL_STREAM:
        return f"transient_{alias}_{secrets.randbits(63)}"
    return f"query_{int(time.time() * 1000)}"


def source_schema(catalog: Any, source_name: str, cols: list[HeaderColumn]) -> str | None:
    """``SELECT *`` on a SOURCE table with header columns answers with the source's own schema, which
    ksqlDB prints keys first, then the header columns (with ``HEADER('k')``/``HEADERS``), then the values;
    the rows keep the select order. None: the schema is the columns' (``schema_text``)."""
    source = catalog.source(source_name)
    if source is None or source.kind != "TABLE" or not source.is_source or not source.header_columns:
        return None
    names = [n for n, _, _ in cols]
    if len(names) != len(source.columns) or set(names) != {c.name for c in source.columns}:
        return None

    def text(c: Any) -> str:
        suffix = " KEY" if c.key else " HEADERS" if c.headers else f" HEADER('{c.header_key}')" if c.header_key else ""
        return f"{quote(c.name)} {c.type}{suffix}"

    return ", ".join(text(c) for c in source.key_columns + source.header_columns + source.value_columns)


def schema_text(cols: list[HeaderColumn]) -> str:
    """`` `A` INTEGER KEY, `B` STRING``: the header schema of /query and the v1+json /query-stream."""
    return ", ".join(f"{quote(n)} {t}{' KEY' if key else ''}" for n, t, key in cols)
