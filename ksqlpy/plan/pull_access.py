"""How a pull query reads its table's state - key lookups or a scan: the decision, recorded on the plan's
Scan (``decide_access``), and the WHERE analysis it rests on.

The WHERE is put in disjunctive normal form. A disjunct answers with key lookups when every key column
has one ``=`` or ``IN`` bound to an expression without columns; WINDOWSTART/WINDOWEND bounds narrow the
windows fetched. Anything else needs a scan of the table, which ksqlDB gates behind
``ksql.query.pull.table.scan.enabled`` (a single range on a single STRING key is a range scan, gated by
``ksql.query.pull.range.scan.enabled`` instead). When scans are allowed a disjunct that cannot be looked
up simply falls back to one; when they are not, ksqlDB's error explains why. The full WHERE is always
evaluated on the rows fetched, so lookups only narrow what is read.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.catalog import Column
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.binder import bind
from ksqlpy.expr.constant_resolver import ResolveFailed, resolve_constant
from ksqlpy.expr.fold import constant_value
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext
from ksqlpy.expr.strict_coercion import CoercionFailed, coerce_strict, java_value_text
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.logical import PullAccess, Scan, Sink
from ksqlpy.properties import resolve

MAX_DISJUNCTS = 64
_COMPARE = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ, exp.NEQ: exp.NEQ}
WINDOW_BOUNDS = ("WINDOWSTART", "WINDOWEND")


class NeedsScan(Exception):
    """This WHERE cannot be answered by key lookups; the message is ksqlDB's, for when scans are off."""


class PullPlanError(KsqlStatementError):
    """An error found while planning a pull query (ksqlDB's QueryFilterNode: the WHERE's key analysis and
    resolveKey); the query endpoints name the statement after it (``Statement: ...``), as ksqlDB's
    EngineExecutor.executeTablePullQuery wraps every planning error in a KsqlStatementException (from memory)."""


class InvalidWhere(PullPlanError):
    """A WHERE refused because scans are off."""


@dataclass
class Lookup:
    """Keys to fetch, each with the window-start range to fetch for it."""

    keys: list[tuple[tuple, int | None, int | None]] = field(default_factory=list)


def decide_access(plan: Sink, where: exp.Expression | None, properties: Mapping[str, Any],
                  configured: Mapping[str, Any]) -> Scan:
    """Record on the table ``plan`` (a pull query) reads whether its WHERE (``where``, as written) is answered
    by key lookups (and which keys) or needs a scan; returns that Scan. ``properties``: those in force
    (``ksql.query.pull.table.scan.enabled``, ``ksql.query.pull.range.scan.enabled``); ``configured``: the
    server's (or embedded engine's) configuration alone. Scans refused by them are ksqlDB's errors."""
    scan = plan.bottom
    assert isinstance(scan, Scan), "pull queries read one table"
    functions = plan.functions
    src = scan.source
    size = src.windowed.size_ms if src.windowed is not None else None
    lookup = plan_where(where, src.key_columns, window_size=size, windowed=src.windowed is not None,
                        scan_enabled=table_scans_enabled(properties, configured),
                        range_enabled=_enabled(properties, "ksql.query.pull.range.scan.enabled"), functions=functions)
    scan.access = PullAccess.TABLE_SCAN if lookup is None else PullAccess.KEY_LOOKUP
    scan.lookup = None if lookup is None else lookup.keys
    return scan


def table_scans_enabled(properties: Mapping[str, Any], configured: Mapping[str, Any]) -> bool:
    """Whether a pull query may scan: ``ksql.query.pull.table.scan.enabled`` on in the configuration and in
    what the session and request override - a request (or SET) may turn scans off over a server's ``true``,
    never on over its ``false`` (reference: ksqldb-rest-cli-sql, pull-query properties: "a request may only
    disable it"; ksqlDB's PullQueryConfigPlannerOptions reads the server's switch as the gate)."""
    name = "ksql.query.pull.table.scan.enabled"
    return _enabled(configured, name) and _enabled(properties, name)


def _enabled(properties: Mapping[str, Any], name: str) -> bool:
    """A boolean property (default true), in either spelling."""
    return str(resolve(name, properties, default=True)).lower() != "false"


def plan_where(where: exp.Expression | None, key_columns: list[Column], *, window_size: int | None,
               windowed: bool, scan_enabled: bool, range_enabled: bool, functions: FunctionRegistry) -> Lookup | None:
    """A ``Lookup``, or None for a table scan (raising ksqlDB's error when scans are disabled). ``functions``:
    the engine's registry, for functions of constants in key comparisons."""
    try:
        return _plan(where, key_columns, window_size, windowed, range_enabled, functions)
    except NeedsScan as e:
        if scan_enabled:
            return None
        raise InvalidWhere(invalid_where(str(e), windowed)) from None
    except _RangeScan:
        return None


