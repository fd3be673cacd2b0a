"""Prepared key lookups: a repeated pull query skips parsing, analysis and compiling.

A key lookup costs about a millisecond of CPU, nearly all of it sqlglot parsing, analysis and
``compile()`` of the WHERE and projection, and under load every bit of CPU is also a wait for the GIL
beside a busy query. So the prepared form of a lookup is kept, keyed by the statement's *shape*: its
text with each literal of the WHERE clause replaced by a placeholder tagged with the literal's SQL type
(whitespace runs collapsed). ``SELECT * FROM t WHERE k = 5;`` and ``... WHERE k = 7;`` share one entry;
everything else in the text (names, the select list, LIMIT) must match exactly.

Only *exact* lookups are kept: a WHERE that is an OR/AND of ``key = literal`` and ``key IN (literals)``,
every key column once per disjunct, nothing else. The rows the store holds under those keys are exactly
the rows such a WHERE accepts, so the entry needs no code that depends on the literals: on a hit the
literals become keys (with the same conversions and errors as ``plan.pull_access``), the store is read and the
cached projection runs. An entry is made from a statement that ran through the full path, after checking
that its WHERE literals map one to one onto the placeholders.

Entries carry ``Engine.generation``; every statement that may change the catalog, properties or queries
(DDL, SET, TERMINATE, ...) moves it on, which voids them all.
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.catalog import Column, Source
from ksqlpy.engine import consistency
from ksqlpy.engine.results import StatementResult
from ksqlpy.expr.type_rules import literal_type
from ksqlpy.grammar import ast as A
from ksqlpy.plan.pull_access import PullPlanError, _dnf, _to_key, _unparen

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

MAX_ENTRIES = 512
_TOKEN = re.compile(r"""
  (?P<ws>\s+)
