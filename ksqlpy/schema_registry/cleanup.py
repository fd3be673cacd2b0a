"""The schemas of a terminated query's internal topics go with the topics, for good.

ksqlDB's query cleanup (from memory of SchemaRegistryUtil.cleanupInternalTopicSchemas, run by its
QueryCleanupService when a persistent query is terminated or its sink dropped) deletes each subject of the
query's internal topics - ``<application id>...-repartition`` and ``...-changelog``, ``-key`` and ``-value`` -
first softly, then permanently, so that no version number or id of a topic that no longer exists is kept;
a failure is logged, never the statement's. A user's topic is different: DROP ... DELETE TOPIC deletes its
subjects softly only (TopicDeleteInjector), and a later CREATE over the same topic continues the subject's
version numbers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from ksqlpy.schema_registry import is_configured, subject

LOG = logging.getLogger(__name__)


def delete_internal_subjects(registry: Any, topics: Iterable[str]) -> list[str]:
    """Soft- then hard-delete the key and value subjects of ``topics``; the subjects that were deleted."""
    if registry is None or not is_configured(registry):
        return []
    existing = set(_subjects(registry))
    deleted: list[str] = []
    for topic in topics:
        for is_key in (True, False):
            name = subject(topic, is_key)
            if name not in existing:
                continue
            try:
                registry.delete_subject(name)
                registry.delete_subject(name, permanent=True)
                deleted.append(name)
            except Exception:  # noqa: BLE001 - best effort, as ksqlDB's: the query is gone regardless
                LOG.warning("could not clean up the schema registry subject %s", name, exc_info=True)
    return deleted


def _subjects(registry: Any) -> list[str]:
    try:
        return list(registry.subjects(include_deleted=True))
    except Exception:  # noqa: BLE001 - a registry that cannot answer has nothing we can delete
        LOG.warning("could not list the schema registry's subjects", exc_info=True)
        return []
