"""Which properties a request (``streamsProperties``, ``properties``, SET, /is_valid_property) may override.

The names and values are the engine's (``ksqlpy.engine.property_names``); this module turns a refusal into
the REST answer: 400/40000 for a request's overrides and /is_valid_property. A request's overrides are read
as ksqlDB's KsqlRequest reads them (its LocalPropertyParser, from memory): the name resolved (unknown ->
not recognizable), the value parsed by its config (a bad value named), then LocalPropertyValidator - a
property the server fixes at start (``IMMUTABLE_PROPERTIES``) cannot be overridden - on /ksql, /query,
/query-stream and /ws/query alike.
"""

from __future__ import annotations

from typing import Any

from ksqlpy.engine import property_names as N
from ksqlpy.engine.config import canonical
from ksqlpy.engine.property_values import check_property as check_value
from ksqlpy.errors import KsqlError
from ksqlpy.server.errors import bad_request


def denylist(config_value: Any) -> set[str]:
    return {p.strip() for p in str(config_value or "").split(",") if p.strip()}


def check_property(name: str, denied: set[str]) -> None:
    """Raise 400/40000 unless ``name`` may be overridden per request."""
    if N.is_denied(name, denied):
        raise bad_request(N.denied([name]))
    if not N.recognized(name):
        raise bad_request(N.not_recognizable(name))


def check_valid_property(name: str, denied: set[str], shared_runtimes: bool) -> None:
    """``GET /is_valid_property/<name>`` (from memory of ksqlDB's KsqlResource.isValidProperty): only the
    server's denylist is consulted - an unknown name is valid there (the request carrying it is refused
    later) - and, with shared runtimes on, a property that is not query-level is refused too."""
    if N.is_denied(name, denied):
        raise bad_request(N.denied([name]))
    if shared_runtimes and canonical(name) not in N.QUERY_LEVEL:
        raise bad_request(f"When shared runtimes are enabled, the config {{{name}=}} can only be set for the "
                          "entire cluster and all queries currently running in it, and not configurable for "
                          "individual queries. Please use ALTER SYSTEM to change this config for all queries.")


def check_overrides(props: dict[str, Any], denied: set[str]) -> dict[str, Any]:
    """Validated per-request overrides, values as strings (ksqlDB tolerates other JSON scalars)."""
    refused = [name for name in props if N.is_denied(name, denied)]
    if refused:
        raise bad_request(N.denied(refused))
    out: dict[str, Any] = {}
    for name, value in props.items():
        check_property(name, denied)
        if isinstance(value, dict | list):
            raise bad_request(f"Invalid value for property {name}: expected a string")
        text = value if isinstance(value, str) else ("true" if value is True else "false" if value is False
                                                     else str(value) if value is not None else None)
        if text is None:
            continue
        try:
            check_value(name, text)
        except KsqlError as e:
            raise bad_request(e.message) from e
        fixed = N.immutable_name(name)  # what the server fixes at start (ksqlDB's LocalPropertyValidator)
        if fixed is not None:
            raise bad_request(N.cannot_override(fixed))
        out[name] = text
    return out
