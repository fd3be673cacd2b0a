"""Comparisons and logical predicates: ksqlDB's rules for comparable types, NULL operands,
IN lists, BETWEEN and LIKE."""

from __future__ import annotations

import re

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError, KsqlTypeError
from ksqlpy.expr import casts
from ksqlpy.expr import runtime as _expr_runtime
from ksqlpy.expr.coercion import _common
from ksqlpy.expr.compiled import Compiled
from ksqlpy.expr.format import format_expression as _sql


def _runtime():  # type: ignore[no-untyped-def]
    return _expr_runtime


_SQL_OPS = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


class PredicateMixin:
    """ExprCompiler methods for comparison and boolean operators."""

    def _comparable(self, node: exp.Expression, a: Compiled, b: Compiled,
                    in_list: bool = False) -> tuple[Compiled, Compiled]:
        """Make two operands comparable. String literals coerce to the other side's type (ksqlDB's
        literal coercion: ``ID = '10'``, ``FLAG IN ('true', 'y')``); other mismatches are errors."""
        a = self._coerce_literal(a, b.type, node.this)
        b = self._coerce_literal(b, a.type, node.expression)
        ta, tb = a.type, b.type
        if isinstance(ta, T.NullType) or isinstance(tb, T.NullType) or ta == tb:
            return a, b
        if T.is_numeric(ta) and T.is_numeric(tb):
            if T.DOUBLE in (ta, tb):
                return self.coerce(a, T.DOUBLE), self.coerce(b, T.DOUBLE)
            return a, b  # Python compares int and Decimal exactly
        temporal = (T.TIMESTAMP, T.DATE, T.TIME)
        if ta in temporal and tb == T.STRING:
            return a, casts.cast_compiled(self, b, ta)
        if tb in temporal and ta == T.STRING:
            return casts.cast_compiled(self, a, tb), b
        if ta in (T.TIMESTAMP, T.DATE) and tb in (T.TIMESTAMP, T.DATE):
            return casts.cast_compiled(self, a, T.TIMESTAMP), casts.cast_compiled(self, b, T.TIMESTAMP)
        if ta.name == tb.name == "STRUCT" and _common([ta, tb]) is not None:
            return a, b  # structs of other shapes compare unequal, as in ksqlDB
        if ta.name == tb.name and ta.name in ("ARRAY", "MAP") and (
                T.can_implicitly_cast(ta, tb) or T.can_implicitly_cast(tb, ta)):
            return a, b
        if in_list:
            raise KsqlTypeError(f"operator does not exist: {ta} = {tb} ({_sql(node.expression)})\n"
                                "Hint: You might need to add explicit type casts.")
        raise KsqlTypeError(f"Cannot compare {_sql(node.this)} ({ta}) to {_sql(node.expression)} ({tb}) "
                            f"with {_op_name(node)}.")

    def _compare(self, node: exp.Binary, op: str) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        if isinstance(a.type, T.NullType) and isinstance(b.type, T.NullType):
            raise KsqlTypeError(f"Comparison with NULL not supported: NULL {_SQL_OPS[op]} NULL")
        if op in ("<", "<=", ">", ">=") and a.type.name in ("ARRAY", "MAP", "STRUCT", "BOOLEAN") and a.type != T.BOOLEAN:
            raise KsqlTypeError(f"Cannot compare {a.type} with {op}")
        # ksqlDB's comparisons are FALSE, not NULL, when an operand is NULL
        body = self._guard([a, b], "{0} " + op + " {1}")
        if body.startswith("(None if "):
            body = "(False" + body[len("(None"):]
        elif body == "None":
            body = "False"
        return Compiled(body, T.BOOLEAN)

    def _c_EQ(self, node: exp.EQ) -> Compiled:
        return self._compare(node, "==")

    def _c_NEQ(self, node: exp.NEQ) -> Compiled:
        return self._compare(node, "!=")

    def _c_GT(self, node: exp.GT) -> Compiled:
        return self._compare(node, ">")

    def _c_GTE(self, node: exp.GTE) -> Compiled:
        return self._compare(node, ">=")

    def _c_LT(self, node: exp.LT) -> Compiled:
        return self._compare(node, "<")

    def _c_LTE(self, node: exp.LTE) -> Compiled:
        return self._compare(node, "<=")

    def _c_NullSafeEQ(self, node: exp.NullSafeEQ) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        return Compiled(f"({a.code} == {b.code})", T.BOOLEAN)

    def _c_NullSafeNEQ(self, node: exp.NullSafeNEQ) -> Compiled:
        a, b = self._comparable(node, self.compile(node.this), self.compile(node.expression))
        return Compiled(f"({a.code} != {b.code})", T.BOOLEAN)

    def _bool(self, node: exp.Expression) -> Compiled:
        c = self.compile(node)
        if c.type != T.BOOLEAN and not isinstance(c.type, T.NullType):
            raise KsqlTypeError(f"Logical operand must be BOOLEAN: {_sql(node)} is {c.type}")
        return c

    def _c_And(self, node: exp.And) -> Compiled:
        a, b = self._bool(node.this), self._bool(node.expression)
        self.consts["_rt"] = _runtime()
        ta = self.tmp()
        # short-circuit on False like Java; NULL AND FALSE is FALSE
        return Compiled(f"(False if ({ta} := {a.code}) is False else _rt.sql_and({ta}, {b.code}))", T.BOOLEAN)

    def _c_Or(self, node: exp.Or) -> Compiled:
        a, b = self._bool(node.this), self._bool(node.expression)
        self.consts["_rt"] = _runtime()
        ta = self.tmp()
        return Compiled(f"(True if ({ta} := {a.code}) is True else _rt.sql_or({ta}, {b.code}))", T.BOOLEAN)

    def _c_Not(self, node: exp.Not) -> Compiled:
        a = self._bool(node.this)
        return Compiled(self._guard([a], "not {0}"), T.BOOLEAN)

    def _c_Is(self, node: exp.Is) -> Compiled:
        a = self.compile(node.this)
        if isinstance(node.expression, exp.Null):
            return Compiled(f"({a.code} is None)", T.BOOLEAN)
        b = self.compile(node.expression)
        return Compiled(f"({a.code} is {b.code})", T.BOOLEAN)

    def _c_In(self, node: exp.In) -> Compiled:
        a = self.compile(node.this)
        t = self.tmp()
        operand = Compiled(t, a.type)
        items = [self.compile(e) for e in node.expressions]
        pairs = []
        acc = operand  # ksqlDB widens the operand's type item by item and reports errors against the widened type
        for e, i in zip(node.expressions, items, strict=True):
            _, item = self._comparable(exp.EQ(this=node.this, expression=e), acc, i, in_list=True)
            # each item is compared with the operand made comparable to that item alone (a DECIMAL
            # operand meets a DOUBLE item as a DOUBLE, an INT item as itself)
            pairs.append(self._comparable(exp.EQ(this=node.this, expression=e), operand, item, in_list=True))
            if T.is_numeric(acc.type) and T.is_numeric(item.type):
                acc = Compiled(acc.code, T.widen_numeric(acc.type, item.type), acc.literal, acc.value)
        same = all(p[0].code == t for p in pairs)
        if same and all(p[1].literal for p in pairs):
            vals = [p[1].value for p in pairs if p[1].value is not None]
            try:
                lit = self.const(frozenset(vals), "in")
            except TypeError:
                lit = self.const(tuple(vals), "in")
            return Compiled(f"(None if ({t} := {a.code}) is None else {t} in {lit})", T.BOOLEAN)
        if same:
            lst = "(" + ", ".join(p[1].code for p in pairs) + ",)"
            return Compiled(f"(None if ({t} := {a.code}) is None else {t} in {lst})", T.BOOLEAN)
        tests = " or ".join(f"{x.code} == {y.code}" for x, y in pairs)
        return Compiled(f"(None if ({t} := {a.code}) is None else ({tests}))", T.BOOLEAN)

    def _c_Between(self, node: exp.Between) -> Compiled:
        a = self.compile(node.this)
        lo, hi = self.compile(node.args["low"]), self.compile(node.args["high"])
        a1, lo = self._comparable(exp.GTE(this=node.this, expression=node.args["low"]), a, lo)
        a2, hi = self._comparable(exp.LTE(this=node.this, expression=node.args["high"]), a, hi)
        return Compiled(self._guard([a1, lo, hi], "{1} <= {0} <= {2}"), T.BOOLEAN)

    def _like(self, node: exp.Expression, escape: str | None) -> Compiled:
        a = self.compile(node.this)
        p = self.compile(node.expression)
        if a.type != T.STRING and not isinstance(a.type, T.NullType):
            raise KsqlTypeError(f"LIKE requires a STRING operand, got {a.type}")
        rt = _runtime()
        if p.literal:
            if p.value is None:
                return Compiled("None", T.BOOLEAN)
            rx = self.const(re.compile(rt.like_regex(p.value, escape)), "re")
            return Compiled(self._guard([a], rx + ".match({0}) is not None"), T.BOOLEAN)
        self.consts["_rt"] = rt
        self.consts["_re"] = re
        esc = repr(escape)
        return Compiled(self._guard([a, p], "_re.match(_rt.like_regex({1}, " + esc + "), {0}) is not None"), T.BOOLEAN)

    def _c_Like(self, node: exp.Like) -> Compiled:
        return self._like(node, None)

    def _c_Escape(self, node: exp.Escape) -> Compiled:
        like = node.this
        esc = self.compile(node.expression)
        if not esc.literal or not isinstance(esc.value, str) or len(esc.value) != 1:
            raise KsqlStatementError("LIKE ESCAPE must be a single character literal")
        return self._like(like, esc.value)

    # ------------------------------------------------------------------ conditional


def _op_name(node: exp.Expression) -> str:
    return {"EQ": "EQUAL", "NEQ": "NOT_EQUAL", "GT": "GREATER_THAN", "GTE": "GREATER_THAN_OR_EQUAL",
            "LT": "LESS_THAN", "LTE": "LESS_THAN_OR_EQUAL"}.get(type(node).__name__, type(node).__name__)