PULL_QUERY_SYNTAX_HELP = "See https://cnfl.io/queries for more info.\nAdd EMIT CHANGES if you intended to issue a push query."
_WINDOW_BOUND_OPERATORS = "[EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL]"


def invalid_where(reason: str, windowed: bool) -> str:
    """ksqlDB's refusal of a WHERE that key lookups cannot answer while table scans are off (its
    QueryFilterNode.invalidWhereClauseException, wording from memory): the reason, the pull-query syntax help,
    what a lookup's WHERE must be (and on a windowed table which window bounds may narrow it), and the switch
    that allows scans."""
    reason = reason.rstrip()
    if reason.endswith("."):
        reason = reason[:-1]
    window = ("" if not windowed else
              "\n - (optionally) limits the time bounds of the windowed table."
              "\n\t Bounds on [`WINDOWSTART`, `WINDOWEND`] are supported"
              f"\n\t Supported operators are {_WINDOW_BOUND_OPERATORS}")
    return (f"{reason}. {PULL_QUERY_SYNTAX_HELP}"
            "\nPull queries require a WHERE clause that:"
            "\n - includes a key equality expression, e.g. `SELECT * FROM X WHERE <key-column>=Y;`."
            "\n - in the case of a multi-column key, is a conjunction of equality expressions that cover all key "
            f"columns.{window}"
            "\nIf more flexible queries are needed, table scans can be enabled by setting "
            "ksql.query.pull.table.scan.enabled=true.")


class _RangeScan(Exception):
    """A range on a STRING key: served by a (filtered) scan even with table scans disabled."""


def _plan(where: exp.Expression | None, key_columns: list[Column], window_size: int | None, windowed: bool,
          range_enabled: bool, functions: FunctionRegistry) -> Lookup:
    if where is None:
        raise NeedsScan("Query requires table scan to be enabled")
    disjuncts = _dnf(where.copy())  # _dnf builds new nodes over the operands
    if disjuncts is None:
        raise NeedsScan("Query requires table scan to be enabled")
    keys = {c.name: c for c in key_columns}
    lookup = Lookup()
    ranged = False
    for conj in disjuncts:
        eqs: dict[str, list[Any]] = {}
        ranges: dict[str, int] = {}
        seen: dict[str, int] = {}
        lo: int | None = None
        hi: int | None = None
        for atom in conj:
            kind, col, payload = _classify(atom, keys, windowed, functions)
            if kind == "eq" or kind == "in":
                seen[col] = seen.get(col, 0) + 1
                eqs[col] = [key_value(v, keys[col], functions) for v in payload]
            elif kind == "range":
                seen[col] = seen.get(col, 0) + 1
                ranges[col] = 1
            elif kind == "window":
                lo, hi = _narrow(lo, hi, col, payload, window_size)
        if any(n > 1 for n in seen.values()):
            raise NeedsScan("A comparison condition on the key column cannot be combined with other comparisons such "
                            "as an IN predicate")
        if not seen:
            text = " AND ".join(format_expression(a) for a in conj)
            raise NeedsScan(f"WHERE clause missing key column for disjunct: {text}")
        if len(seen) < len(keys):
            raise NeedsScan("Multi-column sources must specify every key in the WHERE clause")
        if ranges:
            string_key = len(keys) == 1 and next(iter(keys.values())).type == T.STRING
            if range_enabled and string_key and not windowed and len(disjuncts) == 1:
                ranged = True
                continue
            raise NeedsScan("Query requires table scan to be enabled")
        for combo in itertools.product(*(eqs[c.name] for c in key_columns)):
            lookup.keys.append((tuple(combo), lo, hi))
    if ranged:
        raise _RangeScan()
    return lookup


def _dnf(e: exp.Expression) -> list[list[exp.Expression]] | None:
    e = _negations(e)
    if isinstance(e, exp.Or):
        a, b = _dnf(e.this), _dnf(e.expression)
        if a is None or b is None or len(a) + len(b) > MAX_DISJUNCTS:
            return None
        return a + b
    if isinstance(e, exp.And):
        a, b = _dnf(e.this), _dnf(e.expression)
        if a is None or b is None or len(a) * len(b) > MAX_DISJUNCTS:
            return None
        return [x + y for x in a for y in b]
    return [[e]]


