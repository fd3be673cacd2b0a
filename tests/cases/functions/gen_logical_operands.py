"""AND, OR and NOT as ksqlDB generates them: Java's ``&&``, ``||`` and ``!`` over the operands' code (from memory
of SqlToJavaVisitor.visitLogicalBinaryExpression / visitNotExpression / visitNullLiteral). An operand that is not
BOOLEAN - an INTEGER, a STRING, or the bare NULL literal, whose code is Java's ``null`` - does not compile (Janino:
'Not a boolean expression'): refused when the expression is generated, ``Invalid <Predicate|Select|Group By|
SelectKey>: ...``, after every typing error of the statement; a WHERE whose type is NULL (``OK OR NULL``) is refused
first as a NULL expression. A typed NULL (``CAST(NULL AS BOOLEAN)``) compiles; at run time a NULL Boolean is
unboxed and fails the expression (NULL column or dropped row + processing log) unless Java's short circuit skips
it (``FALSE AND x``, ``TRUE OR x``); CASE WHEN unboxes its condition the same way; comparisons with a NULL value
are false, so ``NOT (x = NULL-valued)`` is true.

Writes tests/cases/functions/logical-operands.json: ``python tests/cases/functions/gen_logical_operands.py``.
"""
from __future__ import annotations

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import write_cases  # noqa: E402

EXC = "io.confluent.ksql.util.KsqlStatementException"
S = ("CREATE STREAM S (K STRING KEY, OK BOOLEAN, N INT, T STRING) "
     "WITH (kafka_topic='s', value_format='JSON');")
TB = ("CREATE TABLE TB (K STRING PRIMARY KEY, OK BOOLEAN, N INT) "
      "WITH (kafka_topic='tb', value_format='JSON');")


def null_operand(ctx: str) -> str:
    return f"Invalid {ctx}: Logical operand must be BOOLEAN: null is NULL."


def refused(name: str, statements: list[str], message: str) -> dict[str, Any]:
    return {"name": name, "statements": statements, "expectedException": {"type": EXC, "message": message}}


# a NULL literal operand in each position, each clause
NULL_SHAPES = ["NULL OR OK", "NULL AND OK", "NOT NULL", "NOT (NULL)", "OK AND (NULL OR OK)", "NOT (NULL AND OK)",
               "(NULL OR OK) IS NULL", "N > 1 OR NOT NULL"]


