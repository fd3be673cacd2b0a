"""Expressions back to ksql text, as ksqlDB prints them in messages, DESCRIBE and EXPLAIN."""

from __future__ import annotations

from sqlglot import exp

from ksqlpy.grammar.ast import Cast, Dereference, FunctionCall, MapConstructor, StructConstructor, UnaryPlus
from ksqlpy.types import quote_ident

_BINARY = {
    exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%", exp.EQ: "=", exp.NEQ: "<>",
    exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.And: "AND", exp.Or: "OR", exp.DPipe: "||",
    exp.NullSafeEQ: "IS NOT DISTINCT FROM", exp.NullSafeNEQ: "IS DISTINCT FROM",
}


def format_expression(node: exp.Expression) -> str:
    f = format_expression
    op = _BINARY.get(type(node))
    if op is not None:
        return f"({f(node.this)} {op} {f(node.expression)})"
    if isinstance(node, exp.Column):
        if isinstance(node.this, exp.Star):
            return f"{quote_ident(node.table)}.*" if node.table else "*"
        name = quote_ident(node.this.name if isinstance(node.this, exp.Identifier) else node.name)
        return f"{quote_ident(node.table)}.{name}" if node.table else name
    if isinstance(node, exp.Identifier):
        return quote_ident(node.name)
    if isinstance(node, exp.Star):
        return "*"
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "'" + node.this.replace("'", "''") + "'"
        # a number as ksqlDB's ExpressionFormatter prints its literal node, not as written: Integer/Long
        # toString, BigDecimal.toString (1E-7, 12.50), Double.toString (1000.0, 1.0E10)
        from ksqlpy.expr.printer import format_literal
        from ksqlpy.expr.type_rules import literal_type
        from ksqlpy.grammar.literals import big_decimal_of

        value, t = literal_type(node.this)
        exact = big_decimal_of(node)  # DECIMAL '1e3' is the BigDecimal 1E+3, typed DECIMAL(4, 0)
        return format_literal(value if exact is None else exact, t)
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Null):
        return "null"
    if isinstance(node, exp.Paren):
        return f(node.this)
    if isinstance(node, exp.Neg):
        from ksqlpy.expr.printer import negate_text

        return negate_text(f(node.this))
    if isinstance(node, UnaryPlus):
        return f"+{f(node.this)}"
    if isinstance(node, exp.Not):
        if isinstance(node.this, exp.Is) and not node.args.get("keyword"):
            return f"({f(node.this.this)} IS NOT NULL)"
        return f"(NOT {f(node.this)})"
    if isinstance(node, exp.Is):
        return f"({f(node.this)} IS NULL)"
    if isinstance(node, FunctionCall):
        return f"{node.fname}({', '.join(f(a) for a in node.call_args)})"
    if isinstance(node, Dereference):
        field = node.args["field"]
        return f"{f(node.this)}->{field if field == '*' else quote_ident(field)}"
    if isinstance(node, Cast):
        return f"CAST({f(node.this)} AS {node.args['to']})"
    if isinstance(node, exp.Bracket):
        return f"{f(node.this)}[{f(node.expressions[0])}]"
    if isinstance(node, exp.Array):
        return "ARRAY[" + ", ".join(f(e) for e in node.expressions) + "]"
    if isinstance(node, MapConstructor):
        pairs = zip(node.args.get("keys") or [], node.args.get("values") or [], strict=True)
        return "MAP(" + ", ".join(f"{f(k)}:={f(v)}" for k, v in pairs) + ")"
    if isinstance(node, StructConstructor):
        pairs = zip(node.args.get("names") or [], node.args.get("values") or [], strict=True)
        return "STRUCT(" + ", ".join(f"{quote_ident(k)}:={f(v)}" for k, v in pairs) + ")"
    if isinstance(node, exp.In):
        return f"({f(node.this)} IN ({', '.join(f(e) for e in node.expressions)}))"
    if isinstance(node, exp.Between):
        return f"({f(node.this)} BETWEEN {f(node.args['low'])} AND {f(node.args['high'])})"
    if isinstance(node, exp.Like):
        return f"({f(node.this)} LIKE {f(node.expression)})"
    if isinstance(node, exp.Escape):
        return f"{f(node.this)[:-1]} ESCAPE {f(node.expression)})"
    if isinstance(node, exp.Case):
        parts = ["CASE"] if node.args.get("this") is None else [f"CASE {f(node.this)}"]
        for i in node.args.get("ifs") or []:
            parts.append(f"WHEN {f(i.this)} THEN {f(i.args['true'])}")
        if node.args.get("default") is not None:
            parts.append(f"ELSE {f(node.args['default'])}")
        parts.append("END")
        return "(" + " ".join(parts) + ")"
    if isinstance(node, exp.Lambda):
        params = [p.name for p in node.expressions]
        head = params[0] if len(params) == 1 else "(" + ", ".join(params) + ")"
        return f"({head}) => {f(node.this)}" if len(params) == 1 else f"{head} => {f(node.this)}"
    if type(node).__name__ == "IntervalUnit":
        return str(node.args.get("unit"))
    if isinstance(node, exp.AtTimeZone):
        return f"{f(node.this)} AT TIME ZONE {f(node.args['zone'])}"
    try:
        return node.sql()
    except Exception:  # noqa: BLE001 - a node the generator cannot print: show its structure
        return repr(node)
