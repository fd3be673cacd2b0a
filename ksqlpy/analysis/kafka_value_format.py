"""ksqlDB's Analyzer refuses a JOIN or GROUP BY over a source whose value format is KAFKA: the format cannot back
the repartition and changelog topics those need. One message for both, naming the sources by their aliases in
the order the FROM clause lists them, with the fixed explanation ksqlDB appends (from memory of its Analyzer's
``KAFKA_VALUE_FORMAT_LIMITATION_DETAILS``; ../shared/reference/ksqldb-rules.md 1.8 gives its first sentence)."""

from __future__ import annotations

from typing import Literal

from ksqlpy.errors import KsqlStatementError

LIMITATION_DETAILS = (
    "The KAFKA format is primarily intended for use as a key format.\n"
    "It can be used as a value format, but can not be used in any operation that requires a repartition or "
    "changelog topic.\n"
    "Removing this limitation requires enhancements to the core of KSQL. This will come in a future release. "
    "Until then, avoid using the KAFKA format for values.\n"
    "If you have an existing topic with KAFKA formatted values you can duplicate the data and serialize using "
    "Avro or JSON with a statement such as: \n"
    "\n"
    "'CREATE STREAM <new-stream-name> WITH(VALUE_FORMAT='Avro') AS SELECT * FROM "
    "<existing-kafka-formatted-stream-name>;'\n"
    "For more info see https://github.com/confluentinc/ksql/issues/3060"
)


def is_kafka_value_format(value_format: str | None) -> bool:
    return (value_format or "").upper() == "KAFKA"


def kafka_value_format_refusal(aliases: list[str], operation: Literal["JOIN", "GROUP BY"]) -> KsqlStatementError:
    """``Source(s) <aliases> are using the 'KAFKA' value format. This format does not yet support <op>.``"""
    return KsqlStatementError(f"Source(s) {', '.join(aliases)} are using the 'KAFKA' value format. This format "
                              f"does not yet support {operation}.\n{LIMITATION_DETAILS}")
