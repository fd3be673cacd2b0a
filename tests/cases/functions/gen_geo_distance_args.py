"""GEO_DISTANCE's arguments as ksqlDB's GeoDistance UDF takes them (from memory of its source): the four
coordinates are Java doubles, so a NULL one fails the call (NULL, the processing log); the unit is read in
any case among mi, mile, miles, km, kilometer(s), kilometre(s), a NULL unit is kilometres (as ksqlDB's geodistance
tests show), any other text ('MI ', '', 'furlongs') is refused with 'GeoDistance function units parameter must
be one of: MI, MILES, KM, KILOMETERS. Values are case-insensitive.' (NULL). The range checks are ``lat < -90 || lat > 90`` (and +-180 for
longitudes), so a NaN coordinate passes them and the distance is NaN, while an infinite one is refused.

Writes tests/cases/functions/geo-distance-args.json: ``python tests/cases/functions/gen_geo_distance_args.py``.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from probe_case import probe_case, write_cases  # noqa: E402

COLUMNS = "A DOUBLE, Z DOUBLE, N DOUBLE, U STRING"
ROW = {"A": 10.0, "Z": 0.0, "N": None, "U": None}
KM = 1568.5205567985759
MI = 974.6935935277919

UNITS = [
    ("GEO_DISTANCE(A, A, Z, Z)", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'KM')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'km')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'Kilometers')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'MI')", MI),
    ("GEO_DISTANCE(A, A, Z, Z, 'miles')", MI),
    ("GEO_DISTANCE(A, A, Z, Z, 'MiLeS')", MI),
    ("GEO_DISTANCE(A, A, Z, Z, 'Mile')", MI),
    ("GEO_DISTANCE(A, A, Z, Z, 'kilometre')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'KILOMETRES')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'kilometer')", KM),
    ("GEO_DISTANCE(A, A, Z, Z, 'MI ')", None),
    ("GEO_DISTANCE(A, A, Z, Z, '')", None),
    ("GEO_DISTANCE(A, A, Z, Z, 'furlongs')", None),
    ("GEO_DISTANCE(A, A, Z, Z, U)", KM),
    ("GEO_DISTANCE(A, A, Z, Z, CAST(NULL AS STRING))", KM),
]

COORDINATES = [
    ("GEO_DISTANCE(N, A, Z, Z)", None),
    ("GEO_DISTANCE(A, N, Z, Z, 'MI')", None),
    ("GEO_DISTANCE(A, A, Z, CAST(NULL AS DOUBLE))", None),
    ("GEO_DISTANCE(Z, Z, Z, Z)", 0.0),
    ("GEO_DISTANCE(90.0, 180.0, -90.0, -180.0)", 20015.086796020572),
    ("GEO_DISTANCE(90.5, Z, Z, Z)", None),
    ("GEO_DISTANCE(Z, -180.5, Z, Z)", None),
    ("GEO_DISTANCE(A / Z, Z, Z, Z)", None),  # +Infinity: out of range
    ("GEO_DISTANCE(Z / Z, Z, Z, Z)", "NaN"),  # NaN passes the range checks
    ("GEO_DISTANCE(Z, Z, Z, Z / Z, 'MI')", "NaN"),
    ("GEO_DISTANCE(Z / Z, Z, Z, Z, 'furlong')", None),  # the unit is checked after the coordinates
]

if __name__ == "__main__":
    write_cases(str(pathlib.Path(__file__).with_name("geo-distance-args.json")), __doc__ or "", [
        probe_case("units", UNITS, COLUMNS, ROW),
        probe_case("coordinates", COORDINATES, COLUMNS, ROW),
    ])
