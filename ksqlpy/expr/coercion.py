"""Literal coercion and element-type unification, as ksqlDB does them (CoercionUtil).

A string literal compared with (or listed next to) values of another type is read as that type:
``id = '10'``, ``flag IN ('yes')``, ``ARRAY[1, '2']``. Structs unify to the union of their fields.
"""

from __future__ import annotations

from decimal import Decimal as PyDecimal
from typing import Any

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlTypeError
from ksqlpy.expr import runtime as _expr_runtime
from ksqlpy.expr.compiled import Compiled
from ksqlpy.grammar.ast import MapConstructor, StructConstructor


def _runtime():  # type: ignore[no-untyped-def]
    return _expr_runtime


_NO = object()


def _common(types: list[T.SqlType]) -> T.SqlType | None:
    """common_type, with structs merged field-wise (ksqlDB widens STRUCTs to the union of their fields)."""
    structs = [t for t in types if isinstance(t, T.Struct)]
    if structs and len(structs) == len([t for t in types if not isinstance(t, T.NullType)]):
        fields: dict[str, T.SqlType] = {}
        for st in structs:
            for n, ft in st.fields:
                if n in fields:
                    merged = _common([fields[n], ft])
                    if merged is None:
                        return None
                    fields[n] = merged
                else:
                    fields[n] = ft
        return T.Struct(tuple(fields.items()))
    return T.common_type(types)


def _parse_literal(text: str, target: T.SqlType) -> Any:
    """A string literal's value as ``target`` (ksqlDB's literal coercion); ``_NO`` when not applicable."""
    s = text.strip()
    if target == T.BOOLEAN:
        low = s.lower()
        if low and ("true".startswith(low) or "yes".startswith(low)):
            return True
        if low and ("false".startswith(low) or "no".startswith(low)):
            return False
        raise KsqlTypeError(f'invalid input syntax for type BOOLEAN: "{text}".')
    if T.is_numeric(target):
        try:
            d = PyDecimal(s)
        except Exception:  # noqa: BLE001
            d = None
        if d is None or not d.is_finite():
            name = "DECIMAL" if isinstance(target, T.Decimal) else str(target)
            raise KsqlTypeError(f'invalid input syntax for type {name}: "{text}".')
        if target == T.DOUBLE:
            return float(d)
        if isinstance(target, T.Decimal):
            return d
        if d == d.to_integral_value():
            return int(d)
        return d
    return _NO



