"""Which overload a call with numeric and NULL arguments resolves to, as ksqlDB's UdfIndex decides it (from memory
of UdfIndex.getFunction and Node::compare): the overloads that fit without any implicit cast are the candidates (a
NULL fits every parameter); only if there are none, the ones that fit with casts (INT -> BIGINT -> DECIMAL ->
DOUBLE, never narrowing). Among the candidates a non-variadic overload beats a variadic one, then more declared
parameters win; two best candidates that tie are "ambiguous method parameters" - fewer casts do not decide, so
GREATEST(INT, BIGINT) and GREATEST(INT, DECIMAL) are ambiguous (BIGINT/DECIMAL/DOUBLE, DECIMAL/DOUBLE), ATAN2(INT,
BIGINT) too (BIGINT/DOUBLE), ROUND(INT, 1) (the DOUBLE and DECIMAL overloads), ABS(NULL) (every one),
GENERATE_SERIES(NULL, NULL) (INT and BIGINT) while GENERATE_SERIES(INT, BIGINT) has one candidate; a DOUBLE
argument leaves the DOUBLE overload alone. A resolved call gives what the call with its arguments explicitly cast
to the chosen overload's parameter types gives, compared as text (so an INT result is not a DOUBLE one).

The model below is this generator's own (the signatures as ksqlDB declares them, the rule above), not the engine's.
Writes tests/cases/functions/overload-ties.json: ``python tests/cases/functions/gen_overload_ties.py
tests/cases/functions/overload-ties.json`` after changing this file.
"""
import itertools
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "I INT, B BIGINT, DC DECIMAL(4, 2), D DOUBLE"
ROW = {"I": 2, "B": 3, "DC": 1.25, "D": 2.5}
ORDER = ["INT", "BIGINT", "DECIMAL", "DOUBLE"]  # the implicit widening order
ARG = {"INT": "I", "BIGINT": "B", "DECIMAL": "DC", "DOUBLE": "D", "NULL": "NULL"}
LISTED = {"INT": "INTEGER", "BIGINT": "BIGINT", "DECIMAL": "DECIMAL(4, 2)", "DOUBLE": "DOUBLE", "NULL": "null"}
CAST_TO = {("INT", "DECIMAL"): "DECIMAL(10, 0)", ("BIGINT", "DECIMAL"): "DECIMAL(19, 0)"}

Sig = tuple[tuple[str, ...], bool]  # parameter types, variadic (the last one repeats)


def plain(*params: str) -> Sig:
    return params, False


ALL4 = [plain(t) for t in ORDER]
NO_DECIMAL = [plain(t) for t in ("INT", "BIGINT", "DOUBLE")]
VARIADIC = [((t, t), True) for t in ORDER]
PAIRS = [plain(t, t) for t in ("INT", "BIGINT", "DOUBLE")]
FUNCTIONS: dict[str, tuple[list[Sig], list[int]]] = {  # numeric signatures, arities probed
    "GREATEST": (VARIADIC, [2, 3]),
    "LEAST": (VARIADIC, [2, 3]),
    "ABS": (ALL4, [1]),
    "SIGN": (ALL4, [1]),
    "CEIL": (ALL4, [1]),
    "FLOOR": (ALL4, [1]),
    "SQRT": (NO_DECIMAL, [1]),
    "EXP": (NO_DECIMAL, [1]),
    "ATAN2": (PAIRS, [2]),
    "POWER": (PAIRS, [2]),
    "LOG": (NO_DECIMAL + PAIRS, [1, 2]),
    "ROUND": (ALL4 + [plain("DOUBLE", "INT"), plain("DECIMAL", "INT")], [1, 2]),
    "TRUNC": (ALL4 + [plain("DOUBLE", "INT"), plain("DECIMAL", "INT")], [1, 2]),
    "GENERATE_SERIES": ([plain("INT", "INT"), plain("INT", "INT", "INT"), plain("BIGINT", "BIGINT"),
                         plain("BIGINT", "BIGINT", "INT")], [2, 3]),
}
TRIPLES = [("INT", "BIGINT", "DOUBLE"), ("INT", "DECIMAL", "NULL"), ("BIGINT", "NULL", "NULL"),
           ("NULL", "INT", "NULL"), ("DECIMAL", "DECIMAL", "NULL"), ("INT", "INT", "BIGINT"),
           ("NULL", "NULL", "NULL"), ("DOUBLE", "NULL", "INT"), ("INT", "BIGINT", "INT"), ("NULL", "NULL", "INT")]


