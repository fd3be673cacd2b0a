"""The binder: a parsed expression + the names it may use -> a bound expression (``ksqlpy.expr.bound``).

All of ksqlDB's typing and validation rules for expressions live here, each where ksqlDB checks it
(``ExpressionTypeManager``, ``ComparisonUtil``, ``Operator``, ``SqlDecimal``, ``CoercionUtil``,
``CastEvaluator``, the code generator), with ksqlDB's messages; ``ksqlpy.expr.stages`` words them per
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

``bind`` binds one expression of a clause; ``bind_filter`` adds the WHERE/HAVING boolean check.
"""

from __future__ import annotations

from decimal import Decimal as PyDecimal
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlError, KsqlStatementError, KsqlTypeError, location
from ksqlpy.expr import bound as B
from ksqlpy.expr import casts, lists
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.scope import Scope
from ksqlpy.expr.stages import BindContext, BindError, Clause, Phase, window_bounds_message
from ksqlpy.functions.datetime import INTERVAL_UNIT
from ksqlpy.grammar.ast import Cast, Dereference, FunctionCall, MapConstructor, StructConstructor, TypeName

_TEMPORAL = (T.DATE, T.TIME, T.TIMESTAMP)
_PREPARING = "Exception while preparing statement: "  # ksqlDB's wording of its sanitizer's errors
_INT_RANGE = (-(2**31), 2**31 - 1)
_LONG_RANGE = (-(2**63), 2**63 - 1)

_COMPARE_OPS = {
    exp.EQ: B.CmpOp.EQUAL, exp.NEQ: B.CmpOp.NOT_EQUAL, exp.LT: B.CmpOp.LESS_THAN,
    exp.LTE: B.CmpOp.LESS_THAN_OR_EQUAL, exp.GT: B.CmpOp.GREATER_THAN, exp.GTE: B.CmpOp.GREATER_THAN_OR_EQUAL,
    exp.NullSafeNEQ: B.CmpOp.IS_DISTINCT_FROM, exp.NullSafeEQ: B.CmpOp.IS_NOT_DISTINCT_FROM,
}
_ARITH_OPS = {exp.Add: B.ArithOp.ADD, exp.Sub: B.ArithOp.SUBTRACT, exp.Mul: B.ArithOp.MULTIPLY,
              exp.Div: B.ArithOp.DIVIDE, exp.Mod: B.ArithOp.MODULUS}


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
    e = bind(node, scope, ctx, clause)
    if e.type != T.BOOLEAN and not isinstance(e.type, T.NullType):
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


def literal_type(text: str) -> tuple[Any, T.SqlType]:
    """(value, type) of a numeric literal as written: INTEGER, BIGINT, DECIMAL(p, s) or DOUBLE."""
    low = text.lower()
    if "e" in low:
        return float(text), T.DOUBLE
    if "." in text:  # the written digits (0.5 is DECIMAL(2, 1))
        d = PyDecimal(text)
        return d, lists.decimal_type_of(d)
    v = int(text)
    if _INT_RANGE[0] <= v <= _INT_RANGE[1]:
        return v, T.INTEGER
    if _LONG_RANGE[0] <= v <= _LONG_RANGE[1]:
        return v, T.BIGINT
    return PyDecimal(v), T.Decimal(len(text.lstrip("-")), 0)


def resolve_type(t: T.SqlType, custom_types: dict[str, T.SqlType]) -> T.SqlType:
    """``t`` with custom type names (CREATE TYPE) replaced by what they stand for."""
    if isinstance(t, TypeName):
        found = custom_types.get(t.type_name)
        if found is None:
            raise KsqlStatementError(f"Unknown type: {t.type_name}")
        return found
    if isinstance(t, T.Array):
        return T.Array(resolve_type(t.element, custom_types))
    if isinstance(t, T.Map):
        return T.Map(resolve_type(t.key, custom_types), resolve_type(t.value, custom_types))
    if isinstance(t, T.Struct):
        return T.Struct(tuple((n, resolve_type(ft, custom_types)) for n, ft in t.fields))
    return t


# --------------------------------------------------------------------------- rules shared with callers


