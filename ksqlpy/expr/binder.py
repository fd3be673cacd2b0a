"""The binder: a parsed expression + the names it may use -> a bound expression (``ksqlpy.expr.bound``).

All of ksqlDB's typing and validation rules for expressions live in the modules named below, each where
ksqlDB checks it (``ExpressionTypeManager``, ``ComparisonUtil``, ``Operator``, ``SqlDecimal``,
``CoercionUtil``, ``CastEvaluator``, the code generator), with ksqlDB's messages; ``ksqlpy.expr.stages`` words them per
clause and validation stage. In short (ksqldb-rules.md section 2):

- literals: INTEGER if the digits fit 32 bits, else BIGINT; with a point a DECIMAL of the written digits;
  with an exponent a DOUBLE; NULL has no type until context gives it one;
- arithmetic: numbers widen INTEGER < BIGINT < DECIMAL < DOUBLE, DECIMAL results take SqlDecimal's
  precision and scale, ``STRING + STRING`` concatenates; a NULL operand is an error;
- comparisons follow ComparisonUtil's table and never coerce a literal (``ID = '10'`` is an error);
  a NULL side is ``Comparison with NULL not supported``;
- the only literal coercion is the common type of a list: IN, ARRAY[...], MAP(...) (``ksqlpy.expr.lists``);
- CASE branches must have identical types; WHEN operands must be BOOLEAN;
- CAST follows ksqlDB's matrix (checked when code is generated, as ksqlDB does);
- functions resolve through the registry (exact types first, then implicit casts); lambdas take their
  parameter types from the arguments before them.

The rules live in one module per idea: ``type_rules`` (types of literals, comparisons, arithmetic,
implicit casts), ``name_binding`` (names and literals), ``operator_typing`` (operators, CASE, CAST,
structures), ``function_binding`` (functions and lambdas), over ``bind_core`` (dispatch, deferred errors,
positions).

``bind`` binds one expression of a clause; ``bind_filter`` adds the WHERE/HAVING boolean check.
"""

from __future__ import annotations

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlError, KsqlStatementError
from ksqlpy.expr import bound as B
from ksqlpy.expr.function_binding import FunctionBinding
from ksqlpy.expr.name_binding import NameBinding
from ksqlpy.expr.operator_typing import OperatorTyping
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, BindError, Clause, Phase

# --------------------------------------------------------------------------- entry points


def bind(node: exp.Expression, scope: Scope, ctx: BindContext, clause: Clause | None = None, *,
         table_functions: bool = False) -> B.Expr:
    """Bind ``node`` (an expression of ``clause``) over ``scope``. Errors are ksqlDB's for that clause;
    code-generation errors are held in ``ctx`` when a clause is given (see ``BindContext.check``)."""
    try:
        return _Binder(scope, ctx, clause, table_functions).bind(node)
    except BindError as e:
        raise ctx.report(e, clause) from None


def bind_filter(node: exp.Expression, scope: Scope, ctx: BindContext, clause: Clause, *,
                shown: str | None = None) -> B.Expr:
    """Bind a WHERE or HAVING expression: also a BOOLEAN (``FilterTypeValidator``). ``shown``: the
    filter as written, when ``node`` was rewritten (HAVING over aggregate results)."""
    first = len(ctx.deferred)
    e = bind(node, scope, ctx, clause)
    if isinstance(e.type, T.NullType):
        # a filter of no type (an untyped NULL, however parenthesised): ksqlDB's code generator (and the
        # pull-query interpreter) refuse an expression whose type is null - "NULL expression not supported",
        # worded "Invalid Predicate: ..." ("Invalid expression: ..." interpreted), reported after every
        # clause is typed. From memory of ksqlDB's CodeGenRunner.buildCodeGenFromParseTree and
        # InterpretedExpressionFactory.create (the returnType == null check).
        # CodeGenRunner checks the type before it compiles: ahead of the clause's compile errors (the NULL
        # operand of 'OK OR NULL')
        ctx.deferred.insert(first, ctx.report(BindError("NULL expression not supported", Phase.CODEGEN), clause))
        return e
    if e.type != T.BOOLEAN:
        text = shown if shown is not None else str(e)
        raise KsqlStatementError(f"Type error in {clause.label} expression: Should evaluate to boolean but is "
                                 f"{text} ({e.type}) instead.")
    return e


def try_bind(node: exp.Expression, scope: Scope, ctx: BindContext) -> B.Expr | None:
    """``node`` bound, or None if it does not bind (for comparing expressions structurally)."""
    probe = BindContext(ctx.registry, ctx.custom_types, ctx.interpreted,
                        preserve_string_nulls=ctx.preserve_string_nulls, nested_errors_null=ctx.nested_errors_null)
    try:
        return _Binder(scope, probe, Clause.SELECT, False).bind(node)
    except KsqlError:
        return None


class _Binder(NameBinding, OperatorTyping, FunctionBinding):
    """One expression's binder: the rule classes together, dispatching on the parsed node's type."""
