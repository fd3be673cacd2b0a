"""Typing of operators (ksqlDB's ``ExpressionTypeManager``, ``ComparisonUtil``, ``Operator``): arithmetic,
comparisons, BETWEEN/IN/LIKE, logic, CASE, CAST, and the structure constructors and accessors."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.expr import casts, lists
from ksqlpy.expr.bind_core import BinderCore
from ksqlpy.expr.format import format_expression
from ksqlpy.expr.stages import BindError, Phase
from ksqlpy.expr.type_rules import (
    _base,
    _comparable,
    _implicit,
    _negate,
    _null,
    arithmetic_type,
    comparable_types,
    resolve_type,
)
from ksqlpy.grammar.ast import Cast, Dereference, MapConstructor, StructConstructor, UnaryPlus
from ksqlpy.utf16 import as_units

_TEMPORAL = (T.DATE, T.TIME, T.TIMESTAMP)


def _unordered(t: T.SqlType) -> str | None:
    """The word ksqlDB's generated comparisons use for an operand type they know only equality for."""
    if t == T.BOOLEAN:
        return "boolean"
    for cls, word in ((T.Array, "array"), (T.Map, "map"), (T.Struct, "struct")):
        if isinstance(t, cls):
            return word
    return None

_COMPARE_OPS = {
    exp.EQ: B.CmpOp.EQUAL, exp.NEQ: B.CmpOp.NOT_EQUAL, exp.LT: B.CmpOp.LESS_THAN,
    exp.LTE: B.CmpOp.LESS_THAN_OR_EQUAL, exp.GT: B.CmpOp.GREATER_THAN, exp.GTE: B.CmpOp.GREATER_THAN_OR_EQUAL,
    exp.NullSafeNEQ: B.CmpOp.IS_DISTINCT_FROM, exp.NullSafeEQ: B.CmpOp.IS_NOT_DISTINCT_FROM,
}