| (?P<str>'(?:[^']|'')*')
| (?P<qid>`[^`]*`|"[^"]*")
| (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)(?![\w@$])
| (?P<word>[\w@$]+)
| (?P<bad>--|/\*|['`"])
| (?P<op>.)
""", re.X | re.S)
_SELECT = re.compile(r"\s*select\s", re.I)
_TIME_COLUMNS = ("ROWTIME", "WINDOWSTART", "WINDOWEND")
# statements that change nothing a prepared lookup depends on (all others move Engine.generation)
_READ_ONLY = (A.SelectStatement, A.InsertValues, A.Show, A.Describe, A.Explain, A.PrintTopic)

Param = tuple[str, str]  # ("str" | "num", token text)
Slot = tuple[int, bool]  # (parameter index, negated)


def changes_catalog(stmt: A.Statement) -> bool:
    """Whether running ``stmt`` must void the prepared lookups."""
    return not isinstance(stmt, _READ_ONLY)


def shape_of(sql: str) -> tuple[str, list[Param]] | None:
    """``(shape, WHERE literals)`` of one SELECT, or None when the text is not a candidate (not a SELECT,
    no WHERE, comments, variables, several statements, EMIT)."""
    if _SELECT.match(sql) is None or "${" in sql:
        return None
    parts: list[str] = []
    params: list[Param] = []
    in_where = False
    seen_where = False
    for m in _TOKEN.finditer(sql):
        kind, text = m.lastgroup, m.group()
        if kind == "ws":
            if parts and parts[-1] != " ":
                parts.append(" ")
        elif kind == "bad":
            return None
        elif kind == "word":
            up = text.upper()
            if up == "WHERE":
                in_where = seen_where = True
            elif up == "LIMIT":
                in_where = False
            elif up == "EMIT":
                return None
            parts.append(text)
        elif in_where and (kind == "str" or kind == "num"):
            parts.append("?")
            params.append((kind, text))
        else:
            parts.append(text)
    while parts and parts[-1] == " ":
        parts.pop()
    # the ';' stays in the shape (blanks before it do not): a text without it is another text (a client's is
    # refused by the parser, the engine's Python API takes it), never answered from a lookup prepared for the other
    if parts and parts[-1] == ";" and len(parts) > 1 and parts[-2] == " ":
        del parts[-2]
    if not seen_where or ";" in parts[:-1]:
        return None
    return "".join(parts).strip(), params


def _literal(kind: str, text: str, negated: bool = False) -> tuple[Any, T.SqlType]:
    """(value, SQL type) of a literal token, exactly as the binder reads it."""
    if kind == "str":
        return text[1:-1].replace("''", "'"), T.STRING
    return literal_type(("-" + text) if negated else text)


def _key(shape: str, params: list[Param]) -> tuple[str, tuple[str, ...]]:
    return shape, tuple(str(_literal(k, t)[1]) for k, t in params)


@dataclass
class PreparedLookup:
    """One exact key lookup shape: how literals become keys, and the compiled projection."""

    generation: int
    session_properties: dict[str, Any]  # as they were (never prepared under a request's own properties)
    source: Source
    key_columns: list[Column]
    disjuncts: list[list[tuple[bool, list[Slot]]]]  # per disjunct, per key column: (IN list?, slots)
    plan: Any
    pipeline: Any
    limit: int | None

    def keys(self, params: list[Param]) -> list[tuple[tuple, None, None]]:
        """The keys to read, as ``plan.pull_access.plan_where`` would list them for these literals."""
        out: list[tuple[tuple, None, None]] = []
        for disjunct in self.disjuncts:
            per_column = []
            for col, (_in_list, slots) in zip(self.key_columns, disjunct, strict=True):
                values = (_literal(*params[i], negated) for i, negated in slots)
                per_column.append([_to_key(v, t, col) for v, t in values])
            out.extend((combo, None, None) for combo in itertools.product(*per_column))
        return out

    def answer(self, engine: Engine, params: list[Param], unlocked_only: bool = False) -> dict[str, Any] | None:
        """The pull query's result, or None when the table is no longer materialized here (or, with
        ``unlocked_only``, when reading it would wait for the engine lock: a table whose query runs in
        this process is read from committed state without it; any other, such as one kept by worker
        processes, only if the lock is free right now)."""
        from ksqlpy.engine.materialized import materialization_for
        from ksqlpy.engine.pull import evaluate_rows, fetch, result_of, stored_view

        unlocked = getattr(engine, "_runner", None) is not None and _unlocked_ok(engine, self.source)
        if unlocked:
            mat = materialization_for(engine, self.source)
            if mat is None:
                return None
            rows = fetch(mat.committed(), self.keys(params), self.source)
        else:
            if not engine.lock.acquire(blocking=not unlocked_only):
                return None
            try:
                mat = materialization_for(engine, self.source)
                if mat is None:
                    return None
                rows = fetch(mat, self.keys(params), self.source)
            finally:
                engine.lock.release()
        rows = stored_view(engine, self.source, rows)
        return result_of(self.plan, self.source, evaluate_rows(engine, self.pipeline, rows, self.limit))


def _unlocked_ok(engine: Engine, src: Source) -> bool:
    from ksqlpy.engine.pull import table_runs_unlocked

    return table_runs_unlocked(engine, src)


class PullCache:
    """Shape -> ``PreparedLookup``; safe to share between threads (entries are never changed)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, tuple[str, ...]], PreparedLookup] = {}
        self.hits = 0
        self.misses = 0

    def find(self, engine: Engine, sql: str) -> tuple[PreparedLookup, list[Param]] | None:
        shape = shape_of(sql)
        if shape is None:
            return None
        try:
            key = _key(*shape)
        except Exception:  # noqa: BLE001 - a literal the compiler rejects: the full path reports it
            return None
        entry = self.entries.get(key)
        if entry is None or entry.generation != engine.generation \
                or engine.catalog.source(entry.source.name) is not entry.source \
                or entry.session_properties != engine.session_properties:
            self.misses += 1
            return None
        self.hits += 1
        return entry, shape[1]

    def put(self, key: tuple[str, tuple[str, ...]], entry: PreparedLookup) -> None:
        while len(self.entries) >= MAX_ENTRIES:  # the oldest goes
            try:
                self.entries.pop(next(iter(self.entries)), None)
            except (StopIteration, RuntimeError):  # another thread changed it meanwhile
                break
        self.entries[key] = entry


