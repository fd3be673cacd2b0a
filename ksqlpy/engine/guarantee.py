"""The processing guarantee in force, and the refusal of one that cannot hold.

``processing.guarantee=exactly_once_v2`` commits a batch's outputs, changelog records and input offsets in
one Kafka transaction; a crash aborts the attempt and the restarted query processes the batch again. That
is exactly once only when readers never see aborted records. Some Kafka-protocol brokers (tansu) accept
transactions but show aborted records to ``read_committed`` consumers: after a kill -9 mid-backlog a
windowed count then includes the aborted attempt's records as well (measured: 10 % over) - silently.

So an engine asked for exactly-once on Kafka probes the broker (``KafkaLog.isolates_aborted``) and refuses
to start when it does not isolate aborted transactions, naming the broker's behaviour and the settings,
unless the operator accepts at-least-once results with ``ksqlpy.processing.guarantee.accept.at.least.once``.
The guarantee in force is logged at start-up and kept on the engine (``Engine.guarantee``). A query given
``exactly_once_v2`` in its own properties (run by worker processes with transactional producers) is
checked the same way before it starts. The embedded log commits each batch in one LMDB transaction: exactly
once whatever the setting asks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ksqlpy.errors import KsqlError
from ksqlpy.properties import as_bool, resolve

LOG = logging.getLogger("ksqlpy.engine")
ACCEPT_AT_LEAST_ONCE = "ksqlpy.processing.guarantee.accept.at.least.once"
_EXACTLY_ONCE = ("exactly_once", "exactly_once_beta", "exactly_once_v2")


class Guarantee(Enum):
    EXACTLY_ONCE = "exactly_once"
    AT_LEAST_ONCE = "at_least_once"


@dataclass(frozen=True)
class GuaranteeInForce:
    guarantee: Guarantee
    reason: str

    def __str__(self) -> str:
        return f"{self.guarantee.value} ({self.reason})"


class GuaranteeCannotHold(KsqlError):
    """Exactly-once was asked for on a broker that does not isolate aborted transactions."""


def requested(properties: Any) -> str:
    return str(resolve("processing.guarantee", properties, default="at_least_once")).strip().lower()


def _accepts(properties: Any) -> bool:
    return as_bool(resolve(ACCEPT_AT_LEAST_ONCE, properties, default="false"))


def isolates(log: Any) -> bool:
    """Whether ``log``'s readers never see aborted records; probed once per log (a probe takes a topic and
    two transactions)."""
    probe = getattr(log, "isolates_aborted", None)
    if probe is None:
        return True  # the embedded log: a batch is one local transaction, nothing aborted is ever visible
    cached = getattr(log, "_isolation_probed", None)
    if cached is None:
        cached = bool(probe())
        log._isolation_probed = cached
    return cached


def aborted_visible(log: Any) -> str:
    """What a broker that does not isolate aborted transactions does, named for a refusal."""
    servers = resolve("bootstrap.servers", dict(getattr(log, "config", None) or {}), default="")
    return (f"the Kafka broker{f' at {servers}' if servers else ''} shows the records of aborted "
            "transactions to read_committed consumers (it does not isolate aborted transactions)")


def accepts_at_least_once(properties: Any) -> bool:
    """The operator accepted at-least-once results where exactly-once cannot hold."""
    return _accepts(properties)


def guarantee_in_force(log: Any, properties: Any) -> GuaranteeInForce:
    """What the engine guarantees on ``log`` under ``properties``; raises GuaranteeCannotHold."""
    asked = requested(properties)
    if getattr(log, "isolates_aborted", None) is None:
        return GuaranteeInForce(Guarantee.EXACTLY_ONCE, "embedded log: each batch's outputs, state and input "
                                "position commit in one local transaction")
    if asked not in _EXACTLY_ONCE:
        return GuaranteeInForce(Guarantee.AT_LEAST_ONCE, f"processing.guarantee={asked}")
    if isolates(log):
        return GuaranteeInForce(Guarantee.EXACTLY_ONCE, f"processing.guarantee={asked}; the broker isolates "
                                "aborted transactions")
    behaviour = aborted_visible(log)
    if _accepts(properties):
        return GuaranteeInForce(Guarantee.AT_LEAST_ONCE, f"processing.guarantee={asked} was asked, but {behaviour}; "
                                f"at-least-once accepted by {ACCEPT_AT_LEAST_ONCE}=true")
    raise GuaranteeCannotHold(
        f"processing.guarantee={asked} cannot hold: {behaviour}, so after a crash a query would also count the "
        "records of its aborted attempt. Use a broker that isolates aborted transactions, set "
        f"processing.guarantee=at_least_once, or accept at-least-once results with {ACCEPT_AT_LEAST_ONCE}=true.")


def check_engine(log: Any, properties: Any) -> GuaranteeInForce:
    """The start-up check: the guarantee in force, logged; raises GuaranteeCannotHold."""
    in_force = guarantee_in_force(log, properties)
    level = logging.WARNING if requested(properties) in _EXACTLY_ONCE and \
        in_force.guarantee is Guarantee.AT_LEAST_ONCE else logging.INFO
    LOG.log(level, "processing guarantee in force: %s", in_force)
    return in_force


def check_query(log: Any, properties: Any) -> None:
    """A query asking for exactly-once in its own properties: refused where it cannot hold."""
    if requested(properties) in _EXACTLY_ONCE:
        guarantee_in_force(log, properties)
