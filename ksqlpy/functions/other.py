"""OTHER functions: GEO_DISTANCE (haversine, as ksqlDB computes it) and AS_VALUE (identity; the compiler
uses it to copy a key column into the value)."""

from __future__ import annotations

import math
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, udf

EARTH_RADIUS_KM = 6371.0
EARTH_RADIUS_MILES = 3959.0


def _radius(unit: Any) -> float:
    if unit is None:
        return EARTH_RADIUS_KM
    u = unit.lower()
    if u in ("mi", "mile", "miles"):
        return EARTH_RADIUS_MILES
    if u in ("km", "kilometer", "kilometers", "kilometre", "kilometres"):
        return EARTH_RADIUS_KM
    raise FunctionError(
        "GeoDistance function units parameter must be one of: MI, MILES, KM, KILOMETERS. Values are case-insensitive."
    )


def _geo_distance(lat1: Any, lon1: Any, lat2: Any, lon2: Any, unit: Any = None) -> Any:
    """Great-circle distance (haversine) between two points in decimal degrees; km unless unit is miles."""
    if lat1 is None or lon1 is None or lat2 is None or lon2 is None:
        return None
    if not (-90 <= lat1 <= 90 and -90 <= lat2 <= 90):
        raise FunctionError(
            "valid latitude values for GeoDistance function are in the range of -90 to 90 decimal degrees"
        )
    if not (-180 <= lon1 <= 180 and -180 <= lon2 <= 180):
        raise FunctionError(
            "valid longitude values for GeoDistance function are in the range of -180 to +180 decimal degrees"
        )
    radius = _radius(unit)
    d_lat = _to_radians(lat2 - lat1)
    d_lon = _to_radians(lon2 - lon1)
    a = math.sin(d_lat / 2) ** 2 + math.sin(d_lon / 2) ** 2 * math.cos(_to_radians(lat1)) * math.cos(
        _to_radians(lat2)
    )
    return 2 * math.asin(math.sqrt(a)) * radius


def _to_radians(deg: float) -> float:
    # Math.toRadians as ksqlDB's expected distances were computed (deg / 180 * PI, not deg * (PI / 180)).
    return deg / 180.0 * math.pi


def _identity(v: Any) -> Any:
    return v


def register(registry: FunctionRegistry) -> None:
    registry.register(
        udf(
            "GEO_DISTANCE",
            category="OTHER",
            description="The great-circle distance between two lat/lon points, in km or in the given unit "
            "('KM' or 'MI').",
            overloads=[
                ("DOUBLE, DOUBLE, DOUBLE, DOUBLE", "DOUBLE", _geo_distance),
                ("DOUBLE, DOUBLE, DOUBLE, DOUBLE, STRING", "DOUBLE", _geo_distance),
            ],
        )
    )
    registry.register(
        udf(
            "AS_VALUE",
            category="OTHER",
            description="Copies a value (typically a key column) into the value of the result.",
            overloads=[("T", "T", _identity)],
        )
    )
