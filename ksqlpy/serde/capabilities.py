"""What each format accepts besides columns: the format properties a WITH clause may set for it and the
serde features (single-value wrapping) it supports - ksqlDB's ``Format.getSupportedProperties`` and
``Format.supportedFeatures``, with its messages.

The WITH clause names properties per side (``VALUE_DELIMITER``, ``KEY_SCHEMA_ID``...); a format sees them
under ksqlDB's format-property names (``delimiter``, ``schemaId``...), which is how its errors name them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ksqlpy.errors import KsqlStatementError
from ksqlpy.serde.base import FormatRuleError


class SerdeFeature(Enum):
    """How a single value column is written: inside a record/object (WRAP) or bare (UNWRAP)."""

    WRAP_SINGLES = "WRAP_SINGLES"
    UNWRAP_SINGLES = "UNWRAP_SINGLES"


class Side(Enum):
    KEY = "KEY"
    VALUE = "VALUE"


FULL_SCHEMA_NAME = "fullSchemaName"
SCHEMA_ID = "schemaId"
DELIMITER = "delimiter"
NULLABLE_REPRESENTATION = "nullableRepresentation"

SUPPORTED_PROPERTIES: dict[str, frozenset[str]] = {
    "KAFKA": frozenset(),
    "JSON": frozenset(),
    "NONE": frozenset(),
    "DELIMITED": frozenset({DELIMITER}),
    "AVRO": frozenset({FULL_SCHEMA_NAME, SCHEMA_ID}),
    "JSON_SR": frozenset({FULL_SCHEMA_NAME, SCHEMA_ID}),
    "PROTOBUF": frozenset({FULL_SCHEMA_NAME, SCHEMA_ID, NULLABLE_REPRESENTATION, "unwrapPrimitives", "subjectName"}),
    "PROTOBUF_NOSR": frozenset({NULLABLE_REPRESENTATION, "unwrapPrimitives"}),
}

_BOTH = frozenset({SerdeFeature.WRAP_SINGLES, SerdeFeature.UNWRAP_SINGLES})
SUPPORTED_FEATURES: dict[str, frozenset[SerdeFeature]] = {
    "KAFKA": frozenset({SerdeFeature.UNWRAP_SINGLES}),
    "DELIMITED": frozenset({SerdeFeature.UNWRAP_SINGLES}),
    "JSON": _BOTH,
    "JSON_SR": _BOTH,
    "AVRO": _BOTH,
    "PROTOBUF_NOSR": _BOTH,
    # ksqlDB's ProtobufFormat supports WRAP_SINGLES only: a PROTOBUF record is a message, so
    # WRAP_SINGLE_VALUE=false is refused and a single key carries no UNWRAP_SINGLES feature (ksqlDB marks
    # such keys with the format property ``unwrapPrimitives`` instead; the bytes are the same message)
    "PROTOBUF": frozenset({SerdeFeature.WRAP_SINGLES}),
    "NONE": frozenset(),
}

# WITH-clause property -> format property, per side, in the order ksqlDB builds the format's properties.
_WITH_TO_FORMAT: dict[Side, tuple[tuple[str, str], ...]] = {
    Side.KEY: (("KEY_SCHEMA_FULL_NAME", FULL_SCHEMA_NAME), ("KEY_DELIMITER", DELIMITER),
               ("KEY_SCHEMA_ID", SCHEMA_ID), ("KEY_PROTOBUF_NULLABLE_REPRESENTATION", NULLABLE_REPRESENTATION)),
    Side.VALUE: (("VALUE_SCHEMA_FULL_NAME", FULL_SCHEMA_NAME), ("VALUE_AVRO_SCHEMA_FULL_NAME", FULL_SCHEMA_NAME),
                 ("VALUE_DELIMITER", DELIMITER), ("VALUE_SCHEMA_ID", SCHEMA_ID),
                 ("VALUE_PROTOBUF_NULLABLE_REPRESENTATION", NULLABLE_REPRESENTATION)),
}


NAMED_DELIMITERS = {"TAB": "\t", "SPACE": " "}
DELIMITER_EXAMPLE = "\nExample valid value: ';'"


def parse_delimiter(value: Any) -> str:
    """ksqlDB's ``Delimiter.parse``: one character, or exactly ``TAB`` / ``SPACE``; blank is refused (a
    literal tab or space is easy to lose, so it must be named). FormatRuleError with ksqlDB's text."""
    text = str(value)
    if not text.strip():
        raise FormatRuleError("Delimiter cannot be empty, if you meant to have a tab or space for delimiter, please "
                         f"use the special values 'TAB' or 'SPACE'{DELIMITER_EXAMPLE}")
    if len(text) == 1:
        return text
    named = NAMED_DELIMITERS.get(text)
    if named is not None:
        return named
    raise FormatRuleError(f"Invalid delimiter value: '{text}'. Delimiter must be a single character or "
                     f"{','.join(NAMED_DELIMITERS)}{DELIMITER_EXAMPLE}")


