"""Fused code generation for the stateless part of a query.

The chain Scan -> Filter -> Rekey -> FlatMap -> Project becomes ONE generated Python function that
loops over a batch of deserialized records with every column in a local variable. It is built once per
query. Evaluation errors take a slow path for that record only: each expression is evaluated on its own,
a failing one yields NULL and a processing-log entry (ksqlDB's behaviour), and the record goes on.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ksqlpy.codegen_cache import compiled
from ksqlpy.expr import bound as B
from ksqlpy.expr.codegen import Codegen
from ksqlpy.expr.failures import GroupBySite, PredicateSite, ProjectionSite
from ksqlpy.expr.printer import format_bound
from ksqlpy.expr.shared import shared_subexpressions
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.batch_calls import RETRY_RECORD, BatchCalls, PartialBatch, gather, vcall
from ksqlpy.plan.column_rows import ColumnRows, column_of, rows_of
from ksqlpy.plan.logical import ColumnRole, OutputColumn, RowSchema
from ksqlpy.serde.json_fast import CHUNK  # records per C-level loop between GIL hand-overs

ErrorSink = Callable[[int, object, BaseException], None]


@dataclass
class StageSpec:
    """What the fused function computes, independent of where the rows come from. Expressions are bound:
    ``where`` and ``rekey_exprs`` over ``input_schema``, the outputs and table functions over
    ``projection_schema``."""

    input_schema: RowSchema
    where: B.Expr | None
    rekey_exprs: list[B.Expr] | None  # PARTITION BY
    projection_schema: RowSchema  # schema the projection sees (after rekey)
    table_functions: list[B.Call]
    outputs: list[list[OutputColumn]]  # groups of output columns: e.g. [key columns, value columns]
    functions: FunctionRegistry  # the engine's (the plan's): calls resolve against it
    tombstone_on_filter: bool = False  # tables: a row failing WHERE becomes a delete of its key
    with_headers: bool = False  # output rows carry the input record's headers (forwarded to the sink)
    pass_tombstones: bool = False  # null-value records go through as (key, None) (tables always; streams
    # without WHERE, as ksqlDB forwards a null row through a projection)
    key_group: int = 0  # which output group is the key (for tombstones)
    grouping: bool = False  # the key group is GROUP BY expressions (their failures are logged as such)
    columnar: bool = True  # a stage that only reads columns and vectorized results runs without a loop
    # (``_columnar``; False: always the per-record loop - for measuring against it)
    shared: bool = True  # a repeated pure subexpression is computed once per record (``ksqlpy.expr.shared``;
    # False: at every occurrence - for measuring and testing against it)

    def site(self, group: int, index: int, column: OutputColumn) -> GroupBySite | ProjectionSite:
        """What the processing log names when output ``column`` (``index`` in its group) fails."""
        if self.grouping and group == self.key_group:
            return GroupBySite(index)
        return ProjectionSite(format_bound(column.expr), column.name, index)


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


class Pipeline:
    """The generated batch function (``__call__``) and its Python source (for tests and debugging)."""

    __slots__ = ("column_loop", "columnar", "fn", "source")

    def __init__(self, fn: Callable[..., None], source: str, columnar: bool = False,
                 column_loop: bool = False) -> None:
        self.fn = fn
        self.source = source
        # the stage reads whole columns (no per-record loop): a batch held as columns (``ColumnRows``)
        # is read without building its row tuples
        self.columnar = columnar
        # the stage loops, over only the columns it reads when the batch is held as columns
        # (``_column_loop``)
        self.column_loop = column_loop

    def __call__(self, rows: list, tss: list, parts: list, offs: list, hdrs: list, tombs: list, out: list,
                 err: ErrorSink) -> None:
        self.fn(rows, tss, parts, offs, hdrs, tombs, out, err)


def build_stateless(spec: StageSpec) -> Pipeline:
    """Compile ``spec`` into ``fn(rows, tss, parts, offs, hdrs, tombs, out, err)``.

    ``rows`` are tuples of the input schema's key+value(+header,+window) columns in schema order
    (see ``input_layout``); system columns come from the parallel lists. For each output row the
    function appends ``(group_0_tuple, group_1_tuple, ..., timestamp)`` to ``out``; ``err(i, what, exc)``
    receives evaluation errors of record ``i``.
    """
    consts: dict[str, Any] = {"_itemgetter": operator.itemgetter, "_vcall": vcall, "_RETRY": RETRY_RECORD,
                              "_PartialBatch": PartialBatch, "_vgather": gather, "_repeat": itertools.repeat,
                              "_vcolumn": column_of, "_rows_of": rows_of, "_ColumnRows": ColumnRows,
                              "_islice": itertools.islice, "_CHUNK": CHUNK}
    batch = BatchCalls(consts)
    fast = _body(spec, consts, safe=False, batch=batch)
    slow = _body(spec, consts, safe=True)
    src = ["def _process(rows, tss, parts, offs, hdrs, tombs, out, err):",
           "    _app = out.append"]
    src += ["    " + line for line in batch.prelude(_unpack(spec.input_schema), _row_positions(spec.input_schema))]
    unchecked = [batch.unchecked(line) for line in fast]
    columnar = _columnar(spec, unchecked) if spec.columnar else None
    if columnar is not None:  # no loop when every record is computed (no retry) and none is a tombstone
        guard = "_vok and True not in tombs" if batch.calls else "True not in tombs"
        by_column = _columnar(spec, unchecked, by_column=True)
        src += [f"    if {guard}:", "        if rows.__class__ is _ColumnRows:",
                "            _c, _g = rows.column, rows.group"]
        src += ["            " + line for line in by_column or ()] + ["        else:"]
        src += ["            " + line for line in columnar]
        src += ["        return"]
    by_columns = _column_loop(spec, fast, unchecked if batch.calls else None) if spec.columnar else None
    if by_columns is not None:
        src += ["    if rows.__class__ is _ColumnRows:", "        _c = rows.column"]
        src += ["    " + line for line in by_columns] + ["        return"]
    src += ["    rows = _rows_of(rows)"]  # the loop indexes row tuples
    if batch.calls:  # two loops: reading the batch results as they are, or checking each for a retry
        src += ["    if _vok:"] + ["    " + line for line in _loop(unchecked)]
        src += ["    else:"] + ["    " + line for line in _loop(fast)]
    else:
        src += _loop(fast)
    src.append("")
    slow_src = ["def _slow(_i, rows, tss, parts, offs, hdrs, tombs, _app, err):",
                "    def _s(_what, _f):",
                "        try:",
                "            return _f()",
                "        except Exception as _e:",
                "            err(_i, _what, _e)",
                "            return None"]
    slow_src += ["    " + line for line in slow]
    fast_text, slow_text = "\n".join(src), "\n".join(slow_src)
    text = fast_text + "\n" + slow_text
    ns: dict[str, Any] = dict(consts)

    def run(code: str) -> None:
        try:
            exec(compiled(code, "<ksqlpy-pipeline>"), ns)  # noqa: S102 - generated from a typed plan
        except SyntaxError as e:  # pragma: no cover - a bug in codegen
            raise RuntimeError(f"generated pipeline does not compile: {e}\n{text}") from e

    def _slow(*args: Any) -> None:
        # the per-column error path is compiled on its first use: compile() is most of the cost of a
        # pull query (a pipeline per lookup) and most pipelines never see a failing expression
        run(slow_text)
        ns["_slow"](*args)

    run(fast_text)
    ns["_slow"] = _slow
    return Pipeline(ns["_process"], text, columnar is not None, by_columns is not None)


def _loop(body: list[str]) -> list[str]:
    """The per-record loop of ``_process`` around the fast path's ``body``."""
    return (["    for _i in range(len(rows)):",
             "        try:"]
            + ["            " + line for line in body]
            + ["        except Exception:",
               "            _slow(_i, rows, tss, parts, offs, hdrs, tombs, _app, err)"])