def comparable_types(left: T.SqlType, op: B.CmpOp, right: T.SqlType) -> bool:
    """ksqlDB's ComparisonUtil table: numbers with numbers; STRING with STRING or a time type;
    BOOLEAN, ARRAY, MAP, STRUCT with their own kind and only for equality; DATE/TIMESTAMP with either or
    STRING; TIME with TIME or STRING; BYTES with BYTES."""
    if T.is_numeric(left):
        return T.is_numeric(right)
    if left == T.STRING:
        return right == T.STRING or right in _TEMPORAL
    if left == T.BOOLEAN:
        return right == T.BOOLEAN and op.is_equality
    if isinstance(left, T.Array | T.Map | T.Struct):
        return right.name == left.name and op.is_equality
    if left in (T.DATE, T.TIMESTAMP):
        return right in (T.DATE, T.TIMESTAMP, T.STRING)
    if left == T.TIME:
        return right in (T.TIME, T.STRING)
    if left == T.BYTES:
        return right == T.BYTES
    return False


def arithmetic_type(op: B.ArithOp, a: T.SqlType, b: T.SqlType) -> T.SqlType:
    """The result type of ``a op b`` for two numbers (ksqlDB's ``Operator.resultType`` and SqlDecimal)."""
    if a == T.DOUBLE or b == T.DOUBLE:
        return T.DOUBLE
    if isinstance(a, T.Decimal) or isinstance(b, T.Decimal):
        da, db = T.as_decimal(a), T.as_decimal(b)
        p1, s1, p2, s2 = da.precision, da.scale, db.precision, db.scale
        if op in (B.ArithOp.ADD, B.ArithOp.SUBTRACT):
            s = max(s1, s2)
            p = max(p1 - s1, p2 - s2) + s + 1
        elif op is B.ArithOp.MULTIPLY:
            p, s = p1 + p2 + 1, s1 + s2
        elif op is B.ArithOp.DIVIDE:
            s = max(6, s1 + p2 + 1)
            p = p1 - s1 + s2 + s
        else:
            s = max(s1, s2)
            p = min(p1 - s1, p2 - s2) + s
        return T.Decimal(p, s)
    if a == T.BIGINT or b == T.BIGINT:
        return T.BIGINT
    return T.INTEGER


def _base(t: T.SqlType) -> str:
    return "NULL" if isinstance(t, T.NullType) else t.name


def _null(t: T.SqlType) -> bool:
    return isinstance(t, T.NullType)


# --------------------------------------------------------------------------- the binder


