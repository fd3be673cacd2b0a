"""The acceptance scenario of Python functions (issue 15), shared by the shell, server and worker tests: one
extension file with a @udf, a @udtf and a @udaf, and the statements that use them in a push query, a
persistent CTAS and a pull query."""

from __future__ import annotations

from pathlib import Path

EXTENSION = '''
from ksqlpy.udf import udaf, udf, udtf


@udf("TAXED", description="The price with 20 percent tax.")
def taxed(price: float) -> float:
    return round(price * 1.2, 2)


@udtf("WORDS", description="One row per word of a text.")
def words(text: str) -> list[str]:
    return text.split() if text else []


@udaf("LONGEST", description="The longest text seen (undo-less: streams only).")
class Longest:
    def initialize(self) -> str:
        return ""

    def aggregate(self, text: str, longest: str) -> str:
        return text if text is not None and len(text) > len(longest) else longest

    def merge(self, a: str, b: str) -> str:
        return a if len(a) >= len(b) else b

    def map(self, longest: str) -> str:
        return longest
'''

STREAM = ("CREATE STREAM ORDERS (ID STRING KEY, ITEM STRING, PRICE DOUBLE) "
          "WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);")
INSERTS = ("INSERT INTO ORDERS (ID, ITEM, PRICE) VALUES ('a', 'red apple', 10.0); "
           "INSERT INTO ORDERS (ID, ITEM, PRICE) VALUES ('a', 'pear', 5.0);")
CTAS = "CREATE TABLE LONGEST_ITEM AS SELECT ID, LONGEST(ITEM) AS L, COUNT(*) AS N FROM ORDERS GROUP BY ID;"
PUSH = "SELECT ID, TAXED(PRICE) AS T, WORDS(ITEM) AS W FROM ORDERS EMIT CHANGES LIMIT 3;"
PULL = "SELECT L, N FROM LONGEST_ITEM WHERE ID = 'a';"


def write_extension(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "shop_functions.py"
    path.write_text(EXTENSION)
    return path
