"""ARRAY[...], MAP(...), STRUCT(...) constructors and element access (``s->f``, ``a[i]``, ``m[k]``)."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy import types as T
from ksqlpy.errors import KsqlStatementError, KsqlTypeError
from ksqlpy.expr import runtime as _expr_runtime
from ksqlpy.expr.compiled import Compiled
from ksqlpy.expr.format import format_expression as _sql
from ksqlpy.grammar.ast import Dereference, MapConstructor, StructConstructor


def _runtime():  # type: ignore[no-untyped-def]
    return _expr_runtime


class ConstructorMixin:
    """ExprCompiler methods building and reading containers."""

    def _c_Dereference(self, node: Dereference) -> Compiled:
        base = self.compile(node.this)
        name = node.args["field"]
        if not isinstance(base.type, T.Struct):
            raise KsqlTypeError(f"Can't find field {name} in non-struct type {base.type}")
        ft = base.type.field(name)
        if ft is None:
            raise KsqlStatementError(f"Could not find field '{name}' in '{_sql(node.this)}'.")
        return Compiled(self._guard([base], "{0}.get(" + repr(name) + ")"), ft)

    def _c_Bracket(self, node: exp.Bracket) -> Compiled:
        base = self.compile(node.this)
        idx = self.compile(node.expressions[0])
        if isinstance(base.type, T.Array):
            if not T.is_integral(idx.type):
                raise KsqlTypeError(f"Array index must be INT or BIGINT, got {idx.type}")
            self.consts["_rt"] = _runtime()
            return Compiled(self._guard([base, idx], "_rt.array_index({0}, {1})"), base.type.element)
        if isinstance(base.type, T.Map):
            idx = self.coerce(idx, base.type.key) if T.can_implicitly_cast(idx.type, base.type.key) else idx
            return Compiled(self._guard([base, idx], "{0}.get({1})"), base.type.value)
        raise KsqlTypeError(f"Subscript expression requires an ARRAY or MAP, got {base.type}")

    def _c_Array(self, node: exp.Array) -> Compiled:
        items = [self.compile(e) for e in node.expressions]
        if not items:
            raise KsqlStatementError("Array constructor cannot be empty. Please supply at least one element (see "
                                     "https://github.com/confluentinc/ksql/issues/4239).")
        et, cast = self.unify(items)
        if isinstance(et, T.NullType):
            raise KsqlStatementError("Cannot construct an array with all NULL elements (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL value to the desired type.")
        return Compiled("[" + ", ".join(c.code for c in cast) + "]", T.Array(et))

    def _c_MapConstructor(self, node: MapConstructor) -> Compiled:
        keys = [self.compile(k) for k in node.args.get("keys") or []]
        vals = [self.compile(v) for v in node.args.get("values") or []]
        if not keys:
            raise KsqlStatementError("Map constructor cannot be empty. Please supply at least one key value pair "
                                     "(see https://github.com/confluentinc/ksql/issues/4239).")
        kt, kc = self.unify(keys)
        vt, vc = self.unify(vals)
        if isinstance(kt, T.NullType):
            raise KsqlStatementError("Cannot construct a map with all NULL keys (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL key to the desired type.")
        if isinstance(vt, T.NullType):
            raise KsqlStatementError("Cannot construct a map with all NULL values (see "
                                     "https://github.com/confluentinc/ksql/issues/4239). As a workaround, "
                                     "you may cast a NULL value to the desired type.")
        pairs = ", ".join(f"{k.code}: {v.code}" for k, v in zip(kc, vc, strict=True))
        return Compiled("{" + pairs + "}", T.Map(kt, vt))

    def _c_StructConstructor(self, node: StructConstructor) -> Compiled:
        names = node.args.get("names") or []
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise KsqlStatementError(f"Duplicate field names found in STRUCT: '{dup}'")
        vals = [self.compile(v) for v in node.args.get("values") or []]
        fields = []
        parts = []
        for n, v in zip(names, vals, strict=True):
            vt = v.type if not isinstance(v.type, T.NullType) else T.STRING
            fields.append((n, vt))
            parts.append(f"{n!r}: {v.code}")
        return Compiled("{" + ", ".join(parts) + "}", T.Struct(tuple(fields)))
