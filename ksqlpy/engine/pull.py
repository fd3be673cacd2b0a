"""Pull queries: a SELECT without EMIT answers from what exists now and ends.

On a stream it scans the topic to its current end. On a table it reads the table's materialized state
(``engine.materialized``): key lookups when the WHERE pins the key, a scan otherwise (as planned: ``plan.pull_access``);
then the query's WHERE and projection, compiled like any query over the table's schema, run on the rows
fetched. ``SELECT *`` on a windowed table includes WINDOWSTART/WINDOWEND after the key, as in ksqlDB,
and ISO-8601 strings compared with ROWTIME/WINDOWSTART/WINDOWEND are read as timestamps.
"""

from __future__ import annotations

import copy
import threading
import time
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ksqlpy.analysis.pseudo_columns import check_queryable
from ksqlpy.analysis.source_hints import did_you_mean
from ksqlpy.analysis.time_literals import iso_time_literals
from ksqlpy.analysis.written import is_star
from ksqlpy.catalog import Source
from ksqlpy.engine import consistency, pull_admission
from ksqlpy.errors import KsqlStatementError, at
from ksqlpy.expr.bound import ColumnRef, Expr
from ksqlpy.grammar import ast as A
from ksqlpy.plan.codegen import StageSpec, build_stateless
from ksqlpy.plan.logical import Filter, FlatMap, PullAccess, Sink
from ksqlpy.plan.pull_access import PullPlanError, decide_access
from ksqlpy.properties import resolve

if TYPE_CHECKING:
    from ksqlpy.engine.engine import Engine

PULL_ENABLED = "ksql.pull.queries.enable"
STREAM_PULL_ENABLED = "ksql.query.pull.stream.enabled"
_HINT = " See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."
_DISALLOWED = ("ROWPARTITION", "ROWOFFSET")
_TIME_COLUMNS = ("ROWTIME", "WINDOWSTART", "WINDOWEND")


_unlocked = threading.local()  # .on: this thread runs a pull query without the engine lock


def runs_unlocked(engine: Engine, stmt: A.Statement) -> bool:
    """Whether a statement may run without the engine lock: a pull query on a table materialized by a
    query this process runs. It then reads the stores' committed state (``Materialization.committed``)
    while the background runner keeps processing: with the lock it would wait for whole batches
    (hundreds of ms under load). Pull queries on streams run a transient query: they keep the lock."""
    if not isinstance(stmt, A.SelectStatement) or stmt.query.emit is not None:
        return False
    name = getattr(stmt.query.source, "name", None)
    src = engine.catalog.source(name) if isinstance(name, str) else None
    return src is not None and table_runs_unlocked(engine, src)


def table_runs_unlocked(engine: Engine, src: Source) -> bool:
    """Whether pull queries on ``src`` may read committed state without the lock (see ``runs_unlocked``): a
    table whose query runs in this process, or whose copies are kept caught up in the background - by a
    cluster's server, or for a query run in worker processes by the engine's runner, each read under its
    partition copy's own lock (``engine/pull_copies.py``)."""
    if src.kind != "TABLE":
        return False
    background = engine.hosting.standby_refresh  # copies kept caught up by a cluster's server
    return any(q.sink_name == src.name and getattr(q, "materialization", None) is not None
               and (q.tasks or background or getattr(q, "workers", None) is not None) and q.state == "RUNNING"
               for q in list(engine.queries.values()))


def run_unlocked(fn: Any, *args: Any) -> Any:
    """Call ``fn`` with this thread's pull queries reading committed state (see ``runs_unlocked``)."""
    _unlocked.on = True
    try:
        return fn(*args)
    finally:
        _unlocked.on = False


def pull_query(engine: Engine, stmt: A.SelectStatement) -> tuple[list[tuple[str, Any]], list[tuple]]:
    r = pull_result(engine, stmt)
    return r["columns"], r["rows"]


def pull_result(engine: Engine, stmt: A.SelectStatement) -> dict[str, Any]:
    """``{"columns": [(name, type)], "rows": [tuple], "keys": [name of each key column selected]}``."""
    started = time.perf_counter()
    try:
        return _pull_result(engine, stmt)
    finally:
        engine.stats.pull(time.perf_counter() - started)  # the pull-latency metric (metrics.py)