class _Binder:
    def __init__(self, scope: Scope, ctx: BindContext, clause: Clause | None, table_functions: bool) -> None:
        self.scope = scope
        self.ctx = ctx
        self.clause = clause
        self.table_functions = table_functions
        self.lambdas: list[dict[str, T.SqlType]] = []  # parameters of the enclosing lambdas, innermost last
        self._positions: dict[int, B.Position | None] = {}
        self.in_case = 0

    # ------------------------------------------------------------------ plumbing
    def bind(self, node: exp.Expression) -> B.Expr:
        method = getattr(self, f"_b_{type(node).__name__}", None)
        if method is None:
            raise BindError(f"Unsupported expression: {format_expression(node)}", Phase.TYPING)
        try:
            return method(node)
        except KsqlError as e:  # the innermost placed expression an error comes from says where it is
            if e.location is None:
                e.location = self.pos(node)
            raise

    def codegen_error(self, message: str, node: exp.Expression, result: B.Expr, **kw: Any) -> B.Expr:
        """A rule ksqlDB's code generator enforces: reported after typing (with a clause), ``result``
        stands in meanwhile."""
        err = BindError(message, Phase.CODEGEN, **kw)
        err.location = self.pos(node)
        if self.clause is None:
            raise err
        self.ctx.defer(err, self.clause)
        return result

    def codegen_only(self, node: exp.Expression, bind: Any) -> B.Expr:
        """Bind what ksqlDB types only when it generates code (IN, BETWEEN and LIKE operands): a typing
        error there is a code-generation error."""
        try:
            return bind()
        except BindError as e:
            if e.phase is Phase.ANALYSIS:
                raise
            if e.location is None:
                e.location = self.pos(node)
            e.phase = Phase.CODEGEN
            if self.clause is None:
                raise
            self.ctx.defer(e, self.clause)
            return B.Literal(None, type=T.BOOLEAN, pos=self.pos(node))

    def pos(self, node: exp.Expression) -> B.Position | None:
        """``location_within(node)``, remembered per node: a chain of n operators asks at every level, and
        walking each subtree again would be quadratic."""
        key = id(node)
        if key in self._positions:
            return self._positions[key]
        where = location(node)
        if where is None:  # location_within's pre-order walk: the first placed child, left to right
            for child in node.iter_expressions():
                where = self.pos(child)
                if where is not None:
                    break
        self._positions[key] = where
        return where

    # ------------------------------------------------------------------ names and literals
    def _b_Paren(self, node: exp.Paren) -> B.Expr:
        return self.bind(node.this)

    def _b_Star(self, node: exp.Star) -> B.Expr:
        raise BindError("'*' is only allowed in a SELECT list", Phase.ANALYSIS)

    def _b_Column(self, node: exp.Column) -> B.Expr:
        if isinstance(node.this, exp.Star):
            raise BindError("'*' is only allowed in a SELECT list", Phase.ANALYSIS)
        name = node.this.name if isinstance(node.this, exp.Identifier) else node.name
        qual = node.table or None
        pos = self.pos(node)
        if not qual:
            for params in reversed(self.lambdas):
                if name in params:
                    return B.LambdaVar(name, type=params[name], pos=pos)
        slot = self.scope.lookup(name, qual)
        if slot is None:
            if name in ("WINDOWSTART", "WINDOWEND") and not qual:
                raise BindError(window_bounds_message(name), Phase.ANALYSIS)
            full = f"{qual}.{name}" if qual else name
            where = f"{self.clause.label} column" if self.clause is not None and self.clause.label else "Column"
            raise BindError(f"{where} '{full}' cannot be resolved.", Phase.ANALYSIS)
        return B.ColumnRef(slot.index, slot.name, slot.display, type=slot.type, pos=pos)

    def _b_Identifier(self, node: exp.Identifier) -> B.Expr:
        return self._b_Column(exp.Column(this=node))

    def _b_Literal(self, node: exp.Literal) -> B.Expr:
        if node.is_string:
            return B.Literal(node.this, type=T.STRING, pos=self.pos(node))
        value, t = literal_type(node.this)
        return B.Literal(value, type=t, pos=self.pos(node))

    def _b_Boolean(self, node: exp.Boolean) -> B.Expr:
        return B.Literal(bool(node.this), type=T.BOOLEAN, pos=self.pos(node))

    def _b_Null(self, node: exp.Null) -> B.Expr:
        return B.Literal(None, type=T.NULL, pos=self.pos(node))

    def _b_IntervalUnit(self, node: exp.Expression) -> B.Expr:
        """A bare time unit keyword (``DATEADD(DAYS, ...)``): its name, typed as an interval unit."""
        unit = str(node.args.get("unit") or node.this).upper()
        return B.Literal(unit, type=INTERVAL_UNIT, pos=self.pos(node))

    def _b_AtTimeZone(self, node: exp.AtTimeZone) -> B.Expr:
        raise BindError("Unsupported: AT TIME ZONE", Phase.ANALYSIS)

    def _b_Lambda(self, node: exp.Lambda) -> B.Expr:
        raise BindError("A lambda is only allowed as a function argument", Phase.ANALYSIS)

    # ------------------------------------------------------------------ arithmetic
    def _b_Neg(self, node: exp.Neg) -> B.Expr:
        a = self.bind(node.this)
        if isinstance(a, B.Literal) and a.value is not None and T.is_numeric(a.type):
            return B.Literal(_negate(a.value, a.type), type=a.type, pos=self.pos(node))
        out = B.Negate(a, type=a.type, pos=self.pos(node))
        if not T.is_numeric(a.type) and not _null(a.type):
            return self.codegen_error(f"Unsupported arithmetic: -{a} ({a.type})", node, out)
        return out

    def _arith(self, node: exp.Binary, op: B.ArithOp) -> B.Expr:
        a, b = self.bind(node.this), self.bind(node.expression)
        ta, tb = a.type, b.type
        pos = self.pos(node)
        if op is B.ArithOp.ADD and ta == T.STRING and tb == T.STRING:
            return B.Arithmetic(op, a, b, type=T.STRING, pos=pos)
        if _null(ta) or _null(tb):
            names = ["null" if _null(t) else str(t) for t in (ta, tb)]
            raise BindError(f"Error processing expression: ({a} {op.value} {b}). Arithmetic on types {names[0]} "
                            f"and {names[1]} are not supported.", Phase.TYPING, plain=True)
        if not (T.is_numeric(ta) and T.is_numeric(tb)):
            raise BindError(f"Error processing expression: ({a} {op.value} {b}). Unsupported arithmetic types. "
                            f"{ta.name} {tb.name}", Phase.TYPING)
        rt = arithmetic_type(op, ta, tb)
        if isinstance(rt, T.Decimal):
            a, b = _implicit(a, T.as_decimal(ta)), _implicit(b, T.as_decimal(tb))
        elif rt == T.DOUBLE:
            a, b = _implicit(a, T.DOUBLE), _implicit(b, T.DOUBLE)
        else:
            a, b = _implicit(a, rt), _implicit(b, rt)
        return B.Arithmetic(op, a, b, type=rt, pos=pos)

    def _b_Add(self, node: exp.Add) -> B.Expr:
        return self._arith(node, B.ArithOp.ADD)

    def _b_Sub(self, node: exp.Sub) -> B.Expr:
        return self._arith(node, B.ArithOp.SUBTRACT)

    def _b_Mul(self, node: exp.Mul) -> B.Expr:
        return self._arith(node, B.ArithOp.MULTIPLY)

    def _b_Div(self, node: exp.Div) -> B.Expr:
        return self._arith(node, B.ArithOp.DIVIDE)

    def _b_Mod(self, node: exp.Mod) -> B.Expr:
        return self._arith(node, B.ArithOp.MODULUS)

    def _b_DPipe(self, node: exp.DPipe) -> B.Expr:
        return self._call("CONCAT", [node.this, node.expression], node)

    # ------------------------------------------------------------------ comparisons
    def check_comparison(self, a: B.Expr, op: B.CmpOp, b: B.Expr, phase: Phase) -> None:
        if op is B.CmpOp.IS_NOT_DISTINCT_FROM:  # ksqlDB checks it as NOT (a IS DISTINCT FROM b)
            op = B.CmpOp.IS_DISTINCT_FROM
        text = f"({a} {op.value} {b})"
        if _null(a.type) or _null(b.type):
            raise BindError(f"Comparison with NULL not supported: {_base(a.type)} {op.value} {_base(b.type)}\n"
                            "Use 'IS NULL' or 'IS NOT NULL' instead.", phase, statement=text)
        if not comparable_types(a.type, op, b.type):
            raise BindError(f"Cannot compare {a} ({a.type}) to {b} ({b.type}) with {op.name}.", phase,
                            statement=text)

    def _compare(self, node: exp.Binary) -> B.Expr:
        op = _COMPARE_OPS[type(node)]
        a, b = self.bind(node.this), self.bind(node.expression)
        self.check_comparison(a, op, b, Phase.TYPING)
        left, right = _comparable(a, b)
        return B.Comparison(op, left, right, type=T.BOOLEAN, pos=self.pos(node))

    _b_EQ = _b_NEQ = _b_GT = _b_GTE = _b_LT = _b_LTE = _b_NullSafeEQ = _b_NullSafeNEQ = _compare

    def _b_Between(self, node: exp.Between) -> B.Expr:
        return self.codegen_only(node, lambda: self._between(node))

    def _between(self, node: exp.Between) -> B.Expr:
        a = self.bind(node.this)
        lo, hi = self.bind(node.args["low"]), self.bind(node.args["high"])
        self.check_comparison(a, B.CmpOp.GREATER_THAN_OR_EQUAL, lo, Phase.CODEGEN)
        self.check_comparison(a, B.CmpOp.LESS_THAN_OR_EQUAL, hi, Phase.CODEGEN)
        a1, lo = _comparable(a, lo)
        a2, hi = _comparable(a1, hi)
        if a2 is not a1:
            _, lo = _comparable(a2, lo)
        return B.Between(a2, lo, hi, type=T.BOOLEAN, pos=self.pos(node))

    def _b_In(self, node: exp.In) -> B.Expr:
        return self.codegen_only(node, lambda: self._in(node))

    def _in(self, node: exp.In) -> B.Expr:
        """ksqlDB's IN: the common type of the operand and the non-NULL items (literals coerced to it); each
        item is then compared with the operand, numbers in the type the two have in common."""
        a = self.bind(node.this)
        items = [self.bind(e) for e in node.expressions]
        listed = [i for i in items if not (isinstance(i, B.Literal) and i.value is None)]
        common = lists.common_type([a, *listed], Phase.CODEGEN)
        tests: list[tuple[T.SqlType, B.Expr]] = []
        for item in listed:
            if T.is_numeric(item.type) and not isinstance(item, B.Literal):
                coerced = item
            else:
                coerced = lists.coerce_to(item, common, Phase.CODEGEN) if common is not None else item
            if T.is_numeric(a.type) and T.is_numeric(coerced.type):
                as_type = T.DOUBLE if T.DOUBLE in (a.type, coerced.type) else a.type
                coerced = _implicit(coerced, T.DOUBLE) if as_type == T.DOUBLE else coerced
            else:
                as_type = coerced.type
            tests.append((as_type, coerced))
        return B.InList(a, tuple(items), tuple(tests), type=T.BOOLEAN, pos=self.pos(node))

    def _b_Like(self, node: exp.Like) -> B.Expr:
        return self.codegen_only(node, lambda: self._like(node, None))

    def _b_Escape(self, node: exp.Escape) -> B.Expr:
        esc = node.expression
        if not (isinstance(esc, exp.Literal) and esc.is_string and len(esc.this) == 1):
            raise BindError(f"Expected single character escape but got: {format_expression(esc)}", Phase.ANALYSIS)
        return self.codegen_only(node, lambda: self._like(node.this, esc.this))

    def _like(self, node: exp.Expression, escape: str | None) -> B.Expr:
        a, p = self.bind(node.this), self.bind(node.expression)
        out = B.Like(a, p, escape, type=T.BOOLEAN, pos=self.pos(node))
        if a.type != T.STRING and not _null(a.type):
            return self.codegen_error(f"The column type for Like condition must be VARCHAR. The column type is "
                                      f"{a.type}", node, out)
        if p.type != T.STRING and not _null(p.type):
            return self.codegen_error(f"The pattern type for Like condition must be VARCHAR. The pattern type is "
                                      f"{p.type}", node, out)
        return out

    # ------------------------------------------------------------------ logic
    def _logical(self, node: exp.Binary, op: B.LogicOp) -> B.Expr:
        a, b = self.bind(node.this), self.bind(node.expression)
        # ksqlDB types AND/OR as its right operand and leaves operand checks to the code generator
        rt = T.BOOLEAN if _null(b.type) else b.type
        out = B.Logical(op, a, b, type=rt, pos=self.pos(node))
        for side in (a, b):
            if side.type != T.BOOLEAN and not _null(side.type):
                return self.codegen_error(f"Logical operand must be BOOLEAN: {side} is {side.type}", node, out)
        return out

    def _b_And(self, node: exp.And) -> B.Expr:
        return self._logical(node, B.LogicOp.AND)

    def _b_Or(self, node: exp.Or) -> B.Expr:
        return self._logical(node, B.LogicOp.OR)

    def _b_Not(self, node: exp.Not) -> B.Expr:
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return B.IsNull(self.bind(inner.this), True, type=T.BOOLEAN, pos=self.pos(node))
        a = self.bind(node.this)
        out = B.Not(a, type=T.BOOLEAN, pos=self.pos(node))
        if a.type != T.BOOLEAN and not _null(a.type):
            return self.codegen_error(f"Logical operand must be BOOLEAN: {a} is {a.type}", node, out)
        return out

    def _b_Is(self, node: exp.Is) -> B.Expr:
        if not isinstance(node.expression, exp.Null):
            raise BindError(f"Unsupported expression: {format_expression(node)}", Phase.TYPING)
        return B.IsNull(self.bind(node.this), False, type=T.BOOLEAN, pos=self.pos(node))

    # ------------------------------------------------------------------ CASE
    def _b_Case(self, node: exp.Case) -> B.Expr:
        self.in_case += 1
        try:
            return self._case(node)
        finally:
            self.in_case -= 1

    def _case(self, node: exp.Case) -> B.Expr:
        if node.args.get("this") is not None:
            # ksqlDB parses the simple form (CASE x WHEN v THEN ...) but its type manager has no rule for it:
            # the visitor's default refusal, raised unwrapped in every clause
            raise BindError("not yet implemented: io.confluent.ksql.execution.util.ExpressionTypeManager$Visitor"
                            ".visitSimpleCaseExpression", Phase.ANALYSIS)
        whens: list[tuple[B.Expr, B.Expr]] = []
        then_type: T.SqlType | None = None
        for clause in node.args.get("ifs") or []:
            cond = self.bind(clause.this)
            if cond.type != T.BOOLEAN and not _null(cond.type):
                raise BindError(f"WHEN operand type should be boolean.\nType for '{cond}' is {cond.type}", Phase.TYPING)
            value = self.bind(clause.args["true"])
            whens.append((cond, value))
            if _null(value.type):
                continue
            if then_type is None:
                then_type = value.type
            elif value.type != then_type:
                raise BindError("Invalid Case expression. Type for all 'THEN' clauses should be the same.\n"
                                f"THEN expression 'WHEN {cond} THEN {value}' has type: {value.type}.\n"
                                f"Previous THEN expression(s) type: {then_type}.", Phase.TYPING)
        default_node = node.args.get("default")
        default = self.bind(default_node) if default_node is not None else None
        default_type = default.type if default is not None and not _null(default.type) else None
        if then_type is not None and default_type is not None and then_type != default_type:
            raise BindError("Invalid Case expression. Type for the default clause should be the same as for 'THEN' "
                            f"clauses.\nTHEN type: {then_type}.\nDEFAULT type: {default_type}.", Phase.TYPING)
        rt = then_type or default_type
        if rt is None:
            raise BindError("Invalid Case expression. All case branches have NULL type", Phase.TYPING)
        typed = tuple((c, _implicit(v, rt)) for c, v in whens)
        return B.Case(typed, _implicit(default, rt) if default is not None else None, type=rt, pos=self.pos(node))

    def _b_If(self, node: exp.If) -> B.Expr:
        return self._b_Case(exp.Case(ifs=[node], default=node.args.get("false")))

    # ------------------------------------------------------------------ casts and structures
    def _b_Cast(self, node: Cast) -> B.Expr:
        target = resolve_type(node.args["to"], self.ctx.custom_types)
        a = self.bind(node.this)
        # ksqlDB casts to STRING with Objects.toString(x, null), or String.valueOf(x) ('null') when
        # ksql.cast.strings.preserve.nulls is false; a STRING operand is not converted at all
        null_as_text = not self.ctx.preserve_string_nulls and target == T.STRING and a.type != T.STRING
        out = B.Cast(a, type=target, null_as_text=null_as_text, errors_null=self.ctx.nested_errors_null,
                     pos=self.pos(node))
        if not casts.supported(a.type, target):
            return self.codegen_error(casts.unsupported_message(a.type, target), node, out)
        return out

    def _b_Dereference(self, node: Dereference) -> B.Expr:
        base = self.bind(node.this)
        name = node.args["field"]
        if not isinstance(base.type, T.Struct):
            raise BindError(f"Expected STRUCT type, got: {base.type}", Phase.TYPING)
        ft = base.type.field(name)
        if ft is None:
            raise BindError(f"Could not find field '{name}' in '{base}'.", Phase.TYPING)
        return B.Dereference(base, name, type=ft, pos=self.pos(node))

    def _b_Bracket(self, node: exp.Bracket) -> B.Expr:
        base = self.bind(node.this)
        idx = self.bind(node.expressions[0])
        pos = self.pos(node)
        if isinstance(base.type, T.Array):
            out = B.Subscript(base, idx, type=base.type.element, pos=pos)
            if not T.is_integral(idx.type) and not _null(idx.type):
                return self.codegen_error(f"Array index must be INTEGER or BIGINT, got {idx.type}: {base}[{idx}]",
                                          node, out)
            return out
        if isinstance(base.type, T.Map):
            if T.can_implicitly_cast(idx.type, base.type.key):
                idx = _implicit(idx, base.type.key)
            return B.Subscript(base, idx, type=base.type.value, pos=pos)
        hint = f" Use the dereference operator for STRUCTS: {base}->{idx}" if isinstance(base.type, T.Struct) else ""
        raise BindError(f"Subscript expression ({base}[{idx}]) do not apply to {base.type}.{hint}", Phase.TYPING)

    def _b_Array(self, node: exp.Array) -> B.Expr:
        items = [self.bind(e) for e in node.expressions]
        if not items:
            raise BindError("Array constructor cannot be empty. Please supply at least one element (see "
                            "https://github.com/confluentinc/ksql/issues/4239).", Phase.TYPING)
        et = lists.common_type(items, Phase.TYPING)
        if et is None:
            raise BindError("Cannot construct an array with all NULL elements (see "
                            "https://github.com/confluentinc/ksql/issues/4239). As a workaround, you may cast a "
                            "NULL value to the desired type.", Phase.TYPING)
        coerced = tuple(lists.coerce_to(i, et, Phase.TYPING) for i in items)
        return B.ArrayCtor(coerced, type=T.Array(et), element_errors_null=self.ctx.nested_errors_null,
                           pos=self.pos(node))

    def _b_MapConstructor(self, node: MapConstructor) -> B.Expr:
        keys = [self.bind(k) for k in node.args.get("keys") or []]
        values = [self.bind(v) for v in node.args.get("values") or []]
        if not keys:
            raise BindError("Map constructor cannot be empty. Please supply at least one key value pair (see "
                            "https://github.com/confluentinc/ksql/issues/4239).", Phase.TYPING)
        kt = lists.common_type(keys, Phase.TYPING)
        vt = lists.common_type(values, Phase.TYPING)
        for t, what in ((kt, "key"), (vt, "value")):
            if t is None:
                raise BindError(f"Cannot construct a map with all NULL {what}s (see "
                                "https://github.com/confluentinc/ksql/issues/4239). As a workaround, you may cast a "
                                f"NULL {what} to the desired type.", Phase.TYPING)
        assert kt is not None and vt is not None
        entries = tuple((lists.coerce_to(k, kt, Phase.TYPING), lists.coerce_to(v, vt, Phase.TYPING))
                        for k, v in zip(keys, values, strict=True))
        return B.MapCtor(entries, type=T.Map(kt, vt), element_errors_null=self.ctx.nested_errors_null,
                         pos=self.pos(node))

    def _b_StructConstructor(self, node: StructConstructor) -> B.Expr:
        names = node.args.get("names") or []
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise BindError(f"Duplicate field names found in STRUCT: '{dup}'", Phase.TYPING)
        fields = []
        types = []
        for n, v in zip(names, node.args.get("values") or [], strict=True):
            b = self.bind(v)
            if _null(b.type):  # a NULL field has no type of its own; it reads as a STRING
                b = B.Literal(None, type=T.STRING, pos=b.pos) if isinstance(b, B.Literal) else _implicit(b, T.STRING)
            fields.append((n, b))
            types.append((n, b.type))
        return B.StructCtor(tuple(fields), type=T.Struct(tuple(types)),
                            element_errors_null=self.ctx.nested_errors_null, pos=self.pos(node))

    # ------------------------------------------------------------------ functions
    def _b_FunctionCall(self, node: FunctionCall) -> B.Expr:
        return self._call(node.fname, node.call_args, node)

    def _call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        registry = self.ctx.registry
        kind = registry.kind_of(name)
        if kind == "aggregate":
            raise BindError(f"Aggregate function {name} is not allowed here: {format_expression(node)}",
                            Phase.ANALYSIS)
        if kind is None:
            raise BindError(f"Can't find any functions with the name '{name}'", Phase.TYPING)
        if kind == "table":
            return self._table_call(name, args, node)
        fn = registry.scalars[name]
        if len(args) == 1 and isinstance(args[0], exp.Star):
            args = []  # f(*) is f() for scalar functions, as in ksqlDB
        bound, resolved, arg_types = self._arguments(fn, name, args)
        return B.Call(B.FunctionRef(B.FunctionKind.SCALAR, name, tuple(arg_types)), tuple(bound),
                      resolved.null_on_null, resolved.deterministic, errors_null=self.ctx.nested_errors_null,
                      type=resolved.return_type, pos=self.pos(node))

    def _table_call(self, name: str, args: list[exp.Expression], node: exp.Expression) -> B.Expr:
        if not self.table_functions:
            raise BindError(f"Table functions are only supported in the SELECT list: {format_expression(node)}",
                            Phase.ANALYSIS)
        if self.in_case:
            raise BindError(f"Table functions cannot be used in CASE: {format_expression(node)}", Phase.ANALYSIS)
        for a in args:
            for inner in a.find_all(FunctionCall):
                if self.ctx.registry.kind_of(inner.fname) == "table":
                    raise BindError(f"Table functions cannot be nested: {name}({inner.fname}())", Phase.ANALYSIS)
        fn = self.ctx.registry.tables[name]
        saved = self.clause
        if saved is Clause.SELECT:  # ksqlDB compiles table function arguments on their own
            self.clause = Clause.TABLE_FUNCTION
        try:
            bound, resolved, arg_types = self._arguments(fn, name, args)
        finally:
            self.clause = saved
        return B.Call(B.FunctionRef(B.FunctionKind.TABLE, name, tuple(arg_types)), tuple(bound),
                      resolved.null_on_null, resolved.deterministic, type=resolved.return_type, pos=self.pos(node))

    def _arguments(self, fn: Any, name: str, args: list[exp.Expression]) -> tuple[list[B.Expr], Any, list[T.SqlType]]:
        bound: list[B.Expr | None] = []
        types: list[T.SqlType] = []
        for a in args:
            if isinstance(a, exp.Lambda):
                bound.append(None)
                types.append(T.LambdaType(tuple(T.NULL for _ in a.expressions)))
            else:
                b = self.bind(a)
                bound.append(b)
                types.append(b.type)
        # lambdas: typed once the argument types before them are known
        for i, a in enumerate(args):
            if isinstance(a, exp.Lambda):
                try:
                    params = fn.lambda_params(i, types)
                except KsqlTypeError as e:
                    raise BindError(e.message, Phase.TYPING) from None
                if len(params) != len(a.expressions):
                    try:  # ksqlDB matches a lambda's parameter count with the signatures: no overload fits
                        fn.resolve(types)
                    except KsqlTypeError as e:
                        raise BindError(e.message, Phase.TYPING) from None
                lam = self._lambda(a, name, params)
                bound[i] = lam
                types[i] = lam.type
        try:
            resolved = fn.resolve(types)
        except KsqlTypeError as e:
            raise BindError(e.message, Phase.TYPING) from None
        out: list[B.Expr] = []
        for i, b in enumerate(bound):
            assert b is not None
            pt = resolved.param_types[i] if resolved.param_types and i < len(resolved.param_types) else None
            if pt is not None and not isinstance(b.type, T.LambdaType) and pt != b.type and not _is_generic(pt):
                if b.type == T.STRING and pt in _TEMPORAL:
                    b = B.Cast(b, type=pt, implicit=True, pos=b.pos)  # ISO strings for temporal arguments
                elif _null(b.type) or T.can_implicitly_cast(b.type, pt):
                    b = _implicit(b, pt)
            out.append(b)
        return out, resolved, types

    def _lambda(self, node: exp.Lambda, fname: str, params: tuple[T.SqlType, ...]) -> B.Lambda:
        names = [p.name for p in node.expressions]
        if len(params) != len(names):
            raise BindError(f"Lambda for {fname} takes {len(params)} arguments, got {len(names)}", Phase.TYPING)
        for n in names:  # ksqlDB's sanitizer rules for lambda parameters
            if any(n in outer for outer in self.lambdas):
                raise BindError(f"{_PREPARING}Reusing lambda arguments in nested lambda is not allowed",
                                Phase.ANALYSIS)
            if self.scope.lookup(n, None) is not None:
                raise BindError(f"{_PREPARING}Lambda function argument can't be a column name: {n}", Phase.ANALYSIS)
        self.lambdas.append(dict(zip(names, params, strict=True)))
        try:
            body = self.bind(node.this)
        finally:
            self.lambdas.pop()
        return B.Lambda(tuple(names), body, type=T.LambdaType(tuple(params), body.type), pos=self.pos(node))