def run_cached(engine: Engine, sql: str, unlocked_only: bool = False) -> tuple[StatementResult, str] | None:
    """Answer ``sql`` from a prepared lookup: ``(result, table name)``, or None (not prepared: run it the
    usual way). Errors are those the full path raises for the same literals. ``unlocked_only``: only if
    it never waits for the engine lock (the REST server then answers on its event loop)."""
    started = time.perf_counter()
    found = engine.pull_cache.find(engine, sql)
    if found is None:
        return None
    entry, params = found
    try:
        data = entry.answer(engine, params, unlocked_only)
    except PullPlanError:
        return None  # a key these literals cannot be: the full path refuses it, naming the statement
    if data is None:
        return None
    engine.stats.pull(time.perf_counter() - started)  # the pull-latency metric (metrics.py)
    return StatementResult("rows", sql.strip(), data=data), entry.source.name


def remember(engine: Engine, stmt: A.SelectStatement, src: Source, plan: Any, generation: int) -> None:
    """Prepare ``stmt``'s shape after it ran through the full path, if it is an exact key lookup."""
    shape = shape_of(stmt.text)
    where = stmt.query.where
    if shape is None or where is None or src.kind != "TABLE" or not src.key_columns or engine.request_properties:
        return  # (a lookup is answered from here only when its request sets no properties)
    if consistency.enabled(engine):
        return  # every answer carries a token of the stores' positions then (consistency.py)
    text, params = shape
    if len(set(params)) != len(params):
        return  # a repeated literal could not be told apart from its twin
    names = [c.name for c in src.key_columns]
    if any(n in _TIME_COLUMNS for n in names):
        return
    disjuncts = _exact(where, names, {p: i for i, p in enumerate(params)})
    if disjuncts is None or sorted(i for d in disjuncts for _, slots in d for i, _ in slots) != list(range(len(params))):
        return
    from ksqlpy.engine.pull import compile_rows

    try:
        key = _key(text, params)
    except Exception:  # noqa: BLE001
        return
    engine.pull_cache.put(key, PreparedLookup(generation, dict(engine.session_properties), src,
                                              list(src.key_columns), disjuncts, plan, compile_rows(plan, None),
                                              stmt.query.limit))


def _exact(where: exp.Expression, names: list[str], index: dict[Param, int]
           ) -> list[list[tuple[bool, list[Slot]]]] | None:
    """Per disjunct, per key column: the literal slots it is compared with; None unless the WHERE is an
    exact lookup whose literals are the placeholders (see the module docstring)."""
    dnf = _dnf(where)
    if dnf is None:
        return None
    out = []
    for conj in dnf:
        per: dict[str, tuple[bool, list[Slot]]] = {}
        for atom in conj:
            atom = _unparen(atom)
            if isinstance(atom, exp.EQ):
                col, other = _key_side(atom.this, names), atom.expression
                if col is None:
                    col, other = _key_side(atom.expression, names), atom.this
                slot = _slot(other, index)
                if col is None or col in per or slot is None:
                    return None
                per[col] = (False, [slot])
            elif isinstance(atom, exp.In) and set(atom.args) <= {"this", "expressions"}:
                col = _key_side(atom.this, names)
                slots = [_slot(v, index) for v in atom.expressions]
                if col is None or col in per or not slots or None in slots:
                    return None
                per[col] = (True, slots)  # type: ignore[arg-type]
            else:
                return None
        if sorted(per) != sorted(names):
            return None
        out.append([per[n] for n in names])
    return out


def _key_side(e: exp.Expression, names: list[str]) -> str | None:
    e = _unparen(e)
    if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star) and e.name in names:
        return e.name
    return None


def _slot(e: exp.Expression, index: dict[Param, int]) -> Slot | None:
    """The placeholder a bare literal (or a negated number) came from."""
    e = _unparen(e)
    negated = False
    if isinstance(e, exp.Neg):
        e, negated = _unparen(e.this), True
    if not isinstance(e, exp.Literal):
        return None
    if e.is_string:
        i = None if negated else index.get(("str", "'" + e.this.replace("'", "''") + "'"))
        return None if i is None else (i, False)
    text = e.this
    if not negated and text.startswith("-"):
        text, negated = text[1:], True
    i = index.get(("num", text))
    return None if i is None else (i, negated)
