"""Type checking of SELECT items that contain table function (UDTF) calls."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy.expr.compiler import Compiled, ExprCompiler


def compile_with_table_functions(comp: ExprCompiler, e: exp.Expression) -> Compiled:
    """Compile ``e`` letting each UDTF call stand for one element of its result."""
    comp.table_function_vars = {}
    try:
        return comp.compile(e)
    finally:
        comp.table_function_vars = None
