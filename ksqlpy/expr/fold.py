"""Constant folding over bound expressions.

A subtree whose operands are all literals, and that calls nothing non-deterministic, has one value; it is
computed once (by the code generator's own semantics, ``codegen.evaluate``) and becomes a literal. A
subtree that fails to evaluate (``1 / 0``) is left as it is: it fails per record, as ksqlDB's does.
Containers are not folded (their values are mutable Python objects shared by every record).
"""

from __future__ import annotations

from typing import Any

from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.expr.codegen import evaluate
from ksqlpy.functions.registry import FunctionRegistry

_NEVER = (B.Literal, B.ColumnRef, B.LambdaVar, B.Lambda)


def fold(e: B.Expr, registry: FunctionRegistry) -> B.Expr:
    """``e`` with every constant subtree replaced by its value."""

    def step(node: B.Expr) -> B.Expr:
        if isinstance(node, _NEVER) or isinstance(node.type, T.Array | T.Map | T.Struct | T.LambdaType):
            return node
        if isinstance(node, B.Call) and (not node.deterministic or node.fn.kind is B.FunctionKind.TABLE):
            return node
        if not all(isinstance(c, B.Literal) for c in node.children()):
            return node
        try:
            value = evaluate(node, registry)
        except Exception:  # noqa: BLE001 - left to fail per record
            return node
        return B.Literal(value, type=node.type, pos=node.pos)

    return e.transform(step)


def constant_value(e: B.Expr, registry: FunctionRegistry) -> Any:
    """The value of an expression without columns; raises what evaluating it raises."""
    folded = fold(e, registry)
    if isinstance(folded, B.Literal):
        return folded.value
    return evaluate(folded, registry)
