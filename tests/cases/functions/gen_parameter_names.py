"""Resolution errors name every overload's parameters as ksqlDB's UdfIndex lists them: ``name(TYPE param, ...)``
with ksqlDB's @UdfParameter names (the variadic one ``TYPE... name``), for functions of every family, table
functions included, and for the ambiguous-call error ("Valid function calls are:"). The alternatives are
written out here from ksqlDB's UDF sources as remembered, never computed by ours.

Writes tests/cases/functions/parameter-names.json: ``python tests/cases/functions/gen_parameter_names.py
tests/cases/functions/parameter-names.json`` after changing this file.
"""
import json
import sys

COLUMNS = "I INT, B BIGINT, D DOUBLE, S STRING, BO BOOLEAN, AI ARRAY<INT>, M MAP<STRING, INT>"
HINT = "For detailed information on a function run: DESCRIBE FUNCTION <Function-Name>;"

# (call, argument types as the error prints them, the alternatives in ksqlDB's words)
NO_MATCH: list[tuple[str, str, list[str]]] = [
    ("SUBSTRING(BO, I)", "BOOLEAN, INTEGER", [
        "substring(STRING str, INT pos)", "substring(STRING str, INT pos, INT length)",
        "substring(BYTES bytes, INT pos)", "substring(BYTES bytes, INT pos, INT length)"]),
    ("UCASE(I)", "INTEGER", ["ucase(STRING input)"]),
    ("LPAD(S, S, S)", "STRING, STRING, STRING", [
        "lpad(STRING input, INT targetLen, STRING padding)", "lpad(BYTES input, INT targetLen, BYTES padding)"]),
    ("REPLACE(S, I, S)", "STRING, INTEGER, STRING", [
        "replace(STRING str, STRING target, STRING replacement)"]),
    ("INSTR(S, I)", "STRING, INTEGER", [
        "instr(STRING str, STRING substring)", "instr(STRING str, STRING substring, INT position)",
        "instr(STRING str, STRING substring, INT position, INT occurrence)"]),
    ("CONCAT(BO, BO)", "BOOLEAN, BOOLEAN", ["concat(STRING... inputs)", "concat(BYTES... inputs)"]),
    ("ELT(S, S)", "STRING, STRING", ["elt(INT n, STRING... args)"]),
    ("MASK_LEFT(S, S)", "STRING, STRING", [
        "mask_left(STRING input, INT numChars)",
        "mask_left(STRING input, INT numChars, STRING upper, STRING lower, STRING digit, STRING other)"]),
    ("SPLIT(S, I)", "STRING, INTEGER", [
        "split(STRING string, STRING delimiter)", "split(BYTES bytes, BYTES delimiter)"]),
    ("ROUND(S)", "STRING", [
        "round(INT val)", "round(BIGINT val)", "round(DOUBLE val)", "round(DOUBLE val, INT decimalPlaces)",
        "round(DECIMAL val)", "round(DECIMAL val, INT decimalPlaces)"]),
    ("POWER(S, S)", "STRING, STRING", [
        "power(INT base, INT exponent)", "power(BIGINT base, BIGINT exponent)",
        "power(DOUBLE base, DOUBLE exponent)"]),
    ("ATAN2(S, S)", "STRING, STRING", ["atan2(INT y, INT x)", "atan2(BIGINT y, BIGINT x)",
                                        "atan2(DOUBLE y, DOUBLE x)"]),
    ("GENERATE_SERIES(S, S)", "STRING, STRING", [
        "generate_series(INT start, INT end)", "generate_series(INT start, INT end, INT step)",
        "generate_series(BIGINT start, BIGINT end)", "generate_series(BIGINT start, BIGINT end, INT step)"]),
    ("REGEXP_EXTRACT(I, S)", "INTEGER, STRING", [
        "regexp_extract(STRING pattern, STRING input)", "regexp_extract(STRING pattern, STRING input, INT group)"]),
    ("EXTRACTJSONFIELD(S, I)", "STRING, INTEGER", ["extractjsonfield(STRING input, STRING path)"]),
    ("ARRAY_REMOVE(S, I)", "STRING, INTEGER", ["array_remove(ARRAY<T> array, T victim)"]),
    ("SLICE(AI, S, S)", "ARRAY<INTEGER>, STRING, STRING", ["slice(ARRAY<T> in, INT from, INT to)"]),
    ("AS_MAP(AI, AI)", "ARRAY<INTEGER>, ARRAY<INTEGER>", ["as_map(ARRAY<STRING> keys, ARRAY<T> values)"]),
    ("MAP_UNION(M, S)", "MAP<STRING, INTEGER>, STRING", ["map_union(MAP<K, V> map1, MAP<K, V> map2)"]),
    ("IFNULL(I, S)", "INTEGER, STRING", ["IFNULL(T expression, T altValue)"]),
    ("COALESCE(I, S)", "INTEGER, STRING", ["COALESCE(T first, T... others)"]),
    ("NULLIF(I, S)", "INTEGER, STRING", ["NULLIF(T expr1, T expr2)"]),
    ("URL_EXTRACT_PARAMETER(S, I)", "STRING, INTEGER", ["url_extract_parameter(STRING input, STRING paramToFind)"]),
    ("INT_FROM_BYTES(I)", "INTEGER", ["int_from_bytes(BYTES value)", "int_from_bytes(BYTES value, STRING byteOrder)"]),
    ("FROM_UNIXTIME(S)", "STRING", ["from_unixtime(BIGINT epochMilli)"]),
    ("TIMESTAMPTOSTRING(S, S)", "STRING, STRING", [
        "timestamptostring(BIGINT epochMilli, STRING formatPattern)",
        "timestamptostring(BIGINT epochMilli, STRING formatPattern, STRING timeZone)"]),
    ("CONVERT_TZ(S, I, I)", "STRING, INTEGER, INTEGER", [
        "convert_tz(TIMESTAMP timestamp, STRING fromTimeZone, STRING toTimeZone)"]),
    ("UNIX_TIMESTAMP(S, S)", "STRING, STRING", ["unix_timestamp()", "unix_timestamp(TIMESTAMP timestamp)"]),
    ("GEO_DISTANCE(S, S, S, S)", "STRING, STRING, STRING, STRING", [
        "geo_distance(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2)",
        "geo_distance(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2, STRING unit)"]),
    ("EXPLODE(I)", "INTEGER", ["explode(ARRAY<T> list)"]),
    ("CUBE_EXPLODE(S)", "STRING", ["cube_explode(ARRAY<T> columns)"]),
]