_COLUMN_NAME = re.compile(r"\bc\d+\b")


def _column_loop(spec: StageSpec, fast: list[str], unchecked: list[str] | None) -> list[str] | None:
    """The per-record loop over a batch held as columns (``ColumnRows``, ``_c(p)`` its column ``p``),
    reading only the columns the body uses - ``zip`` over them instead of a row tuple of every column
    built and unpacked per record (a JSON batch decoded into structs: ~95 ns a record for 7 columns of
    which q17's grouping reads 3, against ~10 ns a column read). The body is the row loop's without its
    unpacking line, so it computes the same; a failing record's slow path reads ``rows[_i]`` (the
    row tuples, built then). None when the body reads every column (nothing to gain).

    ``unchecked``: the body reading vectorized results unchecked, when the stage has vectorized calls
    (then two loops, as in the row loop: ``_vok`` decides)."""
    schema = spec.input_schema
    carried = [f"c{i}" for i, c in enumerate(schema.columns) if c.role is not ColumnRole.SYSTEM]
    if not carried:
        return None
    unpack = _unpack(schema)[0]
    bodies = [[ln for ln in b if ln != unpack] for b in ([fast] if unchecked is None else [unchecked, fast])]
    used = set()
    for b in bodies:
        for ln in b:
            used.update(_COLUMN_NAME.findall(ln))
    cols = [c for c in carried if c in used]
    if len(cols) == len(carried):
        return None
    positions = _row_positions(schema)
    if not cols:
        head = "for _i in range(len(rows)):"
    elif len(cols) == 1:
        head = f"for _i, {cols[0]} in enumerate(_c({positions[cols[0]]})):"
    else:
        head = (f"for _i, ({', '.join(cols)}) in enumerate(zip("
                f"{', '.join(f'_c({positions[c]})' for c in cols)})):")

    def loop(body: list[str], ind: str) -> list[str]:
        return ([f"{ind}{head}", f"{ind}    try:"] + [f"{ind}        {ln}" for ln in body]
                + [f"{ind}    except Exception:",
                   f"{ind}        _slow(_i, rows, tss, parts, offs, hdrs, tombs, _app, err)"])

    if unchecked is None:
        return loop(bodies[0], "    ")
    return ["    if _vok:", *loop(bodies[0], "        "), "    else:", *loop(bodies[1], "        ")]


