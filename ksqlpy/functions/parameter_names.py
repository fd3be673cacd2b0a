"""ksqlDB's parameter names and descriptions of the built-in scalar and table functions.

ksqlDB names every UDF parameter (``@UdfParameter(value=..., description=...)``, else the Java parameter
name: its loader refuses a parameter without one), and that name shows wherever an overload is listed:
``NAME(TYPE name, ...)`` under "Valid alternatives are:" / "Valid function calls are:", and DESCRIBE
FUNCTION's arguments (name, type, description). The names and descriptions below are ksqlDB's as
remembered from its UDF sources (io.confluent.ksql.function.udf.*), not read from them.

One line per overload of the registry, in the signature texts ``Overload.alternative`` writes; the
family modules declare the overloads, this table names their parameters once for all of them
(``name_parameters``), and ``tests/functions/test_parameter_names.py`` checks that every built-in
overload has a line here and every line an overload.
"""

from __future__ import annotations

from collections.abc import Iterator

from ksqlpy.functions.registry import FunctionRegistry, top_level_split
from ksqlpy.functions.signatures import SignatureFunction, alternative_text

SIGNATURES = """
ABS(INT val)
ABS(BIGINT val)
ABS(DOUBLE val)
ABS(DECIMAL val)
ACOS(INT value)
ACOS(BIGINT value)
ACOS(DOUBLE value)
ARRAY_CONCAT(ARRAY<T> left, ARRAY<T> right)
ARRAY_CONTAINS(ARRAY<T> array, T val)
ARRAY_DISTINCT(ARRAY<T> input)
ARRAY_EXCEPT(ARRAY<T> left, ARRAY<T> right)
ARRAY_INTERSECT(ARRAY<T> left, ARRAY<T> right)
ARRAY_JOIN(ARRAY<T> array)
ARRAY_JOIN(ARRAY<T> array, STRING delimiter)
ARRAY_LENGTH(ARRAY<T> array)
ARRAY_MAX(ARRAY<T> input)
ARRAY_MIN(ARRAY<T> input)
ARRAY_REMOVE(ARRAY<T> array, T victim)
ARRAY_SORT(ARRAY<T> input)
ARRAY_SORT(ARRAY<T> input, STRING direction)
ARRAY_UNION(ARRAY<T> left, ARRAY<T> right)
ASIN(INT value)
ASIN(BIGINT value)
ASIN(DOUBLE value)
AS_MAP(ARRAY<STRING> keys, ARRAY<T> values)
AS_VALUE(T keyColumn)
ATAN(INT value)
ATAN(BIGINT value)
ATAN(DOUBLE value)
ATAN2(INT y, INT x)
ATAN2(BIGINT y, BIGINT x)
ATAN2(DOUBLE y, DOUBLE x)
BIGINT_FROM_BYTES(BYTES value)
BIGINT_FROM_BYTES(BYTES value, STRING byteOrder)
CBRT(INT value)
CBRT(BIGINT value)
CBRT(DOUBLE value)
CEIL(INT val)
CEIL(BIGINT val)
CEIL(DOUBLE val)
CEIL(DECIMAL val)
CHR(INT decimalCode)
CHR(STRING utf16Hex)
COALESCE(T first, T... others)
CONCAT(STRING... inputs)
CONCAT(BYTES... inputs)
CONCAT_WS(STRING... inputs)
CONCAT_WS(BYTES... inputs)
CONVERT_TZ(TIMESTAMP timestamp, STRING fromTimeZone, STRING toTimeZone)
COS(INT value)
COS(BIGINT value)
COS(DOUBLE value)
COSH(INT value)
COSH(BIGINT value)
COSH(DOUBLE value)
COT(INT value)
COT(BIGINT value)
COT(DOUBLE value)
CUBE_EXPLODE(ARRAY<T> columns)
DATEADD(INTERVALUNIT unit, INT interval, DATE date)
DATESUB(INTERVALUNIT unit, INT interval, DATE date)
DATETOSTRING(INT epochDays, STRING formatPattern)
DEGREES(INT value)
DEGREES(BIGINT value)
DEGREES(DOUBLE value)
DOUBLE_FROM_BYTES(BYTES value)
DOUBLE_FROM_BYTES(BYTES value, STRING byteOrder)
ELT(INT n, STRING... args)
ENCODE(STRING str, STRING inputEncoding, STRING outputEncoding)
ENTRIES(MAP<STRING, INT> map, BOOLEAN sorted)
ENTRIES(MAP<STRING, BIGINT> map, BOOLEAN sorted)
ENTRIES(MAP<STRING, DOUBLE> map, BOOLEAN sorted)
ENTRIES(MAP<STRING, BOOLEAN> map, BOOLEAN sorted)
ENTRIES(MAP<STRING, STRING> map, BOOLEAN sorted)
EXP(INT exponent)
EXP(BIGINT exponent)
EXP(DOUBLE exponent)
EXPLODE(ARRAY<T> list)
EXTRACTJSONFIELD(STRING input, STRING path)
FIELD(STRING str, STRING... args)
FILTER(ARRAY<T> array, LAMBDA<T> => BOOLEAN function)
FILTER(MAP<K, V> map, LAMBDA<K, V> => BOOLEAN biFunction)
FLOOR(INT val)
FLOOR(BIGINT val)
FLOOR(DOUBLE val)
FLOOR(DECIMAL val)
FORMAT_DATE(DATE date, STRING formatPattern)
FORMAT_TIME(TIME time, STRING formatPattern)
FORMAT_TIMESTAMP(TIMESTAMP timestamp, STRING formatPattern)
FORMAT_TIMESTAMP(TIMESTAMP timestamp, STRING formatPattern, STRING timeZone)
FROM_BYTES(BYTES value, STRING encoding)
FROM_DAYS(INT days)
FROM_UNIXTIME(BIGINT epochMilli)
GENERATE_SERIES(INT start, INT end)
GENERATE_SERIES(INT start, INT end, INT step)
GENERATE_SERIES(BIGINT start, BIGINT end)
GENERATE_SERIES(BIGINT start, BIGINT end, INT step)
GEO_DISTANCE(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2)
GEO_DISTANCE(DOUBLE lat1, DOUBLE lon1, DOUBLE lat2, DOUBLE lon2, STRING unit)
GREATEST(INT val, INT... vals)
GREATEST(BIGINT val, BIGINT... vals)
GREATEST(DOUBLE val, DOUBLE... vals)
GREATEST(STRING val, STRING... vals)
GREATEST(DATE val, DATE... vals)
GREATEST(TIME val, TIME... vals)
GREATEST(TIMESTAMP val, TIMESTAMP... vals)
GREATEST(BYTES val, BYTES... vals)
GREATEST(DECIMAL val, DECIMAL... vals)
IFNULL(T expression, T altValue)
INITCAP(STRING str)
INSTR(STRING str, STRING substring)
INSTR(STRING str, STRING substring, INT position)
INSTR(STRING str, STRING substring, INT position, INT occurrence)
INT_FROM_BYTES(BYTES value)
INT_FROM_BYTES(BYTES value, STRING byteOrder)
IS_JSON_STRING(STRING input)
JSON_ARRAY_CONTAINS(STRING jsonArray, T val)
JSON_ARRAY_LENGTH(STRING jsonArray)
JSON_CONCAT(STRING... jsonStrings)
JSON_ITEMS(STRING jsonItems)
JSON_KEYS(STRING jsonObj)
JSON_RECORDS(STRING jsonObj)
LCASE(STRING input)
LEAST(INT val, INT... vals)
LEAST(BIGINT val, BIGINT... vals)
LEAST(DOUBLE val, DOUBLE... vals)
LEAST(STRING val, STRING... vals)
LEAST(DATE val, DATE... vals)
LEAST(TIME val, TIME... vals)
LEAST(TIMESTAMP val, TIMESTAMP... vals)
LEAST(BYTES val, BYTES... vals)
LEAST(DECIMAL val, DECIMAL... vals)
LEN(STRING input)
LEN(BYTES input)
LN(INT value)
LN(BIGINT value)
LN(DOUBLE value)
LOG(INT value)
LOG(BIGINT value)
LOG(DOUBLE value)
LOG(INT base, INT value)
LOG(BIGINT base, BIGINT value)
LOG(DOUBLE base, DOUBLE value)
LPAD(STRING input, INT targetLen, STRING padding)
LPAD(BYTES input, INT targetLen, BYTES padding)
MAP_KEYS(MAP<K, V> input)
MAP_UNION(MAP<K, V> map1, MAP<K, V> map2)
MAP_VALUES(MAP<K, V> input)
MASK(STRING input)
MASK(STRING input, STRING upper, STRING lower, STRING digit, STRING other)
MASK_KEEP_LEFT(STRING input, INT numChars)
MASK_KEEP_LEFT(STRING input, INT numChars, STRING upper, STRING lower, STRING digit, STRING other)
MASK_KEEP_RIGHT(STRING input, INT numChars)
MASK_KEEP_RIGHT(STRING input, INT numChars, STRING upper, STRING lower, STRING digit, STRING other)
MASK_LEFT(STRING input, INT numChars)
MASK_LEFT(STRING input, INT numChars, STRING upper, STRING lower, STRING digit, STRING other)
MASK_RIGHT(STRING input, INT numChars)
MASK_RIGHT(STRING input, INT numChars, STRING upper, STRING lower, STRING digit, STRING other)
MD5(STRING input)
NULLIF(T expr1, T expr2)
PARSE_DATE(STRING formattedDate, STRING formatPattern)
PARSE_TIME(STRING formattedTime, STRING formatPattern)
PARSE_TIMESTAMP(STRING formattedTimestamp, STRING formatPattern)
PARSE_TIMESTAMP(STRING formattedTimestamp, STRING formatPattern, STRING timeZone)
PI()
POWER(INT base, INT exponent)
POWER(BIGINT base, BIGINT exponent)
POWER(DOUBLE base, DOUBLE exponent)
RADIANS(INT value)
RADIANS(BIGINT value)
RADIANS(DOUBLE value)
RANDOM()
REDUCE(ARRAY<T> array, S initialState, LAMBDA<S, T> => S biFunction)
REDUCE(MAP<K, V> map, S initialState, LAMBDA<S, K, V> => S triFunction)
REGEXP_EXTRACT(STRING pattern, STRING input)
REGEXP_EXTRACT(STRING pattern, STRING input, INT group)
REGEXP_EXTRACT_ALL(STRING pattern, STRING input)
REGEXP_EXTRACT_ALL(STRING pattern, STRING input, INT group)
REGEXP_REPLACE(STRING str, STRING regexp, STRING replacement)
REGEXP_SPLIT_TO_ARRAY(STRING string, STRING regexp)
REPLACE(STRING str, STRING target, STRING replacement)
ROUND(INT val)
ROUND(BIGINT val)
ROUND(DOUBLE val)
ROUND(DOUBLE val, INT decimalPlaces)
ROUND(DECIMAL val)
ROUND(DECIMAL val, INT decimalPlaces)
RPAD(STRING input, INT targetLen, STRING padding)
RPAD(BYTES input, INT targetLen, BYTES padding)
SIGN(INT value)
SIGN(BIGINT value)
SIGN(DOUBLE value)
SIGN(DECIMAL value)
SIN(INT value)
SIN(BIGINT value)
SIN(DOUBLE value)
SINH(INT value)
SINH(BIGINT value)
SINH(DOUBLE value)
SLICE(ARRAY<T> in, INT from, INT to)
SPLIT(STRING string, STRING delimiter)
SPLIT(BYTES bytes, BYTES delimiter)
SPLIT_TO_MAP(STRING input, STRING entryDelimiter, STRING kvDelimiter)
SQRT(INT value)
SQRT(BIGINT value)
SQRT(DOUBLE value)
STRINGTODATE(STRING formattedDate, STRING formatPattern)
STRINGTOTIMESTAMP(STRING formattedTimestamp, STRING formatPattern)
STRINGTOTIMESTAMP(STRING formattedTimestamp, STRING formatPattern, STRING timeZone)
SUBSTRING(STRING str, INT pos)
SUBSTRING(STRING str, INT pos, INT length)
SUBSTRING(BYTES bytes, INT pos)
SUBSTRING(BYTES bytes, INT pos, INT length)
TAN(INT value)
TAN(BIGINT value)
TAN(DOUBLE value)
TANH(INT value)
TANH(BIGINT value)
TANH(DOUBLE value)
TIMEADD(INTERVALUNIT unit, INT interval, TIME time)
TIMESTAMPADD(INTERVALUNIT unit, BIGINT interval, TIMESTAMP timestamp)
TIMESTAMPSUB(INTERVALUNIT unit, BIGINT interval, TIMESTAMP timestamp)
TIMESTAMPTOSTRING(BIGINT epochMilli, STRING formatPattern)
TIMESTAMPTOSTRING(BIGINT epochMilli, STRING formatPattern, STRING timeZone)
TIMESUB(INTERVALUNIT unit, INT interval, TIME time)
TO_BYTES(STRING value, STRING encoding)
TO_JSON_STRING(ANY input)
TRANSFORM(ARRAY<T> array, LAMBDA<T> => U function)
TRANSFORM(MAP<K, V> map, LAMBDA<K, V> => K1 biFunction1, LAMBDA<K, V> => V1 biFunction2)
TRIM(STRING input)
TRUNC(INT val)
TRUNC(BIGINT val)
TRUNC(DOUBLE val)
TRUNC(DOUBLE val, INT decimalPlaces)
TRUNC(DECIMAL val)
TRUNC(DECIMAL val, INT decimalPlaces)
UCASE(STRING input)
UNIX_DATE()
UNIX_DATE(DATE date)
UNIX_TIMESTAMP()
UNIX_TIMESTAMP(TIMESTAMP timestamp)
URL_DECODE_PARAM(STRING input)
URL_ENCODE_PARAM(STRING input)
URL_EXTRACT_FRAGMENT(STRING input)
URL_EXTRACT_HOST(STRING input)
URL_EXTRACT_PARAMETER(STRING input, STRING paramToFind)
URL_EXTRACT_PATH(STRING input)
URL_EXTRACT_PORT(STRING input)
URL_EXTRACT_PROTOCOL(STRING input)
URL_EXTRACT_QUERY(STRING input)
UUID()
UUID(BYTES bytes)
"""

