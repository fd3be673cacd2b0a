"""The WITH clause of CREATE, CREATE ... AS SELECT and INSERT INTO ... SELECT, checked as ksqlDB checks it
while building the statement (its ``CreateSourceProperties`` / ``CreateSourceAsProperties`` /
``InsertIntoProperties``): before any source or column is looked at.

Every failure here is a parse failure reading ``Failed to prepare statement: <reason>``, as ksqlDB's
parser reports errors raised while it prepares a statement. The order is ksqlDB's: unknown keys, then each known key's
type and validator (in definition order), then the rules that tie keys together.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from ksqlpy.errors import KsqlParseError

from .durations import DurationError, parse_duration_text

PREPARE_PREFIX = "Failed to prepare statement: "


class PropertyScope(Enum):
    """Which statement a WITH clause belongs to: each accepts its own set of keys."""

    CREATE_SOURCE = "CREATE"
    CREATE_AS_SELECT = "CREATE AS SELECT"
    INSERT_INTO = "INSERT INTO"


class PropertyType(Enum):
    """Kafka ConfigDef types a WITH value is parsed as (a string literal is parsed, like Kafka does)."""

    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    BOOLEAN = "BOOLEAN"


class PrepareError(KsqlParseError):
    """What ksqlDB rejects while preparing a statement (building its AST): a parse failure whose message
    reads ``Failed to prepare statement: <reason>``."""

    def __init__(self, reason: str, where: tuple[int, int] = (0, 0)) -> None:
        # the position (of the WITH clause) stays on the error, not in its text: ksqlDB's has none
        super().__init__(reason, where[0], where[1], prepared=True, silent=True)


WINDOW_TYPES = ("SESSION", "HOPPING", "TUMBLING")
NULLABLE_REPRESENTATIONS = ("OPTIONAL", "WRAPPER")


def _check_timestamp_format(value: Any) -> None:
    from ksqlpy.functions.javatime.base import DateTimeError
    from ksqlpy.functions.javatime.compiled import compile_pattern

    try:
        compile_pattern(str(value))
    except DateTimeError as e:
        raise _Invalid(f"Invalid datetime format for config:TIMESTAMP_FORMAT, reason:{e}") from None


def _check_delimiter(name: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        from ksqlpy.serde.capabilities import parse_delimiter

        try:
            parse_delimiter(value)
        except ValueError as e:
            raise _Invalid(f"Configuration {name} is invalid: {e}") from None
    return check


def _check_duration(name: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        try:
            parse_duration_text(str(value))
        except DurationError as e:
            raise _Invalid(f"Configuration {name} is invalid: {e}") from None
    return check


def _one_of(name: str, allowed: tuple[str, ...]) -> Callable[[Any], None]:
    """ksqlDB's ``ConfigValidators.enumValues``: the enum's names, case-insensitive, plus null (the unset
    default) - which its message lists too (``String must be one of: SESSION, HOPPING, TUMBLING, null``)."""
    def check(value: Any) -> None:
        if str(value).upper() not in allowed:
            raise _Invalid(f"Invalid value {value} for property {name}: String must be one of: "
                           f"{', '.join(allowed)}, null")
    return check


def _non_empty(name: str) -> Callable[[Any], None]:
    """Kafka's ``ConfigDef.NonEmptyString``, which ksqlDB's CommonCreateConfigs gives KAFKA_TOPIC (from memory):
    an empty string is refused (blanks are not), in ConfigException's words."""
    def check(value: Any) -> None:
        if str(value) == "":
            raise _Invalid(f"Invalid value {value} for property {name}: String must be non-empty")
    return check


class _Invalid(Exception):
    """A validator's own message (kept as is, not wrapped in ``Invalid value ...``)."""


_Def = tuple[PropertyType, Callable[[Any], None] | None]