_OUTPUT_LINE = re.compile(r"^o(\d+)_(\d+) = (c\d+|_vr\d+\[_i\])$")
_KEY_LINE = re.compile(r"^k\d+ = (?:c\d+|_vr\d+\[_i\])$")  # a table's key for its tombstones
_APPEND_LINE = re.compile(r"^_app\(\((.*), _ts(, hdrs\[_i\])?\)\)$")


def _columnar(spec: StageSpec, body: list[str], by_column: bool = False) -> list[str] | None:
    """The batch's output built by C-level iteration over columns, for a stage whose every output is a
    column or a vectorized function's result (no WHERE, PARTITION BY or table function); None otherwise.

    ``body``: the fast loop body reading batch results unchecked. Such a body cannot raise for a record
    (it only reads values), so the loop's per-record work - unpacking the row, building each output tuple
    - is ``map(itemgetter)`` and ``zip`` over the batch: a row tuple per output group (several columns of
    the row in one ``itemgetter``), results of vectorized calls zipped in as lists. The loop still runs a
    batch with a tombstone or a record a vectorized call did not compute (the generated guard).

    ``by_column``: the same for a batch held as columns (``ColumnRows``): ``_c(p)`` is column ``p``."""
    if spec.where is not None or spec.rekey_exprs is not None or spec.table_functions:
        return None
    schema = spec.input_schema
    positions = _row_positions(schema)
    system = {f"c{i}": _SYSTEM_SOURCES[c.name].removesuffix("[_i]") for i, c in enumerate(schema.columns)
              if c.role is ColumnRole.SYSTEM}
    unpack = set(_unpack(schema)) | {"_ts = tss[_i]"}
    outputs: dict[tuple[int, int], str] = {}
    append = None
    depth = 0  # inside the tombstone branch (``if tombs[_i]:``), which the guard excludes
    for line in body:
        if line.startswith("if tombs[_i]"):
            depth = 1
            continue
        if depth:
            if line.startswith("    "):
                continue
            depth = 0
        if line in unpack or _KEY_LINE.match(line):
            continue
        if m := _OUTPUT_LINE.match(line):
            outputs[int(m.group(1)), int(m.group(2))] = m.group(3)
        elif (m := _APPEND_LINE.match(line)) and append is None:
            append = m
        else:
            return None  # anything else is computed per record
    if append is None or list(outputs) != [(g, k) for g, cols in enumerate(spec.outputs) for k in range(len(cols))]:
        return None
    groups = []
    for g, cols in enumerate(spec.outputs):
        codes = [outputs[g, k] for k in range(len(cols))]
        if not codes:
            groups.append("_repeat((), len(rows))")
        elif by_column and all(c in positions for c in codes):  # the group's tuples from the batch
            groups.append(f"_g(({''.join(f'{positions[c]}, ' for c in codes)}))")
        elif by_column:
            parts = [f"_c({positions[c]})" if c in positions else system.get(c) or c[:-4] for c in codes]
            groups.append(f"zip({', '.join(parts)})")
        elif all(c in positions for c in codes):  # one itemgetter makes the group's tuple
            idx = ", ".join(str(positions[c]) for c in codes)
            groups.append(f"map(_itemgetter({idx}), rows)" if len(codes) > 1 else f"zip(map(_itemgetter({idx}), rows))")
        else:
            parts = [f"map(_itemgetter({positions[c]}), rows)" if c in positions else system.get(c) or c[:-4]
                     for c in codes]
            groups.append(f"zip({', '.join(parts)})")
    tail = ", tss, hdrs" if append.group(2) else ", tss"
    # in chunks of ``CHUNK`` records: one ``extend`` over a whole batch is a C loop of 10,000 tuples (1-2 ms)
    # holding the GIL throughout, which a pull query's thread waits out; between chunks it can get in
    return [f"_it = zip({', '.join(groups)}{tail})",
            "for _s in range(0, len(tss), _CHUNK):",
            "    out.extend(_islice(_it, _CHUNK))"]


