"""COUNT_DISTINCT tells values apart as ksqlDB's HyperLogLog hashes them (from memory of ksqlDB's CountDistinct
UDAF, which calls clearspring's ``HyperLogLog.offer(Object)``, and ``MurmurHash.hash(Object)``): an INT or BIGINT
by its value, a DOUBLE by its raw bits, a STRING by its bytes, anything else by its Java ``toString()`` - so BYTES
of one length count once (``java.nio.HeapByteBuffer[pos=0 lim=n cap=n]``), TIME values in one second count once
(java.sql.Time prints hh:mm:ss), a STRING whose lone surrogates ``getBytes()`` writes as '?' counts as that
text (SUBSTRING by UTF-16 units leaves the half of an emoji), and an ARRAY, MAP or STRUCT counts by its printed form (``['a, b']`` is
``['a', 'b']``; a Struct prints without its NULL fields); BOOLEAN, DECIMAL, DATE and TIMESTAMP print one text per
value. NULL is not counted.

Writes tests/cases/aggregations/count-distinct-java-hash.json:
``python tests/cases/aggregations/gen_count_distinct_java_hash.py``.
"""
from __future__ import annotations

import json
import pathlib


def case(name: str, column: str, values: list[object], counts: list[int], arg: str = "V") -> dict[str, object]:
    return {
        "name": name,
        "statements": [
            f"CREATE STREAM S (K STRING KEY, G INT, V {column}) WITH (kafka_topic='s', value_format='JSON');",
            f"CREATE TABLE O AS SELECT G, COUNT_DISTINCT({arg}) AS N FROM S GROUP BY G;",
        ],
        "inputs": [{"topic": "s", "key": "k", "value": {"G": 1, "V": v}} for v in values],
        "outputs": [{"topic": "O", "key": 1, "value": {"N": n}} for n in counts],
    }


CASES = [
    # BYTES: base64 'YWJj' abc, 'eHl6' xyz (3 bytes each), 'YWJjZA==' abcd
    case("bytes of one length count once", "BYTES", ["YWJj", "eHl6", None, "YWJjZA==", "YWJj"], [1, 1, 1, 2, 2]),
    # TIME in ms of the day: 10:00:00.100, 10:00:00.900, 10:00:01.000
    case("time values in one second count once", "TIME", [36000100, 36000900, 36001000, None], [1, 1, 2, 2]),
    case("arrays count by their printed form", "ARRAY<STRING>",
         [["a, b"], ["a", "b"], ["b", "a"], [None], ["null"], []], [1, 1, 2, 3, 3, 4]),
    case("arrays of numbers in order", "ARRAY<INT>", [[1, 2], [2, 1], [1, 2], [None, 1]], [1, 2, 2, 3]),
    case("structs print without their null fields", "STRUCT<A STRING, B STRING>",
         [{"A": "x,B=y", "B": None}, {"A": "x", "B": "y"}, {"A": None, "B": None}, {"A": "x", "B": None},
          {"B": "y"}], [1, 1, 2, 3, 4]),
    case("maps count by their printed form", "MAP<STRING, STRING>",
         [{"a": "1"}, {"a": "1"}, {"a": "1, b=2"}, {"a": "1", "b": "2"}, {}], [1, 1, 2, 2, 3]),
    case("decimals one text per value", "DECIMAL(4, 2)", [1, 1.0, 1.5, 10.25, 1.50], [1, 1, 2, 3, 3]),
    case("dates and timestamps one text per value", "TIMESTAMP", [0, 1, 1000, 1, 86400000], [1, 2, 3, 3, 4]),
    case("dates one per day", "DATE", [0, 1, 0, 19000], [1, 2, 2, 3]),
    case("booleans", "BOOLEAN", [True, False, None, True], [1, 2, 2, 2]),
    # a negative zero as the string "-0.0" (Double.parseDouble keeps its sign; the number -0.0 reads as the
    # BigDecimal 0.0, which has none), and the number -0.0 counting as 0.0
    case("doubles by their bits", "DOUBLE", [0.0, "-0.0", 1.0, 1, 0.0, -0.0], [1, 2, 3, 3, 3, 3]),
    case("strings by their text", "STRING", ["a", "A", "", "a", "null"], [1, 2, 3, 3, 4]),
    case("strings by their UTF-8 bytes: a lone surrogate is '?'", "STRING",
         ["a\U0001F600", "a?", "a\U0001F601", "a\u00e9", "ab"], [1, 1, 1, 2, 3], "SUBSTRING(V, 1, 2)"),
    case("bigints by their value", "BIGINT", [1, 2, 1, -1], [1, 2, 2, 3]),
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("count-distinct-java-hash.json")
    doc = (__doc__ or "").split("\n\n")[0].replace("\n", " ")
    out.write_text(json.dumps({"comments": [doc], "tests": CASES}, indent=1) + "\n")