_DOUBLE_ARG = {"value": "The value in radians."}
_MASK = {
    "input": "input STRING to be masked",
    "upper": "upper-case mask, or NULL to use default",
    "lower": "lower-case mask, or NULL to use default",
    "digit": "digit mask, or NULL to use default",
    "other": "mask for other characters, or NULL to use default",
}
_URL = {"input": "a valid URL"}
_UNIT = {"unit": "A unit of time, for example SECOND or HOUR"}

# A parameter's description by function and name (ksqlDB's describe the same-named parameter of a
# function's overloads alike). A function not listed here has no argument descriptions.
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "ABS": {"val": "The value to take the absolute value of"},
    "ACOS": {"value": "The value to get the inverse cosine of."},
    "ASIN": {"value": "The value to get the inverse sine of."},
    "ATAN": {"value": "The value to get the inverse tangent of."},
    "ATAN2": {"y": "The ordinate (y) coordinate.", "x": "The abscissa (x) coordinate."},
    "COS": {"value": "The value in radians to get the cosine of."},
    "COSH": {"value": "The value in radians to get the hyperbolic cosine of."},
    "COT": {"value": "The value in radians to get the cotangent of."},
    "SIN": {"value": "The value in radians to get the sine of."},
    "SINH": {"value": "The value in radians to get the hyperbolic sine of."},
    "TAN": {"value": "The value in radians to get the tangent of."},
    "TANH": {"value": "The value in radians to get the hyperbolic tangent of."},
    "CBRT": {"value": "The value to get the cube root of."},
    "DEGREES": {"value": "The value in radians to convert to degrees."},
    "RADIANS": {"value": "The value in degrees to convert to radians."},
    "EXP": {"exponent": "the exponent to raise e to."},
    "LN": {"value": "the value get the natual logarithm of."},
    "LOG": {"value": "the value get the logarithm of.", "base": "the base of the logarithm."},
    "POWER": {"base": "the base of the power.", "exponent": "the exponent of the power."},
    "SIGN": {"value": "The value to get the sign of."},
    "SQRT": {"value": "The value to get the square root of."},
    "CEIL": {"val": "The value to ceil to an integer"},
    "FLOOR": {"val": "The value to floor to an integer"},
    "ROUND": {"decimalPlaces": "The number of decimal places to round to"},
    "TRUNC": {"decimalPlaces": "The number of decimal places to keep"},
    "GENERATE_SERIES": {"start": "The beginning of the series", "end": "Marks the end of the series (inclusive)",
                        "step": "Difference between each value in the series"},
    "GEO_DISTANCE": {"lat1": "The latitude of the first point in decimal degrees.",
                     "lon1": "The longitude of the first point in decimal degrees.",
                     "lat2": "The latitude of the second point in decimal degrees.",
                     "lon2": "The longitude of the second point in decimal degrees.",
                     "unit": "The units for the return value. Either MILES or KM."},
    "SUBSTRING": {"str": "The source string.", "bytes": "The source bytes.",
                  "pos": "The base-one position to start from.", "length": "The length to extract."},
    "CONCAT": {"inputs": "The varchar fields to concatenate"},
    "CONCAT_WS": {"inputs": "Separator string and values to join"},
    "ELT": {"n": "the nth element to extract", "args": "the strings of which to extract the nth"},
    "FIELD": {"str": "the string to find", "args": "the strings to search"},
    "ENCODE": {"str": "The source string. If null, then function returns null.",
               "inputEncoding": "The input encoding. If null, then function returns null.",
               "outputEncoding": "The output encoding. If null, then function returns null."},
    "REPLACE": {"str": "The source string. If null, then function returns null.",
                "target": "The substring to replace. If null, then function returns null.",
                "replacement": "The replacement string. If null, then function returns null."},
    "REGEXP_REPLACE": {"str": "The source string. If null, then function returns null.",
                       "regexp": "The regexp to match. If null, then function returns null.",
                       "replacement": "The replacement string. If null, then function returns null."},
    "REGEXP_EXTRACT": {"pattern": "The regex pattern", "input": "The input string to apply regex on",
                       "group": "The group to extract"},
    "REGEXP_EXTRACT_ALL": {"pattern": "The regex pattern", "input": "The input string to apply regex on",
                           "group": "The group to extract"},
    "REGEXP_SPLIT_TO_ARRAY": {"string": "The string to be split. If NULL, then function returns NULL.",
                              "regexp": "The regexp to split a string by. If NULL, then function returns NULL."},
    "SPLIT": {"string": "The string to be split. If NULL, then function returns NULL.",
              "bytes": "The bytes to be split. If NULL, then function returns NULL.",
              "delimiter": "The delimiter to split by. If NULL, then function returns NULL."},
    "SPLIT_TO_MAP": {"input": "The string to split", "entryDelimiter": "The delimiter between entries",
                     "kvDelimiter": "The delimiter between a key and its value"},
    "INITCAP": {"str": "The source string."},
    "LCASE": {"input": "The string to lower-case"},
    "UCASE": {"input": "The string to upper-case"},
    "TRIM": {"input": "The string to trim"},
    "LEN": {"input": "The input string or bytes"},
    "LPAD": {"input": "String to be padded", "targetLen": "Target length", "padding": "Padding string"},
    "RPAD": {"input": "String to be padded", "targetLen": "Target length", "padding": "Padding string"},
    "CHR": {"decimalCode": "Decimal codepoint", "utf16Hex": "UTF16 code for the desired character e.g. '\\u004b'"},
    "INSTR": {"str": "The string to search in", "substring": "The substring to search for",
              "position": "The position to start the search from", "occurrence": "The occurrence to find"},
    "MASK": _MASK,
    "MASK_KEEP_LEFT": {**_MASK, "numChars": "number of characters to keep unmasked at the start"},
    "MASK_LEFT": {**_MASK, "numChars": "number of characters to mask at the start"},
    "MASK_KEEP_RIGHT": {**_MASK, "numChars": "number of characters to keep unmasked at the end"},
    "MASK_RIGHT": {**_MASK, "numChars": "number of characters to mask at the end"},
    "FROM_BYTES": {"value": "The bytes value to convert.", "encoding": "The encoding to use on conversion."},
    "TO_BYTES": {"value": "The string to convert.", "encoding": "The type of encoding."},
    "INT_FROM_BYTES": {"value": "The bytes value to convert.",
                       "byteOrder": "The byte order. Valid orders are 'BIG_ENDIAN' and 'LITTLE_ENDIAN'."},
    "BIGINT_FROM_BYTES": {"value": "The bytes value to convert.",
                          "byteOrder": "The byte order. Valid orders are 'BIG_ENDIAN' and 'LITTLE_ENDIAN'."},
    "DOUBLE_FROM_BYTES": {"value": "The bytes value to convert.",
                          "byteOrder": "The byte order. Valid orders are 'BIG_ENDIAN' and 'LITTLE_ENDIAN'."},
    "ARRAY_CONCAT": {"left": "First array of values", "right": "Second array of values"},
    "ARRAY_DISTINCT": {"input": "Array of values to distinct"},
    "ARRAY_EXCEPT": {"left": "Array of values", "right": "Array of exceptions"},
    "ARRAY_INTERSECT": {"left": "First array of values", "right": "Second array of values"},
    "ARRAY_UNION": {"left": "First array of values", "right": "Second array of values"},
    "ARRAY_JOIN": {"array": "the array to join", "delimiter": "the string to be used as element delimiter"},
    "ARRAY_LENGTH": {"array": "The array"},
    "ARRAY_MAX": {"input": "Array of values from which to find the maximum"},
    "ARRAY_MIN": {"input": "Array of values from which to find the minimum"},
    "ARRAY_REMOVE": {"array": "Array of values", "victim": "Value to remove"},
    "ARRAY_SORT": {"input": "The array to sort", "direction": "The direction to sort: ASC or DESC"},
    "SLICE": {"in": "the input array", "from": "start index", "to": "end index"},
    "ENTRIES": {"map": "The map to create entries from",
                "sorted": "If true then the resulting entries are sorted by key"},
    "MAP_UNION": {"map1": "first map to union", "map2": "second map to union"},
    "TRANSFORM": {"array": "The array", "function": "The lambda function", "map": "The map",
                  "biFunction1": "The new key lambda function", "biFunction2": "The new value lambda function"},
    "FILTER": {"array": "The array", "function": "The lambda function", "map": "The map",
               "biFunction": "The lambda function"},
    "REDUCE": {"array": "The array", "map": "The map", "initialState": "The initial state",
               "biFunction": "The lambda function", "triFunction": "The lambda function"},
    "EXTRACTJSONFIELD": {"input": "The input JSON string", "path": "The JSONPath to extract"},
    "IS_JSON_STRING": {"input": "The input JSON string"},
    "JSON_ARRAY_LENGTH": {"jsonArray": "The JSON array"},
    "CONVERT_TZ": {"timestamp": "The TIMESTAMP value.",
                   "fromTimeZone": "The fromTimeZone in java.util.TimeZone ID format.",
                   "toTimeZone": "The toTimeZone in java.util.TimeZone ID format."},
    "DATEADD": {**_UNIT, "interval": "An integer number of intervals to add", "date": "A DATE value."},
    "DATESUB": {**_UNIT, "interval": "An integer number of intervals to subtract", "date": "A DATE value."},
    "TIMEADD": {**_UNIT, "interval": "An integer number of intervals to add", "time": "A TIME value."},
    "TIMESUB": {**_UNIT, "interval": "An integer number of intervals to subtract", "time": "A TIME value."},
    "TIMESTAMPADD": {**_UNIT, "interval": "An integer number of intervals to add",
                     "timestamp": "A TIMESTAMP value."},
    "TIMESTAMPSUB": {**_UNIT, "interval": "An integer number of intervals to subtract",
                     "timestamp": "A TIMESTAMP value."},
    "FORMAT_DATE": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format."},
    "FORMAT_TIME": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format."},
    "FORMAT_TIMESTAMP": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format.",
                         "timeZone": "timeZone is a java.util.TimeZone ID format, for example: \"UTC\", "
                                     "\"America/Los_Angeles\", \"PST\", \"Europe/London\""},
    "PARSE_DATE": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format."},
    "PARSE_TIME": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format."},
    "PARSE_TIMESTAMP": {"formatPattern": "The format pattern in java.time.format.DateTimeFormatter format.",
                        "timeZone": "timeZone is a java.util.TimeZone ID format, for example: \"UTC\", "
                                    "\"America/Los_Angeles\", \"PST\", \"Europe/London\""},
    "STRINGTOTIMESTAMP": {"timeZone": "timeZone is a java.util.TimeZone ID format, for example: \"UTC\", "
                                      "\"America/Los_Angeles\", \"PST\", \"Europe/London\""},
    "TIMESTAMPTOSTRING": {"timeZone": "timeZone is a java.util.TimeZone ID format, for example: \"UTC\", "
                                      "\"America/Los_Angeles\", \"PST\", \"Europe/London\""},
    "URL_DECODE_PARAM": {"input": "the value to decode"},
    "URL_ENCODE_PARAM": {"input": "the value to encode"},
    "URL_EXTRACT_FRAGMENT": _URL, "URL_EXTRACT_HOST": _URL, "URL_EXTRACT_PATH": _URL, "URL_EXTRACT_PORT": _URL,
    "URL_EXTRACT_PROTOCOL": _URL, "URL_EXTRACT_QUERY": _URL,
    "URL_EXTRACT_PARAMETER": {**_URL, "paramToFind": "the parameter to extract"},
    "EXPLODE": {"list": "the array to explode"},
    "CUBE_EXPLODE": {"columns": "the columns to cube"},
}