class CoercionMixin:
    """ExprCompiler methods for coercing literals to a target type."""

    def _coerce_literal(self, c: Compiled, target: T.SqlType, node: exp.Expression | None) -> Compiled:
        """A string literal (or a constructor of them) read as ``target``, as ksqlDB coerces literals."""
        if c.type == target or not isinstance(c.type, (T.Primitive, T.Decimal, T.Array, T.Map, T.Struct)):
            return c
        if target == T.STRING and c.literal and c.value is not None and isinstance(c.type, (T.Primitive, T.Decimal)):
            from ksqlpy import javatext

            text = javatext.java_str(c.value)
            return Compiled(repr(text), T.STRING, True, text)
        if c.literal and c.type == T.STRING and isinstance(c.value, str):
            v = _parse_literal(c.value, target)
            if v is _NO:
                return c
            if v is None:
                return Compiled("None", target, True, None)
            code = repr(v) if isinstance(v, (bool, int, float)) else self.const(v, "k")
            return Compiled(code, target, True, v)
        if node is None:
            return c
        if isinstance(target, T.Array) and isinstance(node, exp.Array) and isinstance(c.type, T.Array):
            items = [self._coerce_literal(self.compile(e), target.element, e) for e in node.expressions]
            if all(T.can_implicitly_cast(i.type, target.element) for i in items):
                return Compiled("[" + ", ".join(self.coerce(i, target.element).code for i in items) + "]", target)
        if isinstance(target, T.Map) and isinstance(node, MapConstructor) and isinstance(c.type, T.Map):
            ks = [self._coerce_literal(self.compile(k), target.key, k) for k in node.args.get("keys") or []]
            vs = [self._coerce_literal(self.compile(v), target.value, v) for v in node.args.get("values") or []]
            if all(T.can_implicitly_cast(k.type, target.key) for k in ks) and all(
                    T.can_implicitly_cast(v.type, target.value) for v in vs):
                pairs = ", ".join(f"{self.coerce(k, target.key).code}: {self.coerce(v, target.value).code}"
                                  for k, v in zip(ks, vs, strict=True))
                return Compiled("{" + pairs + "}", target)
        if isinstance(target, T.Struct) and isinstance(node, StructConstructor) and isinstance(c.type, T.Struct):
            given = dict(zip(node.args.get("names") or [], node.args.get("values") or [], strict=True))
            if set(given) <= {n for n, _ in target.fields}:
                # fields matched by name, in any order; a field not given is NULL (a field the target
                # lacks leaves the constructor as it is: it compares unequal)
                parts = []
                for n, ft in target.fields:
                    if n not in given:
                        parts.append(f"{n!r}: None")
                        continue
                    cv = self._coerce_literal(self.compile(given[n]), ft, given[n])
                    if not T.can_implicitly_cast(cv.type, ft) and not isinstance(cv.type, T.NullType):
                        return c
                    parts.append(f"{n!r}: {self.coerce(cv, ft).code}")
                return Compiled("{" + ", ".join(parts) + "}", target)
        return c

    def unify(self, items: list[Compiled]) -> tuple[T.SqlType, list[Compiled]]:
        """The element type of a constructor (ARRAY[...], MAP keys/values) and the items cast to it.

        As ksqlDB does: the type comes from the non-literal items (structs merge their fields), literals
        then coerce to it ('10' -> 10, 10 -> '10', 'yes' -> true); numeric strings may widen it to DECIMAL.
        """
        exprs = [i for i in items if not i.literal and not isinstance(i.type, T.NullType)]
        lits = [i for i in items if i.literal and i.value is not None]
        base = _common([i.type for i in exprs]) if exprs else None
        if base is None and exprs:
            raise KsqlTypeError("invalid input syntax for type ARRAY: elements must share a type: "
                                + ", ".join(str(i.type) for i in items))
        if base is None:
            non_str = [i.type for i in lits if i.type != T.STRING]
            base = _common(non_str) if non_str else (T.STRING if lits else T.NULL)
            if base is None:
                base = T.STRING
        if T.is_numeric(base):
            for i in lits:
                if i.type == T.STRING and isinstance(i.value, str):
                    v = _parse_literal(i.value, base)
                    if isinstance(v, PyDecimal) or "e" in i.value.lower() or "." in i.value:
                        d = PyDecimal(i.value.strip())
                        scale = max(-d.as_tuple().exponent, 0)  # type: ignore[operator]
                        base = T.widen_numeric(base, T.Decimal(max(len(d.as_tuple().digits), scale, 1), scale))
        out = []
        for i in items:
            c = self._coerce_literal(i, base, None) if i.literal else i
            if not isinstance(c.type, T.NullType) and not T.can_implicitly_cast(c.type, base):
                if isinstance(base, T.Struct) and isinstance(c.type, T.Struct):
                    out.append(Compiled(self._struct_widen(c, base), base))
                    continue
                raise KsqlTypeError(f"invalid input syntax for type {base}: {c.code}")
            out.append(self.coerce(c, base) if not isinstance(c.type, T.NullType) else Compiled("None", base, True))
        return base, out

    def _struct_widen(self, c: Compiled, target: T.Struct) -> str:
        names = [n for n, _ in target.fields]
        t = self.tmp()
        return f"(None if ({t} := {c.code}) is None else {{n: {t}.get(n) for n in {names!r}}})"