# ksqlDB's CommonCreateConfigs + CreateConfigs, in definition order (the order values are validated in).
_COMMON: dict[str, _Def] = {
    "KAFKA_TOPIC": (PropertyType.STRING, _non_empty("KAFKA_TOPIC")),
    "PARTITIONS": (PropertyType.INT, None),
    "REPLICAS": (PropertyType.SHORT, None),
    "RETENTION_MS": (PropertyType.LONG, None),
    "CLEANUP_POLICY": (PropertyType.STRING, None),
    "VALUE_FORMAT": (PropertyType.STRING, None),
    "KEY_FORMAT": (PropertyType.STRING, None),
    "FORMAT": (PropertyType.STRING, None),
    "TIMESTAMP": (PropertyType.STRING, None),
    "TIMESTAMP_FORMAT": (PropertyType.STRING, _check_timestamp_format),
    "WRAP_SINGLE_VALUE": (PropertyType.BOOLEAN, None),
    "KEY_DELIMITER": (PropertyType.STRING, _check_delimiter("KEY_DELIMITER")),
    "VALUE_DELIMITER": (PropertyType.STRING, _check_delimiter("VALUE_DELIMITER")),
    "KEY_SCHEMA_FULL_NAME": (PropertyType.STRING, None),
    "VALUE_SCHEMA_FULL_NAME": (PropertyType.STRING, None),
    "VALUE_AVRO_SCHEMA_FULL_NAME": (PropertyType.STRING, None),
    "KEY_SCHEMA_ID": (PropertyType.INT, None),
    "VALUE_SCHEMA_ID": (PropertyType.INT, None),
    "KEY_PROTOBUF_NULLABLE_REPRESENTATION": (
        PropertyType.STRING, _one_of("KEY_PROTOBUF_NULLABLE_REPRESENTATION", NULLABLE_REPRESENTATIONS)),
    "VALUE_PROTOBUF_NULLABLE_REPRESENTATION": (
        PropertyType.STRING, _one_of("VALUE_PROTOBUF_NULLABLE_REPRESENTATION", NULLABLE_REPRESENTATIONS)),
}
_CREATE_ONLY: dict[str, _Def] = {
    "WINDOW_TYPE": (PropertyType.STRING, _one_of("WINDOW_TYPE", WINDOW_TYPES)),
    "WINDOW_SIZE": (PropertyType.STRING, _check_duration("WINDOW_SIZE")),
    "SOURCE_CONNECTOR": (PropertyType.STRING, None),
    "SOURCED_BY_CONNECTOR": (PropertyType.STRING, None),
}
DEFINITIONS: dict[PropertyScope, dict[str, _Def]] = {
    PropertyScope.CREATE_SOURCE: {**_COMMON, **_CREATE_ONLY},
    PropertyScope.CREATE_AS_SELECT: dict(_COMMON),
    PropertyScope.INSERT_INTO: {"QUERY_ID": (PropertyType.STRING, None)},
}

_INT_RANGES = {PropertyType.INT: (-(2**31), 2**31 - 1), PropertyType.SHORT: (-(2**15), 2**15 - 1),
               PropertyType.LONG: (-(2**63), 2**63 - 1)}


def _parse_value(name: str, ptype: PropertyType, value: Any) -> Any:
    """Kafka's ``ConfigDef.parseType`` for one value, with ksqlDB's wording (``property``)."""
    if value is None:
        return value
    if ptype is PropertyType.STRING:
        if isinstance(value, str):
            return java_trim(value)  # ConfigDef.parseType returns a String trimmed
        # ConfigDef.parseType's STRING takes only a String: a number or boolean literal is named by its class
        raise PrepareError(f"Invalid value {_java_text(value)} for property {name}: Expected value to be a "
                           f"string, but it was a {_java_class(value)}")
    if ptype is PropertyType.BOOLEAN:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise PrepareError(f"Invalid value {value} for property {name}: Expected value to be either true or false")
    low, high = _INT_RANGES[ptype]
    # an integer literal beyond INT is a LongLiteral (ParserUtil.visitIntegerLiteral): an INT or SHORT property
    # takes no java.lang.Long, whatever its value (ConfigDef.parseType names the class, as for a decimal)
    beyond_int = isinstance(value, int) and not isinstance(value, bool) and not -(2**31) <= value < 2**31
    if isinstance(value, bool) or isinstance(value, float) or (beyond_int and ptype is not PropertyType.LONG):
        # Kafka's ConfigDef.parseType takes a String (parsed) or the type's own Java class; the literal's class
        # is named otherwise: a Boolean, a BigDecimal (1.50) or a Double (1e3)
        raise PrepareError(f"Invalid value {_java_text(value)} for property {name}: Expected value to be a "
                           f"{_EXPECTED[ptype]}, but it was a {_java_class(value)}")
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        try:
            number = int(text)
        except ValueError:
            raise PrepareError(f"Invalid value {value} for property {name}: Not a number of type {ptype.value}") \
                from None
    if not low <= number <= high:
        raise PrepareError(f"Invalid value {value} for property {name}: Not a number of type {ptype.value}")
    return number