def _pull_result(engine: Engine, stmt: A.SelectStatement) -> dict[str, Any]:
    src = _checked_source(engine, stmt)
    if src.kind == "STREAM":
        stream_off = _stream_pull_off(engine)
        if stream_off or pull_admission.waiting():
            _analyze(engine, stmt, src)  # the analysis's errors before the host's limits and the switch
        pull_admission.admit()  # the plan's errors (createStreamPullQuery's planning, typing) after them
        if stream_off:
            raise _stream_pull_disabled()
        return _pull_stream(engine, stmt)
    return _pull_table(engine, stmt, src)


def check_pull(engine: Engine, stmt: A.SelectStatement) -> dict[str, Any]:
    """A pull query planned, not run: what a sandbox validating a script checks (every rule up to reading
    the store - whether the table is materialized is the run's to say). Its result has no rows."""
    src = _checked_source(engine, stmt)
    if src.kind == "STREAM":
        from ksqlpy.analysis.query import analyze_query

        if _stream_pull_off(engine):
            _analyze(engine, stmt, src)
            raise _stream_pull_disabled()
        plan = analyze_query(stmt.query, engine.catalog, engine.session_state(), sink_name=None, persistent=False,
                             sql=stmt.text)
        return {"columns": [(c.name, c.type) for c in plan.project.value], "rows": [], "keys": []}
    q, plan = _table_plan(engine, stmt, src)
    try:
        decide_access(plan, q.where, engine.effective_properties(), engine.config)
    except PullPlanError as e:
        e.set_message(f"{e.message}\nStatement: {stmt.text}")
        raise
    return result_of(plan, src, [])


def _checked_source(engine: Engine, stmt: A.SelectStatement) -> Source:
    """The pull query's checks before its plan; its source."""
    q = stmt.query
    check_sources(engine.catalog, q)
    src = engine.catalog.source(q.source.name)
    assert src is not None
    try:
        _check_clauses(engine, q)
        _check_pseudo_columns(q)
        # after its rules, PullQueryValidator's validateNoUserColumnsWithSameNameAsPseudoColumns (from memory)
        check_queryable([c.name for c in src.columns], engine.effective_properties())
    except KsqlStatementError:
        # ksqlDB's PullQueryValidator reads the Analyzer's result: every column a clause names resolved, the
        # SELECT items' rules and the KAFKA format's GROUP BY refusal come first (only looked for when a rule
        # refuses: the query's plan repeats them)
        _analyze(engine, stmt, src)
        raise
    _check_enabled(engine, stmt, src)
    return src


def check_sources(catalog: Any, q: A.Query) -> None:
    """Every source a query names must exist: ksqlDB's sanitizer (AstSanitizer's DataSourceExtractor) checks
    them while preparing the statement, before the analysis and its pull-query rules, and before /ksql
    refuses a query (worded as any query's analysis words it: position, hint)."""
    for ref in [q.source, *(j.right for j in q.joins)]:
        if catalog.source(ref.name) is None:
            raise KsqlStatementError(at(ref, f"{ref.name} does not exist.{did_you_mean(catalog, ref.name)}"))


# ---------------------------------------------------------------------------------------------- checks
def _check_clauses(engine: Engine, q: A.Query) -> None:
    # an aggregate without GROUP BY is grouped by a constant (ksqlDB's analyzer adds the GROUP BY before the
    # pull-query rules run), so it is refused as a GROUP BY
    grouped = bool(q.group_by) or any(engine.functions.kind_of(f.fname) == "aggregate"
                                      for i in q.select for f in i.expr.find_all(A.FunctionCall))
    for present, what in ((q.joins, "JOIN"), (q.window, "WINDOW"), (grouped, "GROUP BY"),
                          (q.partition_by, "PARTITION BY"), (q.having, "HAVING")):
        if present:
            raise KsqlStatementError(f"Pull queries don't support {what} clauses.{_HINT}")
    if q.limit is not None:
        if str(engine.prop("ksql.query.pull.limit.clause.enabled", "true")).lower() == "false":
            raise KsqlStatementError("LIMIT clause in pull queries is currently disabled. You can enable them by "
                                     "setting ksql.query.pull.limit.clause.enabled=true. See "
                                     "https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to "
                                     "issue a push query.")
        if q.limit < 0:
            raise KsqlStatementError("Pull queries don't support negative integers in the LIMIT clause. See "
                                     "https://cnfl.io/queries for more info.")