# A variation's own description, where ksqlDB's @Udf gives one (DESCRIBE FUNCTION lists it under the variation;
# the others show the function's).
VARIATIONS: dict[str, str] = {
    "SUBSTRING(STRING str, INT pos)": "Returns a substring of str from pos to the end of str",
    "SUBSTRING(STRING str, INT pos, INT length)": "Returns a substring of str that starts at pos and is of length "
                                                  "length",
    "SUBSTRING(BYTES bytes, INT pos)": "Returns a substring of bytes from pos to the end of bytes",
    "SUBSTRING(BYTES bytes, INT pos, INT length)": "Returns a substring of bytes that starts at pos and is of length "
                                                   "length",
    "CONCAT(STRING... inputs)": "Concatenate an arbitrary number of string fields together",
    "CONCAT(BYTES... inputs)": "Concatenate an arbitrary number of bytes fields together",
}


def _entries() -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """(function name, unnamed alternative, parameter names) of each line of ``SIGNATURES``."""
    for line in SIGNATURES.strip().splitlines():
        name, _, params = line.partition("(")
        typed = [p.rpartition(" ") for p in top_level_split(params[:-1])]
        yield name, alternative_text(name, [(t, "") for t, _, _ in typed]), tuple(n for _, _, n in typed)


def name_parameters(registry: FunctionRegistry) -> list[str]:
    """Give every built-in overload of ``registry`` its ksqlDB parameter names and descriptions; returns the
    table's lines that named no overload (a test keeps that empty)."""
    table = {key: (name, names) for name, key, names in _entries()}
    used: set[str] = set()
    for fn in [*registry.scalars.values(), *registry.tables.values()]:
        if not isinstance(fn, SignatureFunction):
            continue
        for ov in fn.overloads:
            key = alternative_text(fn.name, [(t, "") for t in ov.parameter_types()])
            if key not in table:
                continue
            used.add(key)
            _, names = table[key]
            docs = DESCRIPTIONS.get(fn.name, {})
            ov.param_names = names
            ov.param_docs = tuple(docs.get(n, "") for n in names)
            ov.description = VARIATIONS.get(ov.alternative(fn.name), ov.description)
    return [key for key in table if key not in used]

