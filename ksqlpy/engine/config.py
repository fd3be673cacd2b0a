"""Engine properties: the names, defaults and resolver live in ``ksqlpy.properties`` (the runtime and its
worker processes read properties the same way, without the engine)."""

from ksqlpy.properties import (
    DEFAULT_PROPERTIES,
    STREAMS_PREFIX,
    Properties,
    as_bool,
    bare,
    canonical,
    explicitly_set,
    layer,
    merge_layers,
    resolve,
)

__all__ = ["DEFAULT_PROPERTIES", "STREAMS_PREFIX", "Properties", "as_bool", "bare", "canonical", "explicitly_set",
           "layer", "merge_layers", "resolve"]
