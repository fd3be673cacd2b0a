"""Geographic functions for ksqlpy: each kind of user function once."""

from __future__ import annotations

import dataclasses
import math
from typing import Annotated

from ksqlpy.udf import udaf, udf, udtf

EARTH_RADIUS_KM = 6371.0088


@udf("DISTANCE_KM", description="Great-circle distance between two points, in kilometres.",
     author="ksqlpy examples", version="0.1.0")
def distance_km(lat1: Annotated[float, "latitude of the first point"], lon1: float, lat2: float,
                lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))


@udf("DISTANCE_KM_BATCH", vectorized=True,
     description="DISTANCE_KM computed for a whole batch at once (the same results).")
def distance_km_batch(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    rows = zip(lat1, lon1, lat2, lon2, strict=True)
    return [None if None in (a, b, c, d) else distance_km(a, b, c, d) for a, b, c, d in rows]


@udtf("NEIGHBOUR_CELLS", description="The one-degree grid cell of a point and its eight neighbours.")
def neighbour_cells(lat: float, lon: float) -> list[str]:
    if lat is None or lon is None:
        return []
    row, col = math.floor(lat), math.floor(lon)
    return [f"{row + dr}:{col + dc}" for dr in (-1, 0, 1) for dc in (-1, 0, 1)]


@dataclasses.dataclass
class Centre:
    lat: float
    lon: float
    n: int


@udaf("CENTROID", description="The mean position of the points (with undo: works over tables).")
class Centroid:
    def initialize(self) -> Centre:
        return Centre(0.0, 0.0, 0)

    def aggregate(self, lat: float, lon: float, centre: Centre) -> Centre:
        if lat is None or lon is None:
            return centre
        n = centre.n + 1
        return Centre(centre.lat + (lat - centre.lat) / n, centre.lon + (lon - centre.lon) / n, n)

    def undo(self, lat: float, lon: float, centre: Centre) -> Centre:
        if lat is None or lon is None or centre.n <= 1:
            return Centre(0.0, 0.0, 0) if lat is not None and lon is not None else centre
        n = centre.n - 1
        return Centre((centre.lat * centre.n - lat) / n, (centre.lon * centre.n - lon) / n, n)

    def merge(self, a: Centre, b: Centre) -> Centre:
        n = a.n + b.n
        if n == 0:
            return a
        return Centre((a.lat * a.n + b.lat * b.n) / n, (a.lon * a.n + b.lon * b.n) / n, n)

    def map(self, centre: Centre) -> Centre:
        return centre