def _check_pseudo_columns(q: A.Query) -> None:
    for clause, nodes in (("SELECT", [i.expr for i in q.select]), ("WHERE", [q.where] if q.where is not None else [])):
        bad = [c.name.upper() for n in nodes for c in n.find_all(exp.Column)
               if not isinstance(c.this, exp.Star) and c.name.upper() in _DISALLOWED]
        if bad:
            cols = ", ".join(f"`{b}`" for b in dict.fromkeys(bad))
            raise KsqlStatementError(f"Pull queries don't support the following columns in {clause} clauses: {cols}")


def _check_enabled(engine: Engine, stmt: A.SelectStatement, src: Source) -> None:
    """``ksql.pull.queries.enable`` as the server is configured (ksqlDB's QueryExecutor reads the server's
    config, a request cannot turn it on or off), checked once the query is analysed: a switch that is off
    refuses only an analysable query. The stream switch (``_stream_pull_off``) is checked later, after the
    host's limits (pull_admission.py), where KsqlEngine.createStreamPullQuery checks it."""
    if str(resolve(PULL_ENABLED, engine.config, default="true")).strip().lower() != "false":
        return
    _analyze(engine, stmt, src)
    raise KsqlStatementError(f"Pull queries are disabled.{_HINT}\nPlease set {PULL_ENABLED}=true to enable "
                             "this feature.\n")


def _analyze(engine: Engine, stmt: A.SelectStatement, src: Source) -> None:
    """The query's analysis alone (its sources, columns and clause rules; not logical planning's typing),
    for its errors."""
    from ksqlpy.analysis.query import check_analysis

    check_analysis(stmt.query, engine.catalog, engine.session_state(), pull=src.kind == "TABLE")


def _stream_pull_off(engine: Engine) -> bool:
    """``ksql.query.pull.stream.enabled`` with the request's overrides (KsqlEngine.createStreamPullQuery reads
    the session config with them)."""
    return str(engine.prop(STREAM_PULL_ENABLED, "true")).strip().lower() == "false"


def _stream_pull_disabled() -> KsqlStatementError:
    return KsqlStatementError("Pull queries on streams are disabled. To create a push query on the stream, add "
                              "EMIT CHANGES to the end. To enable pull queries on streams, set the "
                              f"{STREAM_PULL_ENABLED} config to 'true'.")


class PullExecutionError(KsqlStatementError):
    """A table's pull query that planned but failed when its physical plan read the store (ksqlDB: an
    operator of PullPhysicalPlan, run by HARouting once the response has begun). ``data``: the result without
    rows - its columns - so that a server can write the header the failure follows (server/queries.py)."""

    def __init__(self, message: str, data: dict[str, Any]) -> None:
        super().__init__(message)
        self.data = data


# ---------------------------------------------------------------------------------------------- streams
def _pull_stream(engine: Engine, stmt: A.SelectStatement) -> dict[str, Any]:
    from ksqlpy.engine.queries import build_transient

    limit = stmt.query.limit
    if limit == 0:
        stmt = copy.copy(stmt)
        stmt.query = copy.copy(stmt.query)
        stmt.query.limit = None
    tq = build_transient(engine, stmt, {"auto.offset.reset": "earliest"})
    try:
        if limit != 0:
            ends = {(t.topic, t.partition): engine.log.end_offset(t.topic, t.partition) for t in tq.tasks}
            while any(t.position < ends[(t.topic, t.partition)] for t in tq.tasks) and not tq.done:
                if not tq.poll():
                    break
        rows: list[tuple] = []
        while not tq.rows.empty():
            r = tq.rows.get_nowait()
            if r is None:
                break
            rows.append(r)
        if limit is not None:
            rows = rows[:limit]
        # stream results mark no key columns; ``final``: the message a stream's pull query ends with
        hit = limit is not None and len(rows) >= limit
        return {"columns": tq.columns, "rows": rows, "keys": [], "final": "Limit Reached" if hit else "Query Completed"}
    finally:
        tq.close()