def cases() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for shape in NULL_SHAPES:
        where = shape if "IS NULL" not in shape else f"({shape}) = TRUE"
        out.append(refused(f"WHERE {shape} - a NULL literal operand does not compile",
                           [S, f"CREATE STREAM O AS SELECT K, N FROM S WHERE {where};"], null_operand("Predicate")))
        out.append(refused(f"SELECT {shape} - a NULL literal operand does not compile",
                           [S, f"CREATE STREAM O AS SELECT K, {shape} AS X FROM S;"], null_operand("Select")))
    out += [
        refused("HAVING NULL OR COUNT(*) > 1", [S, "CREATE TABLE O AS SELECT K, COUNT(*) AS C FROM S GROUP BY K "
                                                   "HAVING NULL OR COUNT(*) > 1;"], null_operand("Predicate")),
        refused("GROUP BY (NOT NULL)", [S, "CREATE TABLE O WITH (format='JSON') AS SELECT NOT NULL AS G, "
                                           "COUNT(*) AS C FROM S GROUP BY (NOT NULL);"], null_operand("Group By")),
        refused("PARTITION BY (NULL OR OK)", [S, "CREATE STREAM O AS SELECT * FROM S PARTITION BY (NULL OR OK);"],
                null_operand("SelectKey")),
        refused("a table's WHERE NULL AND OK", [TB, "CREATE TABLE O AS SELECT K, N FROM TB WHERE NULL AND OK;"],
                null_operand("Predicate")),
        refused("a transient push query's WHERE NOT NULL", [S, "SELECT * FROM S WHERE NOT NULL EMIT CHANGES;"],
                null_operand("Predicate")),
        refused("INSERT INTO ... WHERE NULL OR OK",
                [S, "CREATE STREAM O AS SELECT K, N FROM S;", "INSERT INTO O SELECT K, N FROM S WHERE NULL OR OK;"],
                null_operand("Predicate")),
        # the filter's own type first: a NULL expression
        refused("WHERE OK OR NULL - a NULL expression before its NULL operand",
                [S, "CREATE STREAM O AS SELECT K, N FROM S WHERE OK OR NULL;"],
                "Invalid Predicate: NULL expression not supported."),
        # typing errors come before code generation
        refused("SELECT NOT NULL with N + 'x' - the typing error first",
                [S, "CREATE STREAM O AS SELECT K, NOT NULL AS A, N + 'x' AS B FROM S;"],
                "Error processing expression: (N + 'x'). Unsupported arithmetic types. INTEGER STRING"),
        refused("SELECT OK OR NULL - a projection of no type (typing)",
                [S, "CREATE STREAM O AS SELECT K, OK OR NULL AS X FROM S;"],
                "Can't infer a type of null. Please explicitly cast it to a required type, e.g. CAST(null AS VARCHAR)."),
        # other non-BOOLEAN operands
        refused("WHERE N OR OK - an INTEGER operand", [S, "CREATE STREAM O AS SELECT K, N FROM S WHERE N OR OK;"],
                "Invalid Predicate: Logical operand must be BOOLEAN: N is INTEGER."),
        refused("SELECT NOT T - a STRING operand", [S, "CREATE STREAM O AS SELECT K, NOT T AS X FROM S;"],
                "Invalid Select: Logical operand must be BOOLEAN: T is STRING."),
        refused("WHERE OK AND T - typed STRING, not a boolean filter",
                [S, "CREATE STREAM O AS SELECT K, N FROM S WHERE OK AND T;"],
                "Type error in WHERE expression: Should evaluate to boolean but is (OK AND T) (STRING) instead."),
    ]

    def rec(key: str, ok: bool | None, n: int | None) -> dict[str, Any]:
        return {"topic": "s", "key": key, "value": {"OK": ok, "N": n, "T": "t"}}

    rows = [rec("t", True, 1), rec("f", False, 2), rec("n", None, 3)]
    # run time: Java's unboxing and short circuit
    select = ("OK AND FALSE AS A, FALSE AND OK AS B, TRUE OR OK AS C, OK OR TRUE AS D, NOT OK AS E, "
              "CAST(NULL AS BOOLEAN) AND FALSE AS F, FALSE AND CAST(NULL AS BOOLEAN) AS G, "
              "CASE WHEN OK THEN 1 ELSE 0 END AS H, CASE WHEN N = 3 THEN 9 WHEN OK THEN 1 END AS I, "
              "OK IS NULL OR OK AS J, NOT (N = CAST(NULL AS INT)) AS L")

    def vals(ok: bool | None, n: int) -> dict[str, Any]:
        def java(f: Any) -> Any:
            try:
                return f()
            except TypeError:
                return None

        def unbox(b: bool | None) -> bool:
            if b is None:
                raise TypeError
            return b
        return {"A": java(lambda: unbox(ok) and False), "B": False, "C": True,
                "D": java(lambda: unbox(ok) or True), "E": java(lambda: not unbox(ok)), "F": None, "G": False,
                "H": java(lambda: 1 if unbox(ok) else 0), "I": 9 if n == 3 else java(lambda: 1 if unbox(ok) else None),
                "J": ok is None or ok, "L": True}
    out.append({
        "name": "a NULL BOOLEAN value fails &&, ||, ! and CASE WHEN unless short-circuited (NULL column)",
        "statements": [S, f"CREATE STREAM O AS SELECT K, {select} FROM S;"],
        "inputs": rows,
        "outputs": [{"topic": "O", "key": k, "value": vals(ok, n)} for k, ok, n in (("t", True, 1), ("f", False, 2),
                                                                                  ("n", None, 3))],
    })
    filters = [("OK OR N > 2", ["t"]),                # NULL || ... unboxes the NULL: n fails, dropped
               ("N > 2 OR OK", ["t", "n"]),           # true || ... short-circuits for n
               ("NOT OK", ["f"]),                      # n fails: dropped
               ("OK AND N > 0", ["t"]),
               ("N < 3 AND OK", ["t"]),               # false && ... short-circuits for n
               ("CAST(NULL AS BOOLEAN) OR N = 1", []),
               ("N = 1 OR CAST(NULL AS BOOLEAN)", ["t"])]
    for where, keys in filters:
        # P, every row: the rows O drops were read
        out.append({
            "name": f"WHERE {where} - a failing predicate drops the row",
            "statements": [S, f"CREATE STREAM O AS SELECT K, N FROM S WHERE {where};",
                           "CREATE STREAM P AS SELECT K, N FROM S;"],
            "inputs": rows,
            "outputs": [{"topic": "O", "key": k, "value": {"N": {"t": 1, "f": 2, "n": 3}[k]}} for k in keys]
            + [{"topic": "P", "key": k, "value": {"N": n}} for k, n in (("t", 1), ("f", 2), ("n", 3))],
        })
    return out


if __name__ == "__main__":
    write_cases(str(pathlib.Path(__file__).parent / "logical-operands.json"), __doc__, cases())