def java_trim(text: str) -> str:
    """Java's ``String.trim``: every character up to U+0020 off both ends (not Python's whitespace)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def literal_text(value: Any) -> str:
    """A WITH-clause literal as ksqlDB's ExpressionFormatter prints it (``Literal.toString``)."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if value is None:
        return "null"
    return _java_text(value)


# ConfigDef.parseType's words for each integer type
_EXPECTED = {PropertyType.INT: "32-bit integer", PropertyType.SHORT: "16-bit integer (short)",
             PropertyType.LONG: "64-bit integer (long)"}


def _java_text(value: Any) -> str:
    """The value as Java prints it in ConfigException's ``Invalid value <v>``."""
    if isinstance(value, bool):
        return str(value).lower()  # Boolean.toString
    return getattr(value, "java_text", None) or str(value)


def _java_class(value: Any) -> str:
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, int):  # ParserUtil.visitIntegerLiteral: an IntegerLiteral, beyond INT a LongLiteral
        return "java.lang.Integer" if -(2**31) <= value < 2**31 else "java.lang.Long"
    return getattr(value, "java_class", "java.math.BigDecimal")


def prepare_properties(scope: PropertyScope, properties: dict[str, Any],
                       where: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """The WITH clause of a ``scope`` statement with upper-case keys and typed values; PrepareError (ksqlDB's
    message, carrying ``where`` the clause is) for what ksqlDB refuses while building the statement."""
    try:
        return _prepare(scope, properties)
    except PrepareError as e:
        if where[0]:
            e.line, e.column = where
        raise


def _prepare(scope: PropertyScope, properties: dict[str, Any]) -> dict[str, Any]:
    props = {str(k).upper(): v for k, v in properties.items()}
    definitions = DEFINITIONS[scope]
    unknown = sorted(k for k in props if k not in definitions)
    if unknown:
        raise PrepareError(f"Invalid config variable(s) in the WITH clause: {','.join(unknown)}")
    if scope is PropertyScope.CREATE_SOURCE and props.get("KAFKA_TOPIC") is None:
        raise PrepareError('Missing required property "KAFKA_TOPIC" which has no default value.')
    for name, (ptype, validator) in definitions.items():
        if name not in props:
            continue
        props[name] = _parse_value(name, ptype, props[name])
        if validator is not None and props[name] is not None:
            try:
                validator(props[name])
            except _Invalid as e:
                raise PrepareError(str(e)) from None
    if scope is not PropertyScope.INSERT_INTO:
        _check_related(scope, props)
    return props


def _check_related(scope: PropertyScope, props: dict[str, Any]) -> None:
    if scope is PropertyScope.CREATE_SOURCE:
        # CreateSourceProperties' window check (from memory): a size is required by a TUMBLING/HOPPING type and
        # refused otherwise - with SESSION, and with no WINDOW_TYPE at all, in the SESSION wording
        window_type = str(props["WINDOW_TYPE"]).upper() if props.get("WINDOW_TYPE") is not None else None
        has_size = props.get("WINDOW_SIZE") is not None
        requires_size = window_type is not None and window_type != "SESSION"
        if requires_size and not has_size:
            raise PrepareError(f"{window_type} windows require 'WINDOW_SIZE' to be provided in the WITH clause. "
                               "For example: 'WINDOW_SIZE'='10 SECONDS'")
        if not requires_size and has_size:
            raise PrepareError("'WINDOW_SIZE' should not be set for SESSION windows.")
