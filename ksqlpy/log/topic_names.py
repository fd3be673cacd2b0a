"""Kafka's rule for topic names (``org.apache.kafka.common.internals.Topic.validate``), with its messages.

Both logs check a name before creating a topic, so an invalid name is the statement's error (a 400 on the
REST API) with the words Kafka uses for the rule that fails - never a failure from deeper down.
"""

from __future__ import annotations

import re

from ksqlpy.errors import KsqlStatementError

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


class InvalidTopicName(KsqlStatementError, ValueError):
    """A topic name Kafka refuses."""


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
