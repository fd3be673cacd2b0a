"""@udtf end to end: rows of structs, a generator as the result, NULL/None as no row, zipping with another
table function, a failing call logged as ksqlDB logs it."""

from __future__ import annotations

import pytest

from ksqlpy.errors import KsqlError
from tests.udf.conftest import Extensions, plog_errors, values

FUNCTIONS = '''
from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ksqlpy.udf import udtf


@dataclasses.dataclass
class Part:
    index: int
    text: str


@udtf("PARTS", description="The pieces of a text split on a separator, numbered from 1.")
def parts(text: str, sep: str) -> list[Part]:
    if text is None:
        return None
    return [Part(i, t) for i, t in enumerate(text.split(sep), start=1)]


@udtf("COUNT_TO")
def count_to(n: int) -> Iterator[int]:
    if n is not None and n > 100:
        raise ValueError("too many")
    yield from range(1, (n or 0) + 1)
'''


def test_table_functions(ext: Extensions) -> None:
    ext.write("tables.py", FUNCTIONS)
    e = ext.engine()
    e.execute("CREATE STREAM S (K STRING KEY, T STRING, N INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
              "PARTITIONS=1);")
    for k, t, n in (("a", "'x-y'", 3), ("b", "NULL", 1), ("c", "'z'", 1000)):
        e.execute(f"INSERT INTO S (K, T, N) VALUES ('{k}', {t}, {n});")
    e.execute("CREATE STREAM O AS SELECT K, PARTS(T, '-') AS P, COUNT_TO(N) AS C FROM S;")
    e.drain(10)
    assert e.catalog.source("O").schema_string() == "K STRING KEY, P STRUCT<`INDEX` BIGINT, `TEXT` STRING>, C BIGINT"
    assert values(e, "O") == [({"INDEX": 1, "TEXT": "x"}, 1), ({"INDEX": 2, "TEXT": "y"}, 2), (None, 3),
                              (None, 1),  # b: PARTS gave no row (NULL text), COUNT_TO one
                              ({"INDEX": 1, "TEXT": "z"}, None)]  # c: COUNT_TO failed, PARTS still one row
    assert [(x["errorMessage"], x["cause"]) for x in plog_errors(e)] == [
        ("Table function COUNT_TO threw an exception", ["too many"])]
    with pytest.raises(KsqlError, match=r"Function 'PARTS' does not accept parameters \(INTEGER, STRING\)"):
        e.execute("CREATE STREAM BAD AS SELECT K, PARTS(N, '-') AS P FROM S;")
