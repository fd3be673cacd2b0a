"""OTHER functions: GEO_DISTANCE (haversine, as ksqlDB computes it) and AS_VALUE (identity; the compiler
uses it to copy a key column into the value)."""

from __future__ import annotations

import math
from typing import Any

from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError, java_primitives, udf

EARTH_RADIUS_KM = 6371.0
EARTH_RADIUS_MILES = 3959.0


def _radius(unit: Any) -> float:
    """A NULL unit is kilometres (ksqlDB's geodistance tests: a row without RADIUS is in km)."""
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


def _geo_distance(lat1: float, lon1: float, lat2: float, lon2: float, unit: Any = None) -> float:
    """Great-circle distance (haversine) between two points in decimal degrees; km unless unit is miles.
    ksqlDB's parameters are Java doubles (a NULL fails the call: ``java_primitives``) and its range checks are
    ``lat < -90 || lat > 90`` (and +-180 for longitudes), so a NaN passes them and the distance is NaN."""
    if lat1 < -90 or lat1 > 90 or lat2 < -90 or lat2 > 90:
        raise FunctionError(
            "valid latitude values for GeoDistance function are in the range of -90 to 90 decimal degrees"
        )
    if lon1 < -180 or lon1 > 180 or lon2 < -180 or lon2 > 180:
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


_GEO_DISTANCE = java_primitives("GEO_DISTANCE", _geo_distance, {0: "double", 1: "double", 2: "double", 3: "double"})


def _identity(v: Any) -> Any:
    return v


def register(registry: FunctionRegistry) -> None:
    registry.register(
        udf(
            "GEO_DISTANCE",
            category="OTHER",
            description="The great-circle distance between two lat/lon points, in km or in the given unit "
            "('KM' or 'MI'; NULL is km). A NULL coordinate fails the call (NULL).",
            overloads=[
                ("DOUBLE, DOUBLE, DOUBLE, DOUBLE", "DOUBLE", _GEO_DISTANCE),
                ("DOUBLE, DOUBLE, DOUBLE, DOUBLE, STRING", "DOUBLE", _GEO_DISTANCE),
            ],
            null_on_null=False,
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