def fits(arg: str, param: str, cast: bool) -> bool:
    return arg in ("NULL", param) or (cast and ORDER.index(arg) < ORDER.index(param))


def params_for(sig: Sig, n: int) -> list[str] | None:
    params, variadic = sig
    if variadic:
        return list(params[:-1]) + [params[-1]] * (n - len(params) + 1) if n >= len(params) - 1 else None
    return list(params) if n == len(params) else None


def resolve(sigs: list[Sig], args: tuple[str, ...]) -> list[str] | str:
    """The chosen overload's parameter types, or "ambiguous" / "none"."""
    for cast in (False, True):
        found = [(sig, ps) for sig in sigs if (ps := params_for(sig, len(args))) is not None
                 and all(fits(a, p, cast) for a, p in zip(args, ps, strict=True))]
        if not found:
            continue
        found.sort(key=lambda f: (0 if f[0][1] else 1, len(f[0][0])), reverse=True)
        best = found[0][0]
        if len(found) > 1 and (best[1], len(best[0])) == (found[1][0][1], len(found[1][0][0])):
            return "ambiguous"
        return found[0][1]
    return "none"


def cast_arg(arg: str, param: str) -> str:
    if arg in ("NULL", param):
        return ARG[arg]
    return f"CAST({ARG[arg]} AS {CAST_TO.get((arg, param), param)})"


def second(name: str, arg: str) -> str:
    """ROUND/TRUNC's second argument is a number of decimal places: small values keep the results exact (a
    DECIMAL or DOUBLE there never fits: no narrowing)."""
    return {"I": "1", "B": "CAST(1 AS BIGINT)"}.get(ARG[arg], ARG[arg]) \
        if name in ("ROUND", "TRUNC") else ARG[arg]


def call(name: str, args: tuple[str, ...], texts: list[str]) -> str:
    return f"{name}({', '.join(texts)})"


def arg_texts(name: str, args: tuple[str, ...]) -> list[str]:
    return [second(name, a) if i == 1 else ARG[a] for i, a in enumerate(args)]


def main() -> list[dict]:  # type: ignore[type-arg]
    tests: list[dict] = []  # type: ignore[type-arg]
    for name, (sigs, arities) in FUNCTIONS.items():
        probes: list[tuple[str, object]] = []
        for n in arities:
            combos = TRIPLES if n == 3 else list(itertools.product([*ORDER, "NULL"], repeat=n))
            for args in combos:
                texts = arg_texts(name, args)
                outcome = resolve(sigs, args)
                listed = ", ".join(LISTED[a] for a in args)
                if isinstance(outcome, list):
                    cast_texts = [t if a == "NULL" or a == p else
                                  f"CAST({t} AS {CAST_TO.get((a, p), p)})"
                                  for t, a, p in zip(texts, args, outcome, strict=True)]
                    expr = (f"CAST({call(name, args, texts)} AS STRING) IS NOT DISTINCT FROM "
                            f"CAST({call(name, args, cast_texts)} AS STRING)")
                    probes.append((expr, True))
                    continue
                expr = call(name, args, texts)
                if outcome == "ambiguous":
                    message = f"Function '{name.lower()}' cannot be resolved due to ambiguous method parameters ({listed})."
                else:
                    message = f"Function '{name.lower()}' does not accept parameters ({listed})."
                case = probe_case(f"{expr}: {outcome}", [(expr, None)], COLUMNS, ROW)
                del case["inputs"], case["outputs"]
                case["expectedException"] = {"type": "io.confluent.ksql.util.KsqlStatementException",
                                             "message": message}
                tests.append(case)
        if probes:
            tests.insert(0, probe_case(f"{name}: the resolved calls give what the explicitly cast call gives",
                                       probes, COLUMNS, ROW))
    return tests


if __name__ == "__main__":
    write_cases(sys.argv[1], __doc__, main())
