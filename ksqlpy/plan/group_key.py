"""The key format of an aggregation's internal topics (GROUP BY's repartition topic, the aggregate's store
and changelog): ksqlDB's ``SchemaKStream.groupBy`` / ``SchemaKTable.groupBy`` rule, not the sink's.

ksqlDB plans the grouping before the sink: the grouped key keeps the *input's* key format (a source's, or a
join's result), and the sink's KEY_FORMAT applies only when the result is written. From memory of
``SchemaKStream.groupBy`` and ``SerdeFeaturesFactory.sanitizeKeyFormat``:

* a repartitioning GROUP BY over a keyless input (key format NONE) takes
  ``ksql.persistence.default.format.key``;
* the new key may then change format where the input's cannot hold it
  (``allowKeyFormatChangeToSupportNewKeySchema``): several columns in a format without multi-column keys
  (KAFKA), or a column type the format cannot write as a key (KAFKA: only INT, BIGINT, DOUBLE, STRING,
  BYTES; DELIMITED: no STRUCT/ARRAY/MAP) -> JSON, without the input's format properties;
* a GROUP BY on the input's own key (``groupByKey``, no repartition) keeps the input's format as it is.

Only the wrapping feature follows the new key's column count (``TopicKey`` derives it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ksqlpy.serde.formats import DELIMITED_TYPES, KAFKA_TYPES, base_type
from ksqlpy.types import Primitive, SqlType

JSON = "JSON"
NONE = "NONE"


@dataclass(frozen=True)
class GroupKeyFormat:
    """The grouped key's format with the properties it keeps from the input's (None where it changed)."""

    format: str
    delimiter: str | None = None
    full_name: str | None = None


def holds_key(fmt: str, types: list[SqlType]) -> bool:
    """``fmt`` can write a key of ``types`` (the multi-column and key-type checks of the sanitizer)."""
    if fmt == "KAFKA":
        return len(types) <= 1 and all(isinstance(t, Primitive) and base_type(t) in KAFKA_TYPES for t in types)
    if fmt == "DELIMITED":
        return all(base_type(t) in DELIMITED_TYPES for t in types)
    return fmt != NONE


def group_key_format(input_format: str, types: list[SqlType], *, repartition: bool, default_format: str,
                     delimiter: str | None = None, full_name: str | None = None) -> GroupKeyFormat:
    """The internal key format of a GROUP BY over an input whose key format is ``input_format`` (with its
    ``delimiter`` / ``full_name`` properties) grouping into a key of ``types``."""
    fmt = (input_format or NONE).upper()
    if not repartition:
        return GroupKeyFormat(fmt, delimiter, full_name)
    if fmt == NONE:
        fmt, delimiter, full_name = default_format.upper(), None, None
    if not holds_key(fmt, types):
        return GroupKeyFormat(JSON)
    return GroupKeyFormat(fmt, delimiter, full_name)