class OperatorTyping(BinderCore):
    # ------------------------------------------------------------------ arithmetic
    def _b_Neg(self, node: exp.Neg) -> B.Expr:
        a = self.bind(node.this)
        if isinstance(a, B.Literal) and a.value is not None and T.is_numeric(a.type):
            return B.Literal(_negate(a.value, a.type), type=a.type, pos=self.pos(node))
        return self._unary(node, B.Negate(a, type=a.type, pos=self.pos(node)), "-")

    def _b_UnaryPlus(self, node: UnaryPlus) -> B.Expr:
        a = self.bind(node.this)
        return self._unary(node, B.UnaryPlus(a, type=a.type, pos=self.pos(node)), "+")

    def _unary(self, node: exp.Expression, out: B.Negate | B.UnaryPlus, sign: str) -> B.Expr:
        """ksqlDB types a signed operand as the operand; only its code generator needs a number."""
        a = out.operand
        if not T.is_numeric(a.type) and not _null(a.type):
            return self.codegen_error(f"Unsupported arithmetic: {sign}{a} ({a.type})", node, out)
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
        """ksqlDB generates ``a >= lo`` and ``a <= hi`` with its comparison code: a BOOLEAN, ARRAY, MAP or
        STRUCT operand (no DECIMAL or time type on either side) has no order there, whatever the bound."""
        a = self.bind(node.this)
        lo, hi = self.bind(node.args["low"]), self.bind(node.args["high"])
        for bound_, symbol in ((lo, ">="), (hi, "<=")):
            kind = _unordered(a.type)
            if kind is not None and not any(isinstance(t, T.Decimal) or t in _TEMPORAL for t in (a.type, bound_.type)):
                raise BindError(f"Unexpected {kind} comparison: {symbol}", Phase.CODEGEN)
        self.check_comparison(a, B.CmpOp.GREATER_THAN_OR_EQUAL, lo, Phase.CODEGEN)
        self.check_comparison(a, B.CmpOp.LESS_THAN_OR_EQUAL, hi, Phase.CODEGEN)
        a_lo, lo_exact = _comparable(a, lo)
        a_hi, hi_exact = _comparable(a, hi)
        if a_lo.type != a_hi.type and any(isinstance(b.type, T.Decimal) for b in (lo, hi)):
            # ksqlDB's SqlToJavaVisitor.visitBetweenPredicate generates ``a >= lo && a <= hi``, each comparison
            # with its own operand rule: a BIGINT between a DOUBLE and a DECIMAL is a double on one side and an
            # exact BigDecimal on the other (past 2^53 the two differ), so the two comparisons stay apart
            pos = self.pos(node)
            return B.Logical(B.LogicOp.AND,
                             B.Comparison(B.CmpOp.GREATER_THAN_OR_EQUAL, a_lo, lo_exact, type=T.BOOLEAN, pos=pos),
                             B.Comparison(B.CmpOp.LESS_THAN_OR_EQUAL, a_hi, hi_exact, type=T.BOOLEAN, pos=pos),
                             type=T.BOOLEAN, pos=pos)
        # otherwise one operand form serves both sides (a widening that orders values as each side would)
        a1, lo = _comparable(a, lo)
        a2, hi = _comparable(a1, hi)
        if a2 is not a1:
            _, lo = _comparable(a2, lo)
        return B.Between(a2, lo, hi, type=T.BOOLEAN, pos=self.pos(node))

    def _b_In(self, node: exp.In) -> B.Expr:
        return self.codegen_only(node, lambda: self._in(node))

    def _in(self, node: exp.In) -> B.Expr:
        """ksqlDB's IN: the common type of the operand and the non-NULL items (literals coerced to it); each
        item is then compared with the operand, numbers in the type the two have in common - a DOUBLE when the
        list's common type is DOUBLE (so two BIGINTs past 2^53 or two DECIMALs past a double's digits may
        match as the doubles they become), else exactly."""
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
                # a DOUBLE anywhere in the list makes every number a DOUBLE (CoercionUtil casts them all)
                as_type = T.DOUBLE if T.DOUBLE in (a.type, coerced.type, common) else a.type
                coerced = _implicit(coerced, T.DOUBLE) if as_type == T.DOUBLE else coerced
            else:
                as_type = coerced.type
            tests.append((as_type, coerced))
        return B.InList(a, tuple(items), tuple(tests), type=T.BOOLEAN, pos=self.pos(node))

    def _b_Like(self, node: exp.Like) -> B.Expr:
        return self.codegen_only(node, lambda: self._like(node, None))

    def _b_Escape(self, node: exp.Escape) -> B.Expr:
        esc = node.expression
        if not (isinstance(esc, exp.Literal) and esc.is_string and len(as_units(esc.this)) == 1):
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
        # ksqlDB types AND/OR as its right operand, a NULL one included (no type: a projection of it cannot
        # infer one), and leaves operand checks to the code generator
        out = B.Logical(op, a, b, type=b.type, pos=self.pos(node))
        for side in (a, b):
            if side.type != T.BOOLEAN:
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
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null) and not node.args.get("keyword"):
            # ``x IS NOT NULL`` (ksqlDB's IsNotNullPredicate); ``NOT x IS NULL`` stays a NOT over IS NULL, as
            # ksqlDB prints it in messages: ``(NOT (x IS NULL))``
            return B.IsNull(self.bind(inner.this), True, type=T.BOOLEAN, pos=self.pos(node))
        a = self.bind(node.this)
        out = B.Not(a, type=T.BOOLEAN, pos=self.pos(node))
        # an untyped NULL operand too: ksqlDB generates Java's &&, || and ! over the operands' code, and a
        # NULL literal's code is Java's null, which Janino refuses there ('Not a boolean expression') - from
        # memory of SqlToJavaVisitor.visitLogicalBinaryExpression / visitNotExpression / visitNullLiteral
        if a.type != T.BOOLEAN:
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
        """ksqlDB types the fields in order into a ``SqlStruct.Builder``, which refuses a name given twice when
        it meets the second one (so a type error in an earlier field fires first), naming both fields as
        ``SqlStruct.Field`` prints them: the quoted name and the type (from memory of ExpressionTypeManager
        .visitCreateStructExpression and SqlStruct.Builder.field)."""
        fields: list[tuple[str, B.Expr]] = []
        types: list[tuple[str, T.SqlType]] = []
        for n, v in zip(node.args.get("names") or [], node.args.get("values") or [], strict=True):
            b = self.bind(v)
            if _null(b.type):  # a NULL field has no type of its own; it reads as a STRING
                b = B.Literal(None, type=T.STRING, pos=b.pos) if isinstance(b, B.Literal) else _implicit(b, T.STRING)
            first = next((t for name, t in types if name == n), None)
            if first is not None:
                raise BindError(f"Duplicate field names found in STRUCT: '{_struct_field(n, first)}' and "
                                f"'{_struct_field(n, b.type)}'", Phase.TYPING)
            fields.append((n, b))
            types.append((n, b.type))
        return B.StructCtor(tuple(fields), type=T.Struct(tuple(types)),
                            element_errors_null=self.ctx.nested_errors_null, pos=self.pos(node))


def _struct_field(name: str, t: T.SqlType) -> str:
    """A struct field as ksqlDB's ``SqlStruct.Field.toString`` prints it: the name always quoted, then the type."""
    quoted = name.replace("`", "``")
    return f"`{quoted}` {t}"
