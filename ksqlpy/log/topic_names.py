"""Kafka's rules for a new topic - its name (``org.apache.kafka.common.internals.Topic.validate``) and its
partition count - with their messages.

Both logs check a topic before creating it, so a name or partition count Kafka refuses is the statement's
error (a 400 on the REST API) in the words of the rule that fails - never a failure from deeper down.
"""

from __future__ import annotations

import re

from ksqlpy.errors import KsqlStatementError

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


class InvalidTopicName(KsqlStatementError, ValueError):
    """A topic name Kafka refuses."""


class InvalidPartitionCount(KsqlStatementError, ValueError):
    """A partition count Kafka refuses (``InvalidPartitionsException``)."""


def check_partitions(name: str, partitions: int) -> None:
    if partitions < 1:
        raise InvalidPartitionCount(f"Topic {name!r}: the number of partitions must be at least 1, got {partitions}")


def check_topic_name(name: str) -> None:
    if not name:
        raise InvalidTopicName("Topic name is illegal, it can't be empty")
    if name in (".", ".."):
        raise InvalidTopicName('Topic name cannot be "." or ".."')
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidTopicName(f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, "
                               f"topic name: {name}")
    if not _LEGAL.fullmatch(name):
        raise InvalidTopicName(f'Topic name "{name}" is illegal, it contains a character other than ASCII '
                               "alphanumerics, '.', '_' and '-'")