# a comparison's negation (ComparisonExpression.Type.negate; IS NOT DISTINCT FROM is NOT over IS DISTINCT FROM)
_NEGATE: dict[type[exp.Expression], type[exp.Expression]] = {
    exp.EQ: exp.NEQ, exp.NEQ: exp.EQ, exp.GT: exp.LTE, exp.LTE: exp.GT, exp.LT: exp.GTE, exp.GTE: exp.LT,
    exp.NullSafeEQ: exp.NullSafeNEQ, exp.NullSafeNEQ: exp.NullSafeEQ}


def _negations(e: exp.Expression, negated: bool = False) -> exp.Expression:
    """``e`` with NOT pushed down to its comparisons, as ksqlDB's LogicRewriter.rewriteNegations does before
    the pull planner reads a WHERE (from memory): De Morgan over AND/OR, a negated comparison becomes the
    opposite comparison (``NOT WINDOWSTART = 1`` is ``WINDOWSTART <> 1``), anything else keeps its NOT."""
    e = _unparen(e)
    if isinstance(e, exp.Not):
        return _negations(e.this, not negated)
    if isinstance(e, (exp.And, exp.Or)):
        kind = type(e) if not negated else (exp.Or if isinstance(e, exp.And) else exp.And)
        return kind(this=_negations(e.this, negated), expression=_negations(e.expression, negated))
    if not negated:
        return e
    flipped = _NEGATE.get(type(e))
    if flipped is not None:
        return flipped(this=e.this, expression=e.expression)
    return exp.Not(this=e)


def _unparen(e: exp.Expression) -> exp.Expression:
    while isinstance(e, exp.Paren):
        e = e.this
    return e


def _column(e: exp.Expression) -> str | None:
    e = _unparen(e)
    if isinstance(e, exp.Column) and not isinstance(e.this, exp.Star):
        return e.name
    return None


def _has_columns(e: exp.Expression) -> bool:
    return any(not isinstance(c.this, exp.Star) for c in e.find_all(exp.Column))


def _classify(atom: exp.Expression, keys: dict[str, Column], windowed: bool,
              functions: FunctionRegistry) -> tuple[str, str, Any]:
    """('eq'|'in'|'range'|'window'|'other', column, payload)."""
    atom = _unparen(atom)
    if isinstance(atom, exp.Like) and (_column(atom.this) is None or not _is_string_literal(atom.expression)):
        # ksqlDB's key extraction only understands `column LIKE 'pattern'`
        raise NeedsScan("Like condition must be between strings")
    if isinstance(atom, exp.In):
        col = _column(atom.this)
        if col in keys:
            values = list(atom.expressions)
            if any(_has_columns(v) for v in values):
                raise NeedsScan("A comparison must be between a key column and a resolvable expression.")
            return "in", col, values
        _no_indirect_key(atom, keys)
        return "other", "", None
    if isinstance(atom, _COMPARE):
        left, right, op = atom.this, atom.expression, type(atom)
        lcol, rcol = _column(left), _column(right)
        if lcol not in keys and lcol not in WINDOW_BOUNDS and (rcol in keys or rcol in WINDOW_BOUNDS):
            left, right, lcol, rcol, op = right, left, rcol, lcol, _FLIP[op]
        if lcol in keys:
            if _has_columns(right):
                raise NeedsScan("A comparison must be between a key column and a resolvable expression.")
            if op is exp.EQ:
                return "eq", lcol, [right]
            if op is exp.NEQ:
                # the source's whole key, as ksqlDB's message prints LogicalSchema.key() (from memory; the
                # list's brackets in its text are a List's toString)
                listed = ", ".join(f"`{c.name}` {c.type} KEY" for c in keys.values())
                raise NeedsScan(f"Bound on key columns '[{listed}]' must currently be '='")
            return "range", lcol, None
        if windowed and lcol in WINDOW_BOUNDS and not _has_columns(right):
            if op is exp.NEQ:
                raise NeedsScan(f"Unsupported {lcol} bounds: NOT_EQUAL")
            return "window", lcol, (op, evaluate(right, functions))
    if windowed and isinstance(atom, (exp.NullSafeEQ, exp.NullSafeNEQ)):
        side = next((c for c in (_column(atom.this), _column(atom.expression)) if c in WINDOW_BOUNDS), None)
        if side is not None:
            kind = "IS_NOT_DISTINCT_FROM" if isinstance(atom, exp.NullSafeEQ) else "IS_DISTINCT_FROM"
            raise NeedsScan(f"Unsupported {side} bounds: {kind}")
    _no_indirect_key(atom, keys)
    return "other", "", None


