"""Python code generation from bound expressions.

Each bound expression becomes a Python expression string, once per query; ``ksqlpy.plan.codegen`` and the
other operator generators paste these snippets into one function per pipeline, so a record costs a few
bytecodes per operator instead of a tree walk. SQL NULL is ``None`` and propagates; operands are bound to
walrus temporaries so each is evaluated once:

    a + b   ->   (None if (_t1 := c3) is None or (_t2 := c4) is None else
                  (_t3 if -2147483648 <= (_t3 := _t1 + _t2) <= 2147483647 else _rt.wrap_int(_t3)))

Java semantics that differ from Python's are explicit: integer division truncates toward zero, ``%`` takes
the dividend's sign, INT and BIGINT overflow wrap (inlined as a range check), DECIMAL results take the
scale ksqlDB derives. Function calls resolve their implementation once (``FunctionRef.resolve``) and call
it directly. The typing rules are the binder's: code generation only reads the types it left.

``safe=True`` generates the per-record slow path of the same expression: every function call and CAST is
wrapped in ``_s(what, lambda: ...)``, so one failing call is NULL on its own (and logged by ``_s``) instead
of failing the whole expression - ksqlDB catches errors per function invocation.

Deep expressions (``a + 1 + 1 + ...``, nested calls, long CASE chains) would nest the generated text past
what Python's compiler takes (200 parentheses): every ``_HOIST_DEPTH`` levels the code so far becomes a helper
function in the generated code's globals (``_hoist``), called with the local names it reads, so any
expression that binds compiles.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ksqlpy import types as T
from ksqlpy.expr import bound as B
from ksqlpy.expr import casts
from ksqlpy.expr import runtime as _runtime
from ksqlpy.expr.failures import FunctionCallSite, NestedSite
from ksqlpy.expr.inline_calls import inline_body
from ksqlpy.functions.registry import FunctionRegistry

_INT = (-(2**31), 2**31 - 1)
_LONG = (-(2**63), 2**63 - 1)
_PY_COMPARE = {B.CmpOp.EQUAL: "==", B.CmpOp.NOT_EQUAL: "!=", B.CmpOp.LESS_THAN: "<",
               B.CmpOp.LESS_THAN_OR_EQUAL: "<=", B.CmpOp.GREATER_THAN: ">", B.CmpOp.GREATER_THAN_OR_EQUAL: ">="}
_DEC_FN = {B.ArithOp.ADD: "dec_add", B.ArithOp.SUBTRACT: "dec_sub", B.ArithOp.MULTIPLY: "dec_mul",
           B.ArithOp.DIVIDE: "dec_div", B.ArithOp.MODULUS: "dec_mod"}

_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?\d+(\.\d+)?|'[^'\\]*'|None|True|False")
_CONSTANT = re.compile(r"-?\d+(\.\d+)?|'[^'\\]*'|True|False")
# generated nesting per expression level is 2-4 parentheses; Python's tokenizer stops at 200
_HOIST_DEPTH = 24
_CASE_CHUNK = 16  # WHEN branches nested in one helper


@dataclass
class Code:
    """A generated Python expression and its SQL type; ``const``: it is a constant (``value``)."""

    text: str
    type: T.SqlType
    const: bool = False
    value: Any = None


class Codegen:
    """Generates Python for bound expressions over one row.

    ``columns``: the Python expression reading each column of the row (by ``ColumnRef.index``);
    ``consts``: objects the generated code refers to by name (implementations, decimals, regexes) - pass
    the same dict as the globals of the generated function; ``table_elements``: the variable holding the
    current element of each table function call (a UDTF in a SELECT item stands for one element);
    ``batch``: collects the calls of vectorized functions for one call per batch
    (``ksqlpy.plan.batch_calls.BatchCalls``: the fast path of a generated pipeline); ``shared``: the
    local already holding the value of each subexpression computed once per record
    (``ksqlpy.expr.shared``)."""

    def __init__(self, columns: Sequence[str], consts: dict[str, Any], registry: FunctionRegistry, *,
                 safe: bool = False, table_elements: dict[B.Expr, str] | None = None, batch: Any = None,
                 shared: dict[B.Expr, str] | None = None) -> None:
        self.columns = columns
        self.shared = shared if shared is not None else {}
        self.consts = consts
        self.registry = registry
        self.safe = safe
        self.batch = batch
        self.table_elements = table_elements or {}
        self._n = 0
        self._lambdas: list[dict[str, str]] = []
        self._child_depth = 0  # the deepest generated level below the node being generated

    # ------------------------------------------------------------------ helpers
    def const(self, value: Any, hint: str = "c") -> str:
        """A name for ``value`` in the generated code's globals."""
        for k, v in self.consts.items():
            if v is value:
                return k
        self._n += 1
        name = f"_{hint}{len(self.consts)}_{self._n}"
        self.consts[name] = value
        return name

    def tmp(self) -> str:
        self._n += 1
        return f"_t{self._n}"

    def _rt(self) -> str:
        self.consts["_rt"] = _runtime
        return "_rt"

    def guard(self, parts: Sequence[Code], body: str, null: str = "None") -> str:
        """``body`` with NULL propagation over ``parts``; ``body`` uses {0}, {1}... for operand values.
        ``null``: the code a NULL operand yields. Each operand is evaluated once."""
        names = []
        checks = []
        for p in parts:
            if p.const and p.value is not None:
                names.append(p.text)
                continue
            if p.const and p.value is None:
                return null if null in ("None", "False") else f"({null})"
            if _CONSTANT.fullmatch(p.text):  # never NULL: no test needed
                names.append(p.text)
                continue
            if _SIMPLE.fullmatch(p.text):
                names.append(p.text)
                checks.append(f"{p.text} is None")
            else:
                t = self.tmp()
                names.append(t)
                checks.append(f"({t} := {p.text}) is None")
        expr = body.format(*names)
        if not checks:
            return f"({expr})"
        return f"({null} if {' or '.join(checks)} else {expr})"

    def _literal_code(self, value: Any) -> str:
        if value is None:
            return "None"
        if isinstance(value, bool | int | str) or (isinstance(value, float) and value == value
                                                   and value not in (float("inf"), float("-inf"))):
            return repr(value)
        return self.const(value, "k")

    # ------------------------------------------------------------------ entry
    def gen(self, e: B.Expr) -> Code:
        if self.shared and (var := self.shared.get(e)) is not None:
            return Code(var, e.type)
        method = getattr(self, f"_g_{type(e).__name__}")
        outer, self._child_depth = self._child_depth, 0
        try:
            code = method(e)
            depth = self._child_depth + 1
        finally:
            self._child_depth = outer
        if depth >= _HOIST_DEPTH and not code.const:
            code, depth = Code(self._hoist(code.text), code.type), 1
        self._child_depth = max(self._child_depth, depth)
        return code

    def _hoist(self, text: str) -> str:
        """``text`` as a call of a new helper function taking the local names it reads (columns, lambda
        parameters, the slow path's ``_s``); its walrus temporaries are the helper's own locals."""
        tree = ast.parse(text, mode="eval")
        stored: set[str] = set()
        loaded: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
            elif isinstance(node, ast.arg):
                stored.add(node.arg)
        params = sorted(n for n in loaded - stored if n not in self.consts and not hasattr(builtins, n))
        self._n += 1
        name = f"_h{len(self.consts)}_{self._n}"  # unique across the Codegens sharing ``consts``
        src = f"def {name}({', '.join(params)}):\n    return {text}\n"
        helper: dict[str, Any] = {}
        exec(compile(src, f"<ksqlpy-expression-helper {name}>", "exec"), self.consts, helper)  # noqa: S102
        self.consts[name] = helper[name]
        return f"{name}({', '.join(params)})"

    def text(self, e: B.Expr) -> str:
        return self.gen(e).text

    # ------------------------------------------------------------------ leaves
    def _g_ColumnRef(self, e: B.ColumnRef) -> Code:
        return Code(self.columns[e.index], e.type)

    def _g_LambdaVar(self, e: B.LambdaVar) -> Code:
        for env in reversed(self._lambdas):
            if e.name in env:
                return Code(env[e.name], e.type)
        raise KeyError(f"lambda variable {e.name} outside its lambda")

    def _g_Literal(self, e: B.Literal) -> Code:
        return Code(self._literal_code(e.value), e.type, True, e.value)

    # ------------------------------------------------------------------ casts
    def _g_Cast(self, e: B.Cast) -> Code:
        inner = self.gen(e.operand)
        src, dst = e.operand.type, e.type
        if src == dst or isinstance(src, T.NullType):
            return Code(inner.text, dst, inner.const, inner.value)
        conv = casts.converter(src, dst) if e.implicit else casts.cast_converter(src, dst)
        if e.null_as_text and inner.const and inner.value is None:
            return Code("'null'", dst, True, "null")
        if inner.const and inner.value is not None and not isinstance(dst, T.Array | T.Map | T.Struct):
            try:
                v = inner.value if conv is None else conv(inner.value)
            except Exception:  # noqa: BLE001 - a literal that fails to convert fails per record, as in ksqlDB
                pass
            else:
                return Code(self._literal_code(v), dst, True, v)
        if conv is None:
            return Code(inner.text, dst)
        null = "'null'" if e.null_as_text else "None"
        if dst == T.DOUBLE and T.is_numeric(src):
            code = self.guard([inner], "float({0})")
        else:
            code = self.guard([inner], self.const(conv, "cv") + "({0})", null)
        return Code(code if e.implicit or not e.errors_null else self._safe_call(NestedSite(str(dst)), code), dst)

    # ------------------------------------------------------------------ arithmetic
    def _null_operand(self) -> str:
        # ksqlDB's generated Java unboxes numeric operands (and calls BigDecimal methods on them): a NULL one
        # fails the whole expression - in a projection, a WHERE, a lambda body alike
        return f"{self._rt()}.null_operand()"

    def _g_Arithmetic(self, e: B.Arithmetic) -> Code:
        a, b = self.gen(e.left), self.gen(e.right)
        rt = e.type
        if rt == T.STRING:
            if a.const and b.const:
                return Code(repr(_runtime.java_concat(a.value, b.value)), rt, True, _runtime.java_concat(a.value, b.value))
            return Code(f"{self._rt()}.java_concat({a.text}, {b.text})", rt)
        null = self._null_operand()
        op = e.op
        if isinstance(rt, T.Decimal):
            fn = f"{self._rt()}.{_DEC_FN[op]}"
            return Code(self.guard([a, b], fn + "({0}, {1}, " + f"{rt.precision}, {rt.scale})", null), rt)
        if rt == T.DOUBLE:
            if op is B.ArithOp.DIVIDE:
                return Code(self.guard([a, b], f"{self._rt()}.ddiv({{0}}, {{1}})", null), rt)
            if op is B.ArithOp.MODULUS:
                return Code(self.guard([a, b], f"{self._rt()}.dmod({{0}}, {{1}})", null), rt)
            return Code(self.guard([a, b], "{0} " + op.value + " {1}", null), rt)
        rt_mod = self._rt()
        if op in (B.ArithOp.DIVIDE, B.ArithOp.MODULUS) and b.const and type(b.value) is int and b.value > 0:
            # a positive literal divisor: Java's truncating division and remainder inlined (no call, no
            # zero or overflow case); the same results as _rt.idiv / _rt.imod
            body = ("({0} // {1} if {0} >= 0 else -(-{0} // {1}))" if op is B.ArithOp.DIVIDE
                    else "({0} % {1} if {0} >= 0 else -(-{0} % {1}))")
            return Code(self.guard([a, b], body, null), rt)
        if op is B.ArithOp.DIVIDE:
            fn = "idiv_int" if rt == T.INTEGER else "idiv_long"
            return Code(self.guard([a, b], f"{rt_mod}.{fn}({{0}}, {{1}})", null), rt)
        if op is B.ArithOp.MODULUS:
            return Code(self.guard([a, b], f"{rt_mod}.imod({{0}}, {{1}})", null), rt)
        # Java's wrap-around inlined: a range check on the result, the call only on overflow
        lo, hi = _INT if rt == T.INTEGER else _LONG
        wrap = f"{rt_mod}.wrap_int" if rt == T.INTEGER else f"{rt_mod}.wrap_long"
        w = self.tmp()
        body = f"({w} if {lo} <= ({w} := {{0}} {op.value} {{1}}) <= {hi} else {wrap}({w}))"
        return Code(self.guard([a, b], body, null), rt)

    def _g_Negate(self, e: B.Negate) -> Code:
        a = self.gen(e.operand)
        if e.type in (T.INTEGER, T.BIGINT):
            lo = _INT[0] if e.type == T.INTEGER else _LONG[0]
            return Code(self.guard([a], f"(-{{0}} if {{0}} != {lo} else {{0}})", self._null_operand()),
                        e.type)  # -MIN is MIN in Java
        if isinstance(e.type, T.Decimal):
            return Code(self.guard([a], f"{self._rt()}.dec_neg({{0}})", self._null_operand()), e.type)
        return Code(self.guard([a], "-{0}", self._null_operand()), e.type)

    def _g_UnaryPlus(self, e: B.UnaryPlus) -> Code:
        return Code(self.guard([self.gen(e.operand)], "{0}", self._null_operand()), e.type)

    # ------------------------------------------------------------------ predicates
    def _g_Comparison(self, e: B.Comparison) -> Code:
        a, b = self.gen(e.left), self.gen(e.right)
        a, b = self._big_decimal(a, e.left.type, e.right.type), self._big_decimal(b, e.right.type, e.left.type)
        if isinstance(e.left.type, T.Array | T.Map | T.Struct) and isinstance(e.right.type, T.Array | T.Map | T.Struct):
            return self._java_equality(e, a, b)
        if (T.DOUBLE in (e.left.type, e.right.type) and not isinstance(e.left.type, T.Decimal)
              and not isinstance(e.right.type, T.Decimal)):
            # ksqlDB's scalar comparison of unboxed numbers: <> is (a < b) || (a > b), so NaN <> x is FALSE
            if e.op is B.CmpOp.IS_DISTINCT_FROM:
                return Code(f"{self._rt()}.double_distinct({a.text}, {b.text})", T.BOOLEAN)
            if e.op is B.CmpOp.NOT_EQUAL:
                return Code(self.guard([a, b], "({0} < {1} or {0} > {1})", "False"), T.BOOLEAN)
        if e.op is B.CmpOp.IS_DISTINCT_FROM:
            return Code(f"({a.text} != {b.text})", T.BOOLEAN)
        if e.op is B.CmpOp.IS_NOT_DISTINCT_FROM:
            return Code(f"({a.text} == {b.text})", T.BOOLEAN)
        # ksqlDB's comparisons are FALSE, not NULL, when an operand is NULL
        body = "{0} " + _PY_COMPARE[e.op] + " {1}"
        if e.left.type == T.BYTES and not e.op.is_equality:
            body = self._signed_bytes(body, 2)
        elif e.left.type == T.STRING == e.right.type and not e.op.is_equality:
            body = f"{self._rt()}.str_compare({{0}}, {{1}}) {_PY_COMPARE[e.op]} 0"  # String.compareTo: UTF-16
        return Code(self.guard([a, b], body, "False"), T.BOOLEAN)

    def _java_equality(self, e: B.Comparison, a: Code, b: Code) -> Code:
        """ARRAY, MAP and STRUCT operands: ksqlDB's ``((Object) a).equals(b)`` (expr/java_equality), after its
        NULL test - FALSE for ``=`` and ``<>`` with a NULL side, one NULL distinct from a value."""
        ta, tb, rt = self.const(e.left.type, "ty"), self.const(e.right.type, "ty"), self._rt()
        if e.op in (B.CmpOp.IS_DISTINCT_FROM, B.CmpOp.IS_NOT_DISTINCT_FROM):
            fn = "java_distinct" if e.op is B.CmpOp.IS_DISTINCT_FROM else "java_equals"
            return Code(f"{rt}.{fn}({a.text}, {ta}, {b.text}, {tb})", T.BOOLEAN)
        neg = "not " if e.op is B.CmpOp.NOT_EQUAL else ""
        return Code(self.guard([a, b], f"{neg}{rt}.java_equals({{0}}, {ta}, {{1}}, {tb})", "False"), T.BOOLEAN)

    def _big_decimal(self, c: Code, t: T.SqlType, other: T.SqlType) -> Code:
        """A DOUBLE operand compared with a DECIMAL, as ksqlDB's comparison code takes it:
        ``BigDecimal.valueOf(d)`` (runtime.double_as_decimal; NaN and infinities fail the expression)."""
        if t == T.DOUBLE and isinstance(other, T.Decimal):
            return Code(f"{self._rt()}.double_as_decimal({c.text})", other)
        return c

    def _g_Between(self, e: B.Between) -> Code:
        parts = [self.gen(e.operand), self.gen(e.low), self.gen(e.high)]
        body = "{1} <= {0} <= {2}"
        x, lo, hi = e.operand.type, e.low.type, e.high.type
        if T.DOUBLE in (x, lo, hi) and any(isinstance(t, T.Decimal) for t in (x, lo, hi)):
            # ksqlDB generates (a >= lo) && (a <= hi), each comparison with its own DOUBLE-DECIMAL rule
            def side(i: int, t: T.SqlType, other: T.SqlType) -> str:
                return self._big_decimal(Code(f"{{{i}}}", t), t, other).text
            body = f"{side(1, lo, x)} <= {side(0, x, lo)} and {side(0, x, hi)} <= {side(2, hi, x)}"
        if e.operand.type == T.BYTES:
            body = self._signed_bytes(body, 3)
        elif e.operand.type == T.STRING == e.low.type == e.high.type:
            rt = self._rt()
            body = f"{rt}.str_compare({{1}}, {{0}}) <= 0 and {rt}.str_compare({{0}}, {{2}}) <= 0"
        return Code(self.guard(parts, body, "False"), T.BOOLEAN)

    def _signed_bytes(self, body: str, n: int) -> str:
        """BYTES order as Java's ``ByteBuffer.compareTo``: bytes compare as signed values."""
        return body.format(*(f"{self._rt()}.signed_bytes({{{i}}})" for i in range(n)))

    def _null_boolean(self) -> str:
        return f"{self._rt()}.null_boolean()"

    def _g_Logical(self, e: B.Logical) -> Code:
        """Java's ``&&`` / ``||`` on boxed Booleans: short-circuit on the left operand; a NULL operand that
        is evaluated fails the expression (ksqlDB has no three-valued logic)."""
        a, b = self.gen(e.left), self.gen(e.right)
        t1, t2 = self.tmp(), self.tmp()
        stop = "False" if e.op is B.LogicOp.AND else "True"
        return Code(f"({stop} if ({t1} := {a.text}) is {stop} else {self._null_boolean()} if {t1} is None or "
                    f"({t2} := {b.text}) is None else {t2})", T.BOOLEAN)

    def _g_Not(self, e: B.Not) -> Code:
        return Code(self.guard([self.gen(e.operand)], "not {0}", self._null_boolean()), T.BOOLEAN)

    def _g_IsNull(self, e: B.IsNull) -> Code:
        a = self.gen(e.operand)
        if a.const or _CONSTANT.fullmatch(a.text):  # known here (and `1 is None` is a SyntaxWarning)
            result = (a.const and a.value is None) != e.negated
            return Code(repr(result), T.BOOLEAN, True, result)
        return Code(f"({a.text} is {'not ' if e.negated else ''}None)", T.BOOLEAN)

    def _g_InList(self, e: B.InList) -> Code:
        """FALSE for a NULL operand (so NOT IN is TRUE), as ksqlDB's InListEvaluator; NULL items never match."""
        a = self.gen(e.operand)
        t = self.tmp()
        operand = Code(t, e.operand.type)
        tests = [(self._as(operand, as_type), self.gen(item)) for as_type, item in e.tests]
        tests = [(x, y) for x, y in tests if not (y.const and y.value is None)]
        if not tests:
            return Code(f"(False if ({t} := {a.text}) is None else False)", T.BOOLEAN)
        same = all(x.text == t for x, _ in tests)
        java = [as_type for as_type, _ in e.tests if _holds_double(as_type)]
        if java and same and all(y.const for _, y in tests) and all(a == T.DOUBLE for a in java):
            rt = self._rt()
            keys = frozenset(_runtime.double_bits(y.value) for _, y in tests)
            return Code(f"(False if ({t} := {a.text}) is None else {rt}.double_bits({t}) in {self.const(keys, 'in')})",
                        T.BOOLEAN)
        if java:  # InListEvaluator's value.equals(item): Double.equals inside (NaN is NaN, -0.0 is not 0.0)
            checks = " or ".join(self._java_equals(x.text, y.text, as_type)
                                 for (x, y), (as_type, _) in zip(tests, e.tests, strict=True))
            return Code(f"(False if ({t} := {a.text}) is None else ({checks}))", T.BOOLEAN)
        if same and all(y.const for _, y in tests):
            values = [y.value for _, y in tests]
            try:
                members = self.const(frozenset(values), "in")
            except TypeError:
                members = self.const(tuple(values), "in")
            return Code(f"(False if ({t} := {a.text}) is None else {t} in {members})", T.BOOLEAN)
        if same:
            members = "(" + ", ".join(y.text for _, y in tests) + ",)"
            return Code(f"(False if ({t} := {a.text}) is None else {t} in {members})", T.BOOLEAN)
        checks = " or ".join(f"{x.text} == {y.text}" for x, y in tests)
        return Code(f"(False if ({t} := {a.text}) is None else ({checks}))", T.BOOLEAN)

    def _java_equals(self, x: str, y: str, t: T.SqlType) -> str:
        """``x.equals(y)`` (``y`` may be NULL) for two values of type ``t`` that holds a DOUBLE."""
        rt = self._rt()
        if t == T.DOUBLE:
            return f"{rt}.double_equals({x}, {y})"
        ty = self.const(t, "ty")
        return f"{rt}.java_equals({x}, {ty}, {y}, {ty})"

    def _as(self, c: Code, target: T.SqlType) -> Code:
        """``c`` (never NULL) converted to ``target``."""
        if c.type == target:
            return c
        conv = casts.converter(c.type, target)
        if conv is None:
            return Code(c.text, target)
        if target == T.DOUBLE and T.is_numeric(c.type):
            return Code(f"float({c.text})", target)
        return Code(f"{self.const(conv, 'cv')}({c.text})", target)

    def _g_Like(self, e: B.Like) -> Code:
        a, p = self.gen(e.operand), self.gen(e.pattern)
        rt = _runtime
        null = self._null_boolean()  # a NULL value or pattern fails the expression, as ksqlDB's LikeEvaluator
        if p.const and p.value is not None:
            rx = self.const(re.compile(rt.like_regex(p.value, e.escape)), "re")
            return Code(self.guard([a], rx + ".match({0}) is not None", null), T.BOOLEAN)
        self.consts["_re"] = re
        escape = _in_body(repr(e.escape))
        return Code(self.guard([a, p], f"_re.match({self._rt()}.like_regex({{1}}, {escape}), {{0}}) is not None",
                               null), T.BOOLEAN)

    # ------------------------------------------------------------------ structures
    def _g_Subscript(self, e: B.Subscript) -> Code:
        base, idx = self.gen(e.base), self.gen(e.index)
        if isinstance(e.base.type, T.Array):
            if idx.const and type(idx.value) is int and idx.value != 0:
                # a literal index: ``_rt.array_index`` inlined (1-based, negative from the end, else NULL)
                i = idx.value
                at = i - 1 if i > 0 else i
                return Code(self.guard([base], f"({{0}}[{at}] if len({{0}}) >= {abs(i)} else None)"), e.type)
            return Code(self.guard([base, idx], f"{self._rt()}.array_index({{0}}, {{1}})"), e.type)
        return Code(self.guard([base, idx], "{0}.get({1})"), e.type)

    def _g_Dereference(self, e: B.Dereference) -> Code:
        return Code(self.guard([self.gen(e.base)], "{0}.get(" + _in_body(repr(e.field)) + ")"), e.type)

    def _element(self, ctor: B.ArrayCtor | B.MapCtor | B.StructCtor, e: B.Expr, what: str) -> str:
        """One element of a constructor. ksqlDB's ``ksql.nested.error.set.null`` (true): on the slow path a
        failing element is NULL on its own (logged ``Error processing <what>``), the rest of the value kept;
        false: the element is not isolated - its error fails the expression around it (the binder left the
        calls and CASTs inside it unisolated too), so the column is NULL."""
        if not ctor.element_errors_null:
            return self.text(e)
        return self._safe_call(NestedSite(what), self.text(e))

    def _g_ArrayCtor(self, e: B.ArrayCtor) -> Code:
        return Code("[" + ", ".join(self._element(e, i, "array item") for i in e.items) + "]", e.type)

    def _g_MapCtor(self, e: B.MapCtor) -> Code:
        return Code("{" + ", ".join(f"{self._element(e, k, 'map key')}: {self._element(e, v, 'map value')}"
                                    for k, v in e.entries) + "}", e.type)

    def _g_StructCtor(self, e: B.StructCtor) -> Code:
        return Code("{" + ", ".join(f"{n!r}: {self._element(e, v, 'struct field')}" for n, v in e.fields) + "}",
                    e.type)

    def _g_Case(self, e: B.Case) -> Code:
        """The first TRUE condition's value; branches are evaluated lazily. A NULL condition fails the
        expression, as ksqlDB's unboxing of the WHEN operand does."""
        code = self.text(e.default) if e.default is not None else "None"
        for n, (cond, value) in enumerate(reversed(e.whens)):
            if n and n % _CASE_CHUNK == 0:
                code = self._hoist(code)
            c = self.gen(cond)
            if c.const and c.value is None:  # WHEN NULL: the unboxing fails whenever this WHEN is reached
                code = f"({self._null_boolean()})"
            elif c.const or isinstance(cond, B.Comparison | B.Between | B.InList | B.IsNull):  # never NULL
                code = f"({self.text(value)} if {c.text} else {code})"
            else:
                t = self.tmp()
                code = (f"({self.text(value)} if ({t} := {c.text}) else "
                        f"{self._null_boolean()} if {t} is None else {code})")
        return Code(code, e.type)

    # ------------------------------------------------------------------ functions
    def _g_Lambda(self, e: B.Lambda) -> Code:
        self._n += 1
        names = [f"_l{self._n}_{j}" for j in range(len(e.params))]
        self._lambdas.append(dict(zip(e.params, names, strict=True)))
        try:
            body = self.text(e.body)
        finally:
            self._lambdas.pop()
        return Code(f"(lambda {', '.join(names)}: {body})", e.type)

    def _g_Call(self, e: B.Call) -> Code:
        if e.fn.kind is B.FunctionKind.TABLE:
            var = self.table_elements.get(e)
            if var is None:
                raise KeyError(f"table function {e} is not expanded here")
            return Code(var, e.type)
        resolved = e.fn.resolve(self.registry)
        impl = self.const(resolved.impl, "f")
        parts = [self.gen(a) for a in e.args]
        if e.null_on_null and parts:
            body = inline_body(resolved.impl, [(p.const, p.value) for p in parts])
            if body is None:
                body = impl + "(" + ", ".join("{" + str(i) + "}" for i in range(len(parts))) + ")"
            code = self.guard(parts, body.replace("{impl}", impl))
        else:
            code = impl + "(" + ", ".join(p.text for p in parts) + ")"
            if self.batch is not None and resolved.batch_impl is not None:
                # a vectorized function: called once per batch (ksqlpy.plan.batch_calls), this reads its result
                code = self.batch.call(resolved.batch_impl, self.const, [p.text for p in parts], code)
        return Code(self._safe_call(FunctionCallSite(e.fn.name), code) if e.errors_null else code, e.type)

    def table_call(self, e: B.Call) -> str:
        """Code computing a table function call's list of elements (called once per row)."""
        impl = self.const(e.fn.resolve(self.registry).impl, "tf")
        code = f"{impl}({', '.join(self.text(a) for a in e.args)})"
        return self._safe_call(FunctionCallSite(e.fn.name, table=True), code)

    def _safe_call(self, site: FunctionCallSite | NestedSite, code: str) -> str:
        """A call on the slow path: a failure is logged naming the function (``FunctionCallSite``)."""
        return f"_s({self.const(site, 'fn')}, lambda: {code})" if self.safe else code


def evaluate(e: B.Expr, registry: FunctionRegistry) -> Any:
    """The value of an expression without columns (literals, arithmetic, functions of constants)."""
    consts: dict[str, Any] = {}
    code = Codegen((), consts, registry).text(e)
    return eval(compile(code, "<ksqlpy-constant>", "eval"), consts)  # noqa: S307 - generated from a bound tree


def _holds_double(t: T.SqlType) -> bool:
    """Whether ``t`` is DOUBLE or has a DOUBLE inside (where Java's equals and Python's == part ways)."""
    return T.holds(t, lambda x: x == T.DOUBLE)


def _in_body(text: str) -> str:
    """Python text from the user's SQL (a quoted name or character) put into a ``guard`` body, which is a
    format string: its braces doubled, so a field named ``a{0}`` is not an operand slot."""
    return text.replace("{", "{{").replace("}", "}}")