# --------------------------------------------------------------------------- helpers


def _implicit(e: B.Expr, target: T.SqlType) -> B.Expr:
    """``e`` as ``target`` through an implicit cast (nothing when it already is; a NULL literal retyped)."""
    if e.type == target:
        return e
    if isinstance(e, B.Literal) and e.value is None:
        return B.Literal(None, type=target, pos=e.pos)
    return B.Cast(e, type=target, implicit=True, pos=e.pos)


def _comparable(a: B.Expr, b: B.Expr) -> tuple[B.Expr, B.Expr]:
    """Two comparable operands in the form they are compared in: mixed numbers with a DOUBLE as DOUBLEs,
    a STRING against a time type parsed as that type, DATE against TIMESTAMP as TIMESTAMPs."""
    ta, tb = a.type, b.type
    if ta == tb or _null(ta) or _null(tb):
        return a, b
    if T.is_numeric(ta) and T.is_numeric(tb):
        if T.DOUBLE in (ta, tb):
            return _implicit(a, T.DOUBLE), _implicit(b, T.DOUBLE)
        return a, b  # Python compares int and Decimal exactly
    if ta in _TEMPORAL and tb == T.STRING:
        return a, _implicit(b, ta)
    if tb in _TEMPORAL and ta == T.STRING:
        return _implicit(a, tb), b
    if ta in (T.DATE, T.TIMESTAMP) and tb in (T.DATE, T.TIMESTAMP):
        return _implicit(a, T.TIMESTAMP), _implicit(b, T.TIMESTAMP)
    return a, b


def _negate(v: Any, t: T.SqlType) -> Any:
    """``-v`` as Java computes it: the minimum INT/BIGINT negates to itself."""
    if t == T.INTEGER and v == _INT_RANGE[0]:
        return v
    if t == T.BIGINT and v == _LONG_RANGE[0]:
        return v
    return -v


def _is_generic(t: T.SqlType) -> bool:
    return type(t).__name__ in ("TypeVar", "AnyType")
