"""A STRING reaches a TIMESTAMP, DATE, TIME or BYTES parameter of a Python function in the second pass of
resolution (ksqlDB's canImplicitlyCast: STRING -> time types and BYTES), also as the elements of an ARRAY or
the keys and values of a MAP (ParamTypes.areCompatible walks them): the function gets what CAST gives - epoch
values and bytes - never the text."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.udf.conftest import Extensions, values

FUNCTIONS = '''
from __future__ import annotations

import datetime as dt

from ksqlpy.udf import udf


@udf("FIRST_TS")
def first_ts(xs: list[dt.datetime]) -> dt.datetime:
    return None if not xs else xs[0]


@udf("DAY_OF")
def day_of(d: dt.date) -> int:
    return d.day


@udf("BYTE_COUNT")
def byte_count(b: bytes) -> int:
    return len(b)


@udf("VALUE_BYTES")
def value_bytes(m: dict[str, bytes]) -> int:
    return sum(len(v) for v in m.values())


@udf("NESTED_BYTES")
def nested_bytes(xs: list[list[bytes]]) -> int:
    return sum(len(b) for x in xs for b in x)
'''

STREAM = ("CREATE STREAM S (K STRING KEY, TS ARRAY<STRING>, D STRING, B STRING, M MAP<STRING, STRING>, "
          "N ARRAY<ARRAY<STRING>>) WITH (kafka_topic='s', value_format='JSON', partitions=1);")
ROW = ("INSERT INTO S VALUES ('k', ARRAY['1970-01-01T00:00:02', '2024-01-31T10:00:00'], '2024-01-31', 'AQID', "
       "MAP('a' := 'AQI=', 'b' := 'AA=='), ARRAY[ARRAY['AQID'], ARRAY['AQ==', 'AA==']]);")


@pytest.fixture
def engine(ext: Extensions):  # type: ignore[no-untyped-def]
    ext.write("functions.py", FUNCTIONS)
    e = ext.engine()
    e.execute(STREAM)
    e.execute(ROW)
    return e


def test_strings_are_converted_as_cast_converts_them(engine) -> None:  # type: ignore[no-untyped-def]
    engine.execute("CREATE STREAM OUT AS SELECT K, FIRST_TS(TS) AS F, DAY_OF(D) AS DD, BYTE_COUNT(B) AS BC, "
                   "VALUE_BYTES(M) AS VB, NESTED_BYTES(N) AS NB FROM S;")
    engine.drain(10)
    assert engine.catalog.source("OUT").schema_string() == (
        "K STRING KEY, F TIMESTAMP, DD BIGINT, BC BIGINT, VB BIGINT, NB BIGINT")
    two_seconds = int(dt.timedelta(seconds=2).total_seconds() * 1000)
    # 'AQID' is three bytes, not four characters; the map's values two and one, the nested arrays 3 + 1 + 1
    assert values(engine, "OUT") == [(two_seconds, 31, 3, 3, 5)]
