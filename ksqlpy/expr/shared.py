"""Subexpressions a generated pipeline computes once per record instead of once per occurrence.

Written SQL repeats itself: ``SPLIT(url, '/')[4], SPLIT(url, '/')[5]``, a WHERE and a projection over the
same ``price * 908 / 1000``, a CASE testing ``(date_time / 3600000) % 24`` in every branch. ksqlDB's
generated Java evaluates each occurrence; a per-record Python loop pays for each one, so the fast path
of a pipeline (``ksqlpy.plan.codegen``) binds such a subexpression to a local once, before the first
statement that uses it, and every later occurrence reads the local.

What may be shared, so that results stay exactly those of evaluating every occurrence:

- a pure expression: every call in it a deterministic built-in (a user's function may count its calls or
  have side effects; RANDOM, UUID, the clock are not deterministic), no table function, no lambda
  parameter, at least one column read (constants are folded already), and no vectorized call (those are
  computed once per batch already);
- a value nobody can change through another occurrence: an immutable type (primitives, DECIMAL, BYTES),
  or an ARRAY/MAP/STRUCT whose every occurrence is only subscripted or dereferenced;
- evaluated whenever the first statement that contains it runs (``_always``: the left operand of
  AND/OR, the first WHEN condition, a NULL-propagating operator's first operand...), so binding it before
  that statement does no work the record would not have done.

The fast path falls back to the per-record slow path on any exception, and that path evaluates every
occurrence as written - so a shared subexpression that fails only changes which path computes the record,
never its result or its processing-log entries.
"""

from __future__ import annotations

from collections.abc import Sequence

from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.functions.registry import FunctionRegistry

_IMMUTABLE = (T.Primitive, T.Decimal)
_MAX_NODES = 2000
_LEAVES = (B.ColumnRef, B.Literal, B.LambdaVar, B.Lambda)
# operators whose generated code tests its operands for NULL left to right and stops at the first one
_GUARDED = (B.Arithmetic, B.Comparison, B.Between, B.Negate, B.UnaryPlus, B.Not, B.Subscript, B.Dereference, B.Cast,
            B.Like)


def shared_subexpressions(statements: Sequence[B.Expr | None], registry: FunctionRegistry) -> list[list[B.Expr]]:
    """Per statement (evaluated in this order, each over the same row), the subexpressions to bind before
    it - inner ones before the ones containing them. Nothing for very large or deep expressions (hashing
    a node hashes its subtree: deep chains would cost their depth squared, or the recursion limit)."""
    try:
        return _shared(statements, registry)
    except RecursionError:
        return [[] for _ in statements]


def _shared(statements: Sequence[B.Expr | None], registry: FunctionRegistry) -> list[list[B.Expr]]:
    if sum(1 for s in statements if s is not None for _ in s.walk()) > _MAX_NODES:
        return [[] for _ in statements]
    per: list[dict[B.Expr, int]] = []  # occurrences of each subexpression, per statement
    parents: dict[B.Expr, set[type]] = {}
    for s in statements:
        per.append({})
        if s is not None:
            _count(s, per[-1], parents)
    remaining: dict[B.Expr, int] = {}  # occurrences in this statement and the ones after it
    for counts in per:
        for e, n in counts.items():
            remaining[e] = remaining.get(e, 0) + n
    candidates = {e for e, n in remaining.items() if n > 1 and _shareable(e, parents[e], registry)}
    out: list[list[B.Expr]] = []
    bound: set[B.Expr] = set()
    for s, counts in zip(statements, per, strict=True):
        here: list[B.Expr] = []
        if s is not None:
            always = _always(s)
            for e in _post_order(s):
                # bound before the first statement that always evaluates it, if used more than once from there
                if e in candidates and e not in bound and e in always and remaining[e] > 1:
                    bound.add(e)
                    here.append(e)
        for e, n in counts.items():
            remaining[e] -= n
        out.append(here)
    return out


def _count(root: B.Expr, counts: dict[B.Expr, int], parents: dict[B.Expr, set[type]]) -> None:
    stack: list[tuple[B.Expr, B.Expr | None]] = [(root, None)]  # (explicit stacks: chains run deep)
    while stack:
        e, parent = stack.pop()
        counts[e] = counts.get(e, 0) + 1
        # a container is safe to share only as the base of a subscript or dereference (read, never changed)
        reads = isinstance(parent, B.Subscript | B.Dereference) and parent.children()[0] is e
        parents.setdefault(e, set()).add(type(parent) if reads else object)
        stack.extend((c, e) for c in e.children())


def _shareable(e: B.Expr, parents: set[type], registry: FunctionRegistry) -> bool:
    if isinstance(e, _LEAVES):
        return False
    if not isinstance(e.type, _IMMUTABLE) and object in parents:
        return False
    reads_column = False
    for node in e.walk():
        if isinstance(node, B.LambdaVar | B.Lambda):
            return False
        if isinstance(node, B.ColumnRef):
            reads_column = True
        elif isinstance(node, B.Call) and not _pure_call(node, registry):
            return False
    return reads_column


def _pure_call(c: B.Call, registry: FunctionRegistry) -> bool:
    if c.fn.kind is B.FunctionKind.TABLE or not c.deterministic:
        return False
    fn = registry.scalars.get(c.fn.name)
    if fn is None or fn.path != "internal":
        return False
    return c.null_on_null or c.fn.resolve(registry).batch_impl is None


def _post_order(root: B.Expr) -> list[B.Expr]:
    """Every node, children before their parent, left to right."""
    out: list[B.Expr] = []
    stack: list[tuple[B.Expr, bool]] = [(root, False)]
    while stack:
        e, done = stack.pop()
        if done:
            out.append(e)
        else:
            stack.append((e, True))
            stack.extend((c, False) for c in reversed(e.children()))
    return out


def _always(root: B.Expr) -> set[B.Expr]:
    """``root`` and the subexpressions its generated code evaluates whenever it evaluates ``root``."""
    out: set[B.Expr] = set()
    stack = [root]
    while stack:
        e = stack.pop()
        out.add(e)
        if isinstance(e, _LEAVES):
            continue
        if isinstance(e, B.Logical):
            stack.append(e.left)
        elif isinstance(e, B.Case):
            stack.append(e.whens[0][0])
        elif isinstance(e, B.IsNull | B.InList):
            stack.append(e.operand)
        elif isinstance(e, B.Comparison) and e.op.null_safe:
            stack += (e.left, e.right)
        elif isinstance(e, B.ArrayCtor | B.MapCtor | B.StructCtor):
            stack += e.children()
        elif isinstance(e, B.Call) and not e.null_on_null:
            stack += e.args
        elif isinstance(e, (*_GUARDED, B.Call)):
            # the first operand, unless a constant operand may be NULL (then the code is NULL outright)
            children = e.children()
            if children and all(_maybe_not_constant_null(c) for c in children):
                stack.append(children[0])
    return out


def _maybe_not_constant_null(e: B.Expr) -> bool:
    """Not a constant that could be NULL: it reads a column, or is a non-NULL literal."""
    if isinstance(e, B.Literal):
        return e.value is not None
    return any(isinstance(n, B.ColumnRef | B.LambdaVar) for n in e.walk())