def input_layout(schema: RowSchema) -> list[str]:
    """Names of the columns a row tuple carries, in order (everything but system columns)."""
    return [c.name for c in schema.columns if c.role is not ColumnRole.SYSTEM]


_SYSTEM_SOURCES = {"ROWTIME": "tss[_i]", "ROWPARTITION": "parts[_i]", "ROWOFFSET": "offs[_i]"}


def _unpack(schema: RowSchema) -> list[str]:
    """The lines loading record ``_i``'s columns into ``c<i>`` locals (row tuple, then system columns)."""
    carried = [f"c{i}" for i, c in enumerate(schema.columns) if c.role is not ColumnRole.SYSTEM]
    lines = [f"{', '.join(carried)}{',' if len(carried) == 1 else ''} = rows[_i]"] if carried else []
    for i, c in enumerate(schema.columns):
        if c.role is ColumnRole.SYSTEM:
            lines.append(f"c{i} = {_SYSTEM_SOURCES[c.name]}")
    return lines


def _row_positions(schema: RowSchema) -> dict[str, int]:
    """``c<i>`` -> its position in the row tuples (the columns that are not system columns)."""
    carried = [f"c{i}" for i, c in enumerate(schema.columns) if c.role is not ColumnRole.SYSTEM]
    return {name: k for k, name in enumerate(carried)}