def format_properties(side: Side, with_props: dict[str, Any]) -> dict[str, str]:
    """The format properties one side's WITH clause sets (upper-case WITH keys in ``with_props``)."""
    out: dict[str, str] = {}
    for with_name, prop in _WITH_TO_FORMAT[side]:
        value = with_props.get(with_name)
        if value is not None:
            out[prop] = str(value).strip() if prop == FULL_SCHEMA_NAME else str(value)
    return out


def _java_map(props: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in props.items()) + "}"


def check_format_properties(fmt: str, props: dict[str, str]) -> None:
    """ksqlDB's ``Format.validateProperties``: only the properties ``fmt`` knows, none of them blank."""
    unsupported = [p for p in props if p not in SUPPORTED_PROPERTIES.get(fmt, frozenset())]
    if unsupported:
        raise KsqlStatementError(f"{fmt} does not support the following configs: [{', '.join(unsupported)}]")
    for name, value in props.items():
        if not value.strip():
            raise KsqlStatementError(f"{name} cannot be empty. Format configuration: {_java_map(props)}")


def supports(fmt: str, feature: SerdeFeature) -> bool:
    return feature in SUPPORTED_FEATURES.get(fmt, frozenset())


def value_wrapping(fmt: str, n_values: int, explicit: bool | None, default: bool | None) -> bool | None:
    """The value's single-field wrapping (True: WRAP_SINGLES, False: UNWRAP_SINGLES, None: the format's
    natural shape), ksqlDB's ``SerdeFeaturesFactory``: an explicit WRAP_SINGLE_VALUE needs a single value
    column and a format that supports it; ``ksql.persistence.wrap.single.values`` (``default``) applies
    only when it was set (None: unset, ksqlDB's null default) and where the format supports that feature
    (``SerdeFeaturesFactory.getValueWrapping``, from memory)."""
    if explicit is not None:
        if n_values != 1:
            raise KsqlStatementError("'WRAP_SINGLE_VALUE' is only valid for single-field value schemas")
        feature = SerdeFeature.WRAP_SINGLES if explicit else SerdeFeature.UNWRAP_SINGLES
        if not supports(fmt, feature):
            raise KsqlStatementError(f"Format '{fmt}' does not support 'WRAP_SINGLE_VALUE' set to "
                                     f"'{str(explicit).lower()}'.")
        return explicit
    if default is None or n_values != 1:  # unset: no feature, the format's natural shape
        return None
    feature = SerdeFeature.WRAP_SINGLES if default else SerdeFeature.UNWRAP_SINGLES
    return default if supports(fmt, feature) else None


def key_unwraps(fmt: str, n_keys: int) -> bool:
    """A single key column is written bare (UNWRAP_SINGLES) by formats that could do either."""
    return n_keys == 1 and SUPPORTED_FEATURES.get(fmt, frozenset()) >= _BOTH