# ---------------------------------------------------------------------------------------------- tables
def _pull_table(engine: Engine, stmt: A.SelectStatement, src: Source) -> dict[str, Any]:
    from ksqlpy.engine.pull_cache import remember

    generation = engine.generation  # read first: a statement changing the catalog meanwhile voids the entry
    if pull_admission.waiting():
        _analyze(engine, stmt, src)
    # the host's limits: after the analysis, before logical planning (typing WHERE and the select items), the
    # plan's access and the store
    pull_admission.admit()
    q, plan = _table_plan(engine, stmt, src)
    mat = queryable(engine, src)
    try:
        scan = decide_access(plan, q.where, engine.effective_properties(), engine.config)
    except PullPlanError as e:
        e.set_message(f"{e.message}\nStatement: {stmt.text}")
        raise
    if scan.access is PullAccess.TABLE_SCAN and src.windowed is not None and src.windowed.type == "SESSION":
        # a session store is read key by key: ksqlDB's KsMaterializedSessionTable answers a scan (no WHERE, a
        # WHERE on value columns or on window bounds only, a key range, a disjunct without the key) with
        # "Table scan unsupported on session tables" (from memory) when its operator opens - at execution,
        # after every planning check, table scans enabled. Key lookups, with or without WINDOWSTART/WINDOWEND
        # bounds, are served.
        raise PullExecutionError("Table scan unsupported on session tables", result_of(plan, src, []))
    try:
        token = consistency_token(engine, src, scan) if consistency.enabled(engine) else None
    except consistency.NotUpToBound as e:
        # the store's read fails (KsMaterializedTableIQv2's NOT_UP_TO_BOUND) when the physical plan runs - for
        # HARouting a failure of the host, as any other error of the run (from memory of HARouting)
        raise PullExecutionError(e.message, result_of(plan, src, [])) from e
    candidates: Any = mat.scan() if scan.access is PullAccess.TABLE_SCAN else fetch(mat, scan.lookup, src)
    candidates = stored_view(engine, src, candidates)
    rows = evaluate_rows(engine, compile_rows(plan, where_of(plan)), candidates, q.limit)
    remember(engine, stmt, src, plan, generation)
    result = result_of(plan, src, rows)
    if token is not None:
        result["consistencyToken"] = token
    return result


def consistency_token(engine: Engine, src: Source, scan: Any) -> str:
    """The token a pull query on ``src`` answers with (``engine/consistency.py``), after refusing a read of
    store partitions behind the vector the request brought: a key lookup reads the key's partition, a scan
    (or a key whose partition cannot be computed) every partition."""
    from ksqlpy.engine.materialized import materializing_query
    from ksqlpy.engine.pull_partitions import current as current_restriction
    from ksqlpy.engine.pull_partitions import key_partition

    bound = consistency.requested_vector()
    query = materializing_query(engine, src)
    mode = current_restriction()
    if query is None or mode is not None and mode[1] is not None:
        return bound.serialize()  # a cluster's probe reads nothing (pull_partitions.py): no store to bound
    n = consistency.store_partition_count(query)
    partitions: set[int] = set()
    if scan.access is PullAccess.TABLE_SCAN:
        partitions = set(range(n))
    else:
        for key, _, _ in scan.lookup:
            p = key_partition(query.materialization, key, n)
            partitions |= set(range(n)) if p is None else {p}
    if mode is not None:  # a cluster's host reads the partitions routed to it alone
        partitions &= set(mode[0] or ())
    positions = consistency.store_positions(engine, query, partitions, committed=getattr(_unlocked, "on", False))
    consistency.check_bound(positions, bound)
    for pos in positions.values():
        bound.merge(pos)
    return bound.serialize()


def stored_view(engine: Engine, src: Source, candidates: Any) -> Any:
    """The rows as ksqlDB's store gives them back: it keeps values in the table's format, so a protobuf
    table reads NULL scalars back as proto3 defaults (0, '', false). Other formats: unchanged."""
    if src.value_format not in ("PROTOBUF", "PROTOBUF_NOSR"):
        return candidates
    serde = engine.value_serde(src)
    lo = len(src.key_columns)
    hi = lo + len(serde.columns)
    out = []
    for row, ts in candidates:
        values = serde.deserialize(serde.serialize(tuple(row[lo:hi])))
        out.append((tuple(row[:lo]) + tuple(values or ()) + tuple(row[hi:]), ts))
    return out


def _table_plan(engine: Engine, stmt: A.SelectStatement, src: Source) -> tuple[A.Query, Sink]:
    from ksqlpy.analysis.query import analyze_query

    q = copy.copy(stmt.query)
    q.select = _expand_star(q.select, src)
    if q.where is not None:  # WINDOWSTART/END over a non-windowed table: analysis's unknown column
        q.where = iso_time_literals(q.where)
    plan = analyze_query(q, engine.catalog, engine.session_state(), sink_name=None, persistent=False, sql=stmt.text,
                         pull=True)
    return q, plan