def _is_string_literal(e: exp.Expression) -> bool:
    e = _unparen(e)
    return isinstance(e, exp.Literal) and e.is_string


def _no_indirect_key(atom: exp.Expression, keys: dict[str, Column]) -> None:
    if any(c.name in keys for c in atom.find_all(exp.Column)):
        raise NeedsScan("A comparison must directly reference a key column.")


def _narrow(lo: int | None, hi: int | None, col: str, payload: tuple[Any, Any], size: int | None
            ) -> tuple[int | None, int | None]:
    """Window-start bounds implied by a WINDOWSTART/WINDOWEND comparison (WINDOWEND = start + size)."""
    op, v = payload
    if not isinstance(v, int) or isinstance(v, bool):
        return lo, hi
    if col == "WINDOWEND":
        if size is None:
            return lo, hi  # session windows: bounds are checked by the filter only
        v -= size
    new_lo = {exp.EQ: v, exp.GT: v + 1, exp.GTE: v}.get(op)
    new_hi = {exp.EQ: v, exp.LT: v - 1, exp.LTE: v}.get(op)
    if new_lo is not None:
        lo = _stored_start(new_lo if lo is None else max(lo, new_lo))
    if new_hi is not None:
        hi = _stored_start(new_hi if hi is None else min(hi, new_hi))
    return lo, hi


_START_MIN, _START_MAX = -(1 << 63), (1 << 63) - 2


def _stored_start(v: int) -> int:
    """A window-start bound within the starts a store can hold (a BIGINT whose window ends within BIGINT):
    a bound beyond them (``WINDOWSTART = 9223372036854775807``, ``WINDOWEND`` minus the size below the least
    BIGINT) fetches the nearest ones, and the WHERE, evaluated on every row fetched, decides."""
    return min(max(v, _START_MIN), _START_MAX)


def evaluate(e: exp.Expression, functions: FunctionRegistry) -> Any:
    """The value of an expression without columns (literals, arithmetic, functions of constants)."""
    return typed_value(e, functions)[0]


def typed_value(e: exp.Expression, functions: FunctionRegistry) -> tuple[Any, T.SqlType]:
    """The value of an expression without columns, with its SQL type."""
    bound = bind(e, Scope(), BindContext(functions))
    return constant_value(bound, functions), bound.type


def key_value(e: exp.Expression, col: Column, functions: FunctionRegistry) -> Any:
    """The key a lookup's value (after ``=`` or in an IN list) names, as ksqlDB's QueryFilterNode.resolveKey
    takes it (from memory): a literal is taken as it is (``_to_key``); anything else - arithmetic, a CAST,
    a function of constants - goes through the GenericExpressionResolver with the key column's type, as an
    INSERT VALUES value does, and fails with its reason. NULL is refused naming the comparison."""
    if _is_literal(e):
        v, t = typed_value(e, functions)
        if v is not None:
            return _to_key(v, t, col)
    else:
        try:
            v = resolve_constant(e, col.type, col.name, BindContext(functions))
        except ResolveFailed as failed:
            raise PullPlanError(failed.reason) from None
        if v is not None:
            return v
    raise PullPlanError(f"Primary key columns can not be NULL: ({col.name} = {format_expression(e)})")


def _is_literal(e: exp.Expression) -> bool:
    """A literal of ksqlDB's grammar: a number (with its sign: ``MINUS? INTEGER_VALUE``), text, a boolean or
    NULL."""
    e = _unparen(e)
    if isinstance(e, exp.Neg):
        e = _unparen(e.this)
        return isinstance(e, exp.Literal) and not e.is_string
    return isinstance(e, (exp.Literal, exp.Boolean, exp.Null))


def _to_key(v: Any, src: T.SqlType, col: Column) -> Any:
    """A lookup value (of ``=`` or an IN list, of SQL type ``src``) in the key column's representation, as
    ksqlDB's QueryFilterNode.resolveKey takes it (from memory): the literal's value through
    DefaultSqlValueCoercer.STRICT - numbers only widen (INT -> BIGINT -> DECIMAL -> DOUBLE), text becomes a
    DATE/TIME/TIMESTAMP (or BYTES from base64) -, a value it cannot take is an error naming it in quotes, NULL
    is refused."""
    if v is None:
        raise PullPlanError(f"Primary key columns can not be NULL: ({col.name} = null)")
    try:
        return coerce_strict(v, src, col.type)
    except CoercionFailed:
        shown = str(v).lower() if isinstance(v, bool) else java_value_text(v, src)
        raise PullPlanError(
            f"'{shown}' can not be converted to the type of the key column: {col.name} {col.type} KEY") from None
