"""Fused code generation for the stateless part of a query.

The chain Scan -> Filter -> Rekey -> FlatMap -> Project becomes ONE generated Python function that
loops over a batch of deserialized records with every column in a local variable. It is built once per
query. Evaluation errors take a slow path for that record only: each expression is evaluated on its own,
a failing one yields NULL and a processing-log entry (ksqlDB's behaviour), and the record goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ksqlpy.analysis.scope import scope_for
from ksqlpy.expr.compiler import Binding, ExprCompiler, Scope
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.grammar.ast import FunctionCall
from ksqlpy.plan.logical import OutputColumn, RowSchema

ErrorSink = Callable[[int, str, BaseException], None]


@dataclass
class StageSpec:
    """What the fused function computes, independent of where the rows come from."""

    input_schema: RowSchema
    alias: str | None
    where: exp.Expression | None
    rekey_exprs: list[exp.Expression] | None  # PARTITION BY
    projection_schema: RowSchema  # schema the projection sees (after rekey)
    table_functions: list[FunctionCall]
    outputs: list[list[OutputColumn]]  # groups of output columns: e.g. [key columns, value columns]
    custom_types: Mapping[str, Any]
    functions: FunctionRegistry  # the engine's (the plan's): calls resolve against it
    tombstone_on_filter: bool = False  # tables: a row failing WHERE becomes a delete of its key
    with_headers: bool = False  # output rows carry the input record's headers (forwarded to the sink)
    pass_tombstones: bool = False  # null-value records go through as (key, None) (tables always; streams
    # without WHERE, as ksqlDB forwards a null row through a projection)
    key_group: int = 0  # which output group is the key (for tombstones)


class _Emitter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def line(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


def build_stateless(spec: StageSpec) -> Callable[..., None]:
    """Compile ``spec`` into ``fn(rows, tss, parts, offs, hdrs, tombs, out, err)``.

    ``rows`` are tuples of the input schema's key+value(+header,+window) columns in schema order
    (see ``input_layout``); system columns come from the parallel lists. For each output row the
    function appends ``(group_0_tuple, group_1_tuple, ..., timestamp)`` to ``out``; ``err(i, what, exc)``
    receives evaluation errors of record ``i``.
    """
    consts: dict[str, Any] = {}
    fast = _body(spec, consts, safe=False)
    slow = _body(spec, consts, safe=True)
    src = ["def _process(rows, tss, parts, offs, hdrs, tombs, out, err):",
           "    _app = out.append",
           "    for _i in range(len(rows)):",
           "        try:"]
    src += ["            " + line for line in fast]
    src += ["        except Exception:",
            "            _slow(_i, rows, tss, parts, offs, hdrs, tombs, _app, err)",
            ""]
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
            exec(compile(code, "<ksqlpy-pipeline>", "exec"), ns)  # noqa: S102 - generated from a typed plan
        except SyntaxError as e:  # pragma: no cover - a bug in codegen
            raise RuntimeError(f"generated pipeline does not compile: {e}\n{text}") from e

    def _slow(*args: Any) -> None:
        # the per-column error path is compiled on its first use: compile() is most of the cost of a
        # pull query (a pipeline per lookup) and most pipelines never see a failing expression
        run(slow_text)
        ns["_slow"](*args)

    run(fast_text)
    ns["_slow"] = _slow
    fn = ns["_process"]
    fn.source = text  # type: ignore[attr-defined]
    return fn


def input_layout(schema: RowSchema) -> list[str]:
    """Names of the columns a row tuple carries, in order (everything but system columns)."""
    return [c.name for c in schema.columns if c.role != "system"]


def _body(spec: StageSpec, consts: dict[str, Any], safe: bool) -> list[str]:
    em = _Emitter()
    schema = spec.input_schema
    scope = scope_for(schema, spec.alias, var="c")
    carried = [f"c{i}" for i, c in enumerate(schema.columns) if c.role != "system"]
    ind = 0
    if carried:
        em.line(ind, f"{', '.join(carried)}{',' if len(carried) == 1 else ''} = rows[_i]")
    for i, c in enumerate(schema.columns):
        if c.role == "system":
            src = {"ROWTIME": "tss[_i]", "ROWPARTITION": "parts[_i]", "ROWOFFSET": "offs[_i]"}[c.name]
            em.line(ind, f"c{i} = {src}")
    em.line(ind, "_ts = tss[_i]")

    skip = "continue" if not safe else "return"

    def compiler(sc: Scope) -> ExprCompiler:
        comp = ExprCompiler(sc, consts, registry=spec.functions, custom_types=spec.custom_types)
        if safe:
            comp.safe_calls = lambda name, code: f"_s({name!r}, lambda: {code})"
        return comp

    def wrap(code: str, what: str) -> str:
        return f"_s({what!r}, lambda: {code})" if safe else code

    tail = ", _ts, hdrs[_i]" if spec.with_headers else ", _ts"

    key_names = {c.name for c in schema.columns if c.role == "key"}

    def rekey(indent: int, tombstone: bool = False) -> Scope:
        """Emit the PARTITION BY key computations; the scope the projection then sees. For a null row
        only expressions over key columns can be computed; the others are NULL (as in ksqlDB)."""
        if spec.rekey_exprs is None:
            return scope
        comp = compiler(scope)
        pvars = []
        for j, e in enumerate(spec.rekey_exprs):
            if tombstone and any(c.name not in key_names for c in e.find_all(exp.Column)):
                em.line(indent, f"p{j} = None")
            else:
                em.line(indent, f"p{j} = {wrap(comp.compile(e).code, 'PARTITION BY')}")
            pvars.append(f"p{j}")
        new_scope = Scope()
        nkeys = len(spec.rekey_exprs)
        for k, c in enumerate(spec.projection_schema.columns):
            if k >= nkeys and c.name in new_scope.columns:
                continue  # PARTITION BY ROWTIME: the key (NULL for a null row) is what the name means now
            b = Binding(pvars[k], c.type) if (k < nkeys and c.role == "key") else scope.columns[c.name]
            new_scope.columns[c.name] = b
            if spec.alias:
                new_scope.qualified[f"{spec.alias}.{c.name}"] = b
        return new_scope

    def key_tuple(key_scope: Scope, indent: int) -> str:
        comp = compiler(key_scope)
        names = []
        for k, col in enumerate(spec.outputs[spec.key_group]):
            em.line(indent, f"k{k} = {comp.compile(col.expr).code}")
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
        ktuple = key_tuple(scope, ind)
        cond = "tombs[_i]"
        if spec.where is not None:
            pred = compiler(scope).compile_predicate(spec.where).code
            cond = f"tombs[_i] or {wrap(pred, 'WHERE')} is not True"
        em.line(ind, f"if {cond}:")
        em.line(ind + 1, f"_app(({ktuple}, None{tail}))")
        em.line(ind + 1, skip)
    if spec.where is not None and not spec.tombstone_on_filter:
        pred = compiler(scope).compile_predicate(spec.where).code
        em.line(ind, f"if {wrap(pred, 'WHERE')} is not True:")
        em.line(ind + 1, skip)
    proj_scope = rekey(ind)

    comp = compiler(proj_scope)
    if spec.table_functions:
        comp.table_function_vars = {}
        lists = []
        for j, f in enumerate(spec.table_functions):
            resolved = comp.resolve_table_function(f)
            impl = comp.const(resolved.impl, "tf")
            args = ", ".join(comp.compile(a).code for a in f.call_args)
            em.line(ind, f"_u{j} = {wrap(f'{impl}({args})', f.fname)} or ()")
            lists.append(f"_u{j}")
            comp.table_function_vars[id(f)] = Binding(f"_e{j}", resolved.return_type)
        em.line(ind, f"for _j in range(max({', '.join('len(' + x + ')' for x in lists)}, 0)):")
        ind += 1
        for j, name in enumerate(lists):
            em.line(ind, f"_e{j} = {name}[_j] if _j < len({name}) else None")
    groups = []
    for g, cols in enumerate(spec.outputs):
        names = []
        for k, col in enumerate(cols):
            code = comp.compile(col.expr).code
            var = f"o{g}_{k}"
            em.line(ind, f"{var} = {wrap(code, col.name)}")
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