def result_of(plan: Any, src: Source, rows: list[tuple]) -> dict[str, Any]:
    """A table pull query's answer (see ``pull_result``)."""
    return {"columns": [(c.name, c.type) for c in plan.project.value], "rows": rows, "keys": _key_names(plan, src)}


def queryable(engine: Engine, src: Source) -> Any:
    """The table's materialization - its committed view when this thread runs without the engine lock -
    or ksqlDB's error for a table no query materializes."""
    from ksqlpy.engine.materialized import materialization_for

    mat = materialization_for(engine, src)
    if mat is not None and getattr(_unlocked, "on", False):
        mat = mat.committed()
    if mat is None:
        raise KsqlStatementError(f"The `{src.name}` table isn't queryable. To derive a queryable table, you can do "
                                 f"'CREATE TABLE QUERYABLE_{src.name} AS SELECT * FROM {src.name}'. See "
                                 "https://cnfl.io/queries for more info.")
    return mat


def fetch(mat: Any, keys: list[tuple[tuple, int | None, int | None]], src: Source) -> list[tuple[tuple, int]]:
    """The rows of ``keys`` (each with its window-start range), each row once, in lookup order."""
    seen: set[str] = set()
    found = []
    n_keys, windowed = len(src.key_columns), src.windowed is not None
    for key, lo, hi in keys:
        for row, ts in mat.lookup(key, lo, hi):
            ident = repr(row[:n_keys] + ((row[-2], row[-1]) if windowed else ()))
            if ident not in seen:
                seen.add(ident)
                found.append((row, ts))
    return found


def compile_rows(plan: Sink, where: Expr | None) -> Any:
    """The query's WHERE (None: none) and projection compiled over the table's materialized rows."""
    flat = plan.find(FlatMap)
    return build_stateless(StageSpec(
        input_schema=plan.bottom.schema, where=where, rekey_exprs=None,
        projection_schema=plan.bottom.schema, table_functions=flat.functions if flat is not None else [],
        outputs=[plan.project.value], functions=plan.functions))


def where_of(plan: Sink) -> Expr | None:
    """The query's WHERE, bound."""
    f = plan.find(Filter)
    return f.predicate if f is not None else None


def evaluate_rows(engine: Engine, pipeline: Any, candidates: Any, limit: int | None) -> list[tuple]:
    """Run a compiled WHERE + projection (``compile_rows``) over materialized rows."""
    out: list[tuple] = []

    def err(i: int, what: str, e: BaseException) -> None:
        engine.plog.expression_error("pull", what, e)

    chunk: list[tuple] = []
    tss: list[int] = []

    def flush() -> None:
        n = len(chunk)
        pipeline(chunk, tss, [0] * n, [0] * n, [None] * n, [False] * n, out, err)
        chunk.clear()
        tss.clear()

    for row, ts in candidates:
        chunk.append(row)
        tss.append(ts)
        if len(chunk) >= 1000:
            flush()
            if limit is not None and len(out) >= limit:
                break
    if chunk:
        flush()
    rows = [r[0] for r in out]
    return rows[:limit] if limit is not None else rows


def _expand_star(select: list[A.SelectItem], src: Source) -> list[A.SelectItem]:
    """``*`` on a table: key columns, WINDOWSTART/WINDOWEND (windowed), value columns, header columns."""
    out = []
    for item in select:
        e = item.expr
        if is_star(e):
            names = [c.name for c in src.key_columns]
            if src.windowed is not None:
                names += ["WINDOWSTART", "WINDOWEND"]
            names += [c.name for c in src.value_columns + src.header_columns]  # headers after the values
            out.extend(A.SelectItem(exp.column(n, quoted=True)) for n in names)
        else:
            out.append(item)
    return out


def _key_names(plan: Sink, src: Source) -> list[str]:
    """Select items that are plain references to key columns (or window bounds of a windowed source)."""
    keys = {c.name for c in src.key_columns}
    if src.windowed is not None:
        keys |= {"WINDOWSTART", "WINDOWEND"}
    return [c.name for c in plan.project.value if isinstance(c.expr, ColumnRef) and c.expr.name in keys]