def case(call: str, args: str, alternatives: list[str]) -> dict:  # type: ignore[type-arg]
    name = alternatives[0].split("(")[0]  # as the function reports itself (COALESCE, IFNULL, NULLIF: upper)
    return {
        "name": f"{call} lists every overload with its parameter names",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE STREAM O AS SELECT K, {call} AS C FROM S;",
        ],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": f"Function '{name}' does not accept parameters ({args}).\nValid alternatives are:\n"
                       + "\n".join(alternatives) + f"\n{HINT}",
        },
    }


def ambiguous() -> dict:  # type: ignore[type-arg]
    """GREATEST(INT, BIGINT) fits the BIGINT, DOUBLE and DECIMAL overloads after implicit casts alike."""
    calls = [f"greatest({t} val, {t}... vals)"
             for t in ("INT", "BIGINT", "DOUBLE", "STRING", "DATE", "TIME", "TIMESTAMP", "BYTES", "DECIMAL")]
    return {
        "name": "an ambiguous call lists every overload with its parameter names",
        "statements": [
            f"CREATE STREAM S (K STRING KEY, {COLUMNS}) WITH (kafka_topic='s', value_format='JSON');",
            "CREATE STREAM O AS SELECT K, GREATEST(I, B) AS C FROM S;",
        ],
        "expectedException": {
            "type": "io.confluent.ksql.util.KsqlStatementException",
            "message": "Function 'greatest' cannot be resolved due to ambiguous method parameters "
                       "(INTEGER, BIGINT).\nUse CAST() to explicitly cast your parameters to one of the supported "
                       "function calls.\nValid function calls are:\n" + "\n".join(calls) + f"\n{HINT}",
        },
    }


tests = [case(*row) for row in NO_MATCH] + [ambiguous()]

if __name__ == "__main__":
    with open(sys.argv[1], "w") as f:
        json.dump({"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}, f, indent=1,
                  ensure_ascii=False)
        f.write("\n")
