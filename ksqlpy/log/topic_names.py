"""Kafka's rules for a new topic - its name (``org.apache.kafka.common.internals.Topic.validate``) and its
partition and replica counts - with their messages.

Both logs check a topic before creating it, so a name or count Kafka refuses is the statement's error (a
400 on the REST API) in the words of the rule that fails - never a failure from deeper down.

A new topic's config is judged before its counts (``check_config``: ``retention.ms`` at least -1).

The counts are the KRaft controller's rule (from memory of ``ReplicationControlManager.createTopic``): -1
asks for the broker's default (``num.partitions``, ``default.replication.factor``: 1 on the embedded log),
any other count below 1 is refused - the replication factor judged first. Some brokers are laxer (Tansu
creates a topic of 0 partitions), so the Kafka log checks too. The refusal is the broker's exception;
whoever creates the topic for a statement words it as ksqlDB's topic client does (``TopicNotGuaranteed``).
"""

from __future__ import annotations

import re

from ksqlpy.errors import KsqlError, KsqlStatementError, caused_by

MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


class InvalidTopicName(KsqlStatementError, ValueError):
    """A topic name Kafka refuses."""


BROKER_DEFAULT = -1  # a count left to the broker (Kafka's CreateTopicsRequest NO_NUM_PARTITIONS / replication)


class TopicCreationRefused(KsqlError, ValueError):
    """A new topic the broker refuses (its counts or its config), in the broker's words."""


class TopicCountRefused(TopicCreationRefused):
    """A partition or replica count the broker refuses, in the broker's words."""


class InvalidReplicationFactor(TopicCountRefused):
    """Kafka's ``InvalidReplicationFactorException``."""


class InvalidPartitionCount(TopicCountRefused):
    """Kafka's ``InvalidPartitionsException``."""


class InvalidTopicConfig(TopicCreationRefused):
    """Kafka's ``InvalidConfigurationException`` (the controller's ``INVALID_CONFIG``)."""


MIN_RETENTION_MS = -1  # LogConfig: retention.ms atLeast(-1), -1 keeping records forever


def check_config(config: dict[str, str]) -> None:
    """The controller's check of a new topic's config, made before its counts are judged (from memory of
    KRaft's ``ReplicationControlManager.createTopics``: each topic's config changes are validated - Kafka's
    ``LogConfig`` ConfigDef, a ``ConfigException`` answered as ``INVALID_CONFIG`` with its message - and a
    topic whose config fails is never placed). Of the configs ksqlDB sets, only ``retention.ms`` has a
    range a statement can leave (its ``RETENTION_MS`` is any LONG): ``Range.atLeast(-1)``, worded by
    ``ConfigException(name, value, message)``."""
    raw = config.get("retention.ms")
    if raw is None:
        return
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise InvalidTopicConfig(f"Invalid value {raw} for configuration retention.ms: Not a number of type "
                                 "LONG") from None
    if value < MIN_RETENTION_MS:
        raise InvalidTopicConfig(f"Invalid value {value} for configuration retention.ms: Value must be at "
                                 f"least {MIN_RETENTION_MS}")


def check_counts(partitions: int, replicas: int) -> None:
    """The controller's check of a new topic's counts: each at least 1, or -1 for the broker's default."""
    if replicas != BROKER_DEFAULT and replicas < 1:
        raise InvalidReplicationFactor("Replication factor must be larger than 0, or -1 to use the default value.")
    if partitions != BROKER_DEFAULT and partitions < 1:
        raise InvalidPartitionCount("Number of partitions was set to an invalid non-positive value.")


def resolved_counts(partitions: int, replicas: int, default_partitions: int = 1,
                    default_replicas: int = 1) -> tuple[int, int]:
    """The counts a topic is created with, a -1 replaced by the broker's default."""
    return (default_partitions if partitions == BROKER_DEFAULT else partitions,
            default_replicas if replicas == BROKER_DEFAULT else replicas)


class TopicNotGuaranteed(KsqlError):
    """ksqlDB's topic client's failure to create a statement's topic (``KafkaTopicClientImpl.createTopic``,
    from memory): ``Failed to guarantee existence of topic <name>`` caused by the broker's refusal, which the
    REST API prints as ErrorMessageUtil does: a ``Caused by:`` line with the broker exception's message
    (ExecutorUtil.executeWithRetries rethrows the admin future's cause, not its ExecutionException: the
    client's ``catch (TopicExistsException)`` relies on it)."""

    def __init__(self, topic: str, refusal: TopicCreationRefused) -> None:
        super().__init__(f"Failed to guarantee existence of topic {topic}\n{caused_by(refusal.message)}")
        self.refusal = refusal


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