def _body(spec: StageSpec, consts: dict[str, Any], safe: bool, batch: BatchCalls | None = None) -> list[str]:
    """The loop body for one record: the fast path, or (``safe``) the slow path that evaluates each
    expression on its own and makes a failing one NULL (``_s``). ``batch``: collects vectorized calls."""
    em = _Emitter()
    schema = spec.input_schema
    columns = [f"c{i}" for i in range(len(schema.columns))]
    ind = 0
    for line in _unpack(schema):
        em.line(ind, line)
    em.line(ind, "_ts = tss[_i]")

    skip = "continue" if not safe else "return"

    def codegen(cols: list[str], elements: dict[B.Expr, str] | None = None,
                shared: dict[B.Expr, str] | None = None) -> Codegen:
        return Codegen(cols, consts, spec.functions, safe=safe, table_elements=elements, batch=batch,
                       shared=shared)

    # the fast path computes repeated subexpressions once per record (``ksqlpy.expr.shared``): bound to
    # ``_x<n>`` before the first statement using them - the WHERE, PARTITION BY and projection over the
    # input row, or (re-keyed) the projection over the re-keyed row. Not around tombstones or table
    # functions, whose statements run in branches and loops of their own.
    sharing = spec.shared and not safe and not spec.tombstone_on_filter and not spec.table_functions
    pre = [spec.where, *(spec.rekey_exprs or [])]
    post = [c.expr for cols in spec.outputs for c in cols]
    scopes = [pre, post] if spec.rekey_exprs is not None else [pre + post]
    # statement -> what to bind before it; statements are numbered WHERE, PARTITION BY, outputs
    binds: list[list[B.Expr]] = []
    for scope in scopes:
        binds += shared_subexpressions(scope, spec.functions) if sharing else [[] for _ in scope]
    defined: dict[B.Expr, str] = {}  # (the re-keyed scope starts afresh: its columns differ)

    def bind(indent: int, cols: list[str], stmt: int) -> dict[B.Expr, str] | None:
        """Emit the locals bound before statement ``stmt``; what its code may read (None: not sharing)."""
        if not sharing:
            return None
        for e in binds[stmt]:
            if e not in defined:
                var = f"_x{len(defined)}"
                em.line(indent, f"{var} = {codegen(cols, shared=defined).text(e)}")
                defined[e] = var
        return defined

    def wrap(code: str, what: object) -> str:
        """``code`` on the slow path: a failure is logged naming ``what`` (``ksqlpy.expr.failures``)."""
        if not safe:
            return code
        name = f"_w{len(consts)}"
        consts[name] = what
        return f"_s({name}, lambda: {code})"

    tail = ", _ts, hdrs[_i]" if spec.with_headers else ", _ts"

    # what a deleted row still has: its key, and for a windowed source the window bounds the key carries
    key_columns = {i for i, c in enumerate(schema.columns) if c.role in (ColumnRole.KEY, ColumnRole.WINDOW)}

    def rekey(indent: int, tombstone: bool = False) -> list[str]:
        """Emit the PARTITION BY key computations; the columns the projection then sees. For a null row
        only expressions over key columns can be computed; the others are NULL (as in ksqlDB)."""
        if spec.rekey_exprs is None:
            return columns
        pvars = []
        for j, e in enumerate(spec.rekey_exprs):
            if tombstone and not B.columns_used(e) <= key_columns:
                em.line(indent, f"p{j} = None")
            else:
                cg = codegen(columns, shared=None if tombstone else bind(indent, columns, 1 + j))
                em.line(indent, f"p{j} = {wrap(cg.text(e), 'PARTITION BY')}")
            pvars.append(f"p{j}")
        by_name = {c.name: columns[i] for i, c in reversed(list(enumerate(schema.columns)))}
        nkeys = len(spec.rekey_exprs)
        out = []
        for k, c in enumerate(spec.projection_schema.columns):
            out.append(pvars[k] if (k < nkeys and c.role is ColumnRole.KEY) else by_name[c.name])
        return out

    def key_tuple(cols: list[str], indent: int, deleted: bool = False) -> str:
        """The key group of a delete. ``deleted``: computed from a row that is gone (a table's delete, or a
        row failing its WHERE, which ksqlDB's filter turns into a delete before the projection): only
        expressions over key columns have a value, the others are NULL and never evaluated."""
        cg = codegen(cols)
        names = []
        for k, col in enumerate(spec.outputs[spec.key_group]):
            if deleted and not B.columns_used(col.expr) <= key_columns:
                em.line(indent, f"k{k} = None")
            else:
                em.line(indent, f"k{k} = {wrap(cg.text(col.expr), spec.site(spec.key_group, k, col))}")
            names.append(f"k{k}")
        return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"

    if spec.pass_tombstones and not spec.tombstone_on_filter:
        # a null row goes on as a null value under its (possibly re-computed) key
        em.line(ind, "if tombs[_i]:")
        ktuple = key_tuple(rekey(ind + 1, tombstone=True), ind + 1)
        em.line(ind + 1, f"_app(({ktuple}, None{tail}))")
        em.line(ind + 1, skip)
    if spec.tombstone_on_filter:
        # tables: deletes pass through, and a row failing WHERE deletes its key downstream
        cond = "tombs[_i]"
        if spec.where is not None:
            pred = codegen(columns).text(spec.where)
            cond = f"tombs[_i] or {wrap(pred, PredicateSite(format_bound(spec.where)))} is not True"
        em.line(ind, f"if {cond}:")
        ktuple = key_tuple(columns, ind + 1, deleted=True)
        em.line(ind + 1, f"_app(({ktuple}, None{tail}))")
        em.line(ind + 1, skip)
    if spec.where is not None and not spec.tombstone_on_filter:
        pred = codegen(columns, shared=bind(ind, columns, 0)).text(spec.where)
        em.line(ind, f"if {wrap(pred, PredicateSite(format_bound(spec.where)))} is not True:")
        em.line(ind + 1, skip)
    proj_cols = rekey(ind)
    if spec.rekey_exprs is not None:
        defined = {}

    elements: dict[B.Expr, str] = {}
    if spec.table_functions:
        cg = codegen(proj_cols)
        lists = []
        for j, f in enumerate(spec.table_functions):
            em.line(ind, f"_u{j} = {cg.table_call(f)} or ()")
            lists.append(f"_u{j}")
            elements[f] = f"_e{j}"
        em.line(ind, f"for _j in range(max({', '.join('len(' + x + ')' for x in lists)}, 0)):")
        ind += 1
        for j, name in enumerate(lists):
            em.line(ind, f"_e{j} = {name}[_j] if _j < len({name}) else None")
    groups = []
    stmt = itertools.count(len(pre))
    for g, cols in enumerate(spec.outputs):
        names = []
        for k, col in enumerate(cols):
            var = f"o{g}_{k}"
            cg = codegen(proj_cols, elements, bind(ind, proj_cols, next(stmt)))
            em.line(ind, f"{var} = {wrap(cg.text(col.expr), spec.site(g, k, col))}")
            names.append(var)
        groups.append("(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")")
    em.line(ind, f"_app(({', '.join(groups)}{tail}))")
    return _drop_unused_system_columns(em.lines)


_SYSTEM_LINE = re.compile(r"^(c\d+) = (?:tss|parts|offs)\[_i\]$")


def _drop_unused_system_columns(lines: list[str]) -> list[str]:
    """Remove the per-record loads of ROWTIME/ROWPARTITION/ROWOFFSET that no expression reads."""
    text = "\n".join(lines)
    out = []
    for line in lines:
        m = _SYSTEM_LINE.match(line)
        if m and len(re.findall(rf"\b{m.group(1)}\b", text)) == 1:
            continue
        out.append(line)
    return out
