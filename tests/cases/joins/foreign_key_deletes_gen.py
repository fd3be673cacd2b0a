"""Foreign-key joins (INNER, LEFT): the result of a left row's delete and the time it is written at, over key
formats and partition counts of both tables.

Expected records come from the model of Kafka Streams' foreign-key join processed a record at a time
(``fk_model.py``; Kafka 3.8+: KIP-962, KAFKA-16394 and KAFKA-16407):

- INNER (defaultJoinInstructions): a left delete sends DELETE_KEY_AND_PROPAGATE to the old foreign key; the answer
  is a delete written at the later of the delete's time and the right row's (when the right table holds one), and
  it is sent whether or not a result was ever written; so is a change to a NULL foreign key, and a change from
  one subscribes as an update does (KAFKA-16407). A new row with a NULL foreign key is skipped.
- LEFT (leftJoinInstructions): a left change leaves a different old foreign key with DELETE_KEY_NO_PROPAGATE and
  subscribes the new one (NULL for a delete) with PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE; a NULL foreign key has
  no right row, so a delete is answered at its own time, whatever the old foreign key's right row holds.
- A right change answers every subscriber at its own time; a subscription's answer takes the later time. A right
  delete of a key the right table does not hold is such a change too (the table source forwards (NULL, NULL) for
  every tombstone, as for the primary-key joins of table-table-changes.json): each subscriber's INNER result is
  deleted again, its LEFT row NULL-padded again; a foreign key no row subscribes to answers nobody.

Writes tests/cases/joins/foreign-key-deletes.json: ``python tests/cases/joins/foreign_key_deletes_gen.py
tests/cases/joins/foreign-key-deletes.json`` after changing this file.
"""
import json
import sys

from case_keys import key
from fk_model import fk_join

PAIRS = [("KAFKA", "KAFKA"), ("JSON", "JSON"), ("AVRO", "AVRO"), ("KAFKA", "AVRO"), ("PROTOBUF", "JSON_SR"),
         ("DELIMITED", "KAFKA")]

# (name, [(side, key, value, ts)]) - left values {"FK", "V"}, right values {"W"}; None deletes
SCENARIOS = [
    ("the right row newer than the delete",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 1, None, 6)]),
    ("the right row older than the delete",
     [("r", "a", {"W": 1}, 1), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 1, None, 6)]),
    ("the right row updated after the left row, newer than the delete",
     [("r", "a", {"W": 1}, 1), ("l", 1, {"FK": "a", "V": 1}, 5), ("r", "a", {"W": 2}, 20), ("l", 1, None, 15)]),
    ("the right row deleted before the left row",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": "a", "V": 1}, 5), ("r", "a", None, 12), ("l", 1, None, 13)]),
    ("the foreign key moved to a newer right row, then the delete",
     [("r", "a", {"W": 1}, 10), ("r", "b", {"W": 2}, 30), ("l", 1, {"FK": "a", "V": 1}, 5),
      ("l", 1, {"FK": "b", "V": 1}, 6), ("l", 1, None, 7)]),
    ("no right row for the foreign key",
     [("l", 1, {"FK": "z", "V": 1}, 5), ("l", 1, None, 6), ("r", "z", {"W": 3}, 8)]),
    ("a NULL foreign key",
     [("l", 1, {"FK": None, "V": 1}, 5), ("l", 1, None, 6)]),
    ("a change to a NULL foreign key, then the old right row changes",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 1, {"FK": None, "V": 2}, 6),
      ("r", "a", {"W": 2}, 20), ("l", 1, None, 21)]),
    ("a change from a NULL foreign key to a right row that exists",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": None, "V": 1}, 5), ("l", 1, {"FK": "a", "V": 2}, 6),
      ("r", "a", {"W": 2}, 20)]),
    ("a change from a NULL foreign key to a right row that comes later",
     [("l", 1, {"FK": None, "V": 1}, 5), ("l", 1, {"FK": "b", "V": 2}, 6), ("r", "b", {"W": 3}, 8),
      ("l", 1, {"FK": None, "V": 3}, 9), ("l", 1, None, 12)]),
    ("a delete of a key the left table never held",
     [("r", "a", {"W": 1}, 10), ("l", 9, None, 4)]),
    ("the row re-created after its delete",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 1, None, 6), ("l", 1, {"FK": "a", "V": 2}, 7)]),
    ("two rows on one right row, one deleted, then the right row changes",
     [("r", "a", {"W": 1}, 10), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 2, {"FK": "a", "V": 2}, 6),
      ("l", 1, None, 7), ("r", "a", {"W": 2}, 8)]),
    ("a right delete of a key the right table never held, with a subscriber",
     [("l", 1, {"FK": "z", "V": 1}, 5), ("r", "z", None, 6)]),
    ("a right row deleted twice under two subscribers",
     [("r", "a", {"W": 1}, 1), ("l", 1, {"FK": "a", "V": 1}, 5), ("l", 2, {"FK": "a", "V": 2}, 6),
      ("r", "a", None, 7), ("r", "a", None, 8)]),
    ("a right delete of an absent key nobody subscribes to",
     [("r", "a", {"W": 1}, 1), ("l", 1, {"FK": "a", "V": 1}, 5), ("r", "q", None, 6)]),
    ("a right delete of an absent key its subscriber has left",
     [("l", 1, {"FK": "z", "V": 1}, 5), ("l", 1, {"FK": "b", "V": 2}, 6), ("r", "z", None, 7)]),
]
# every case ends with a row that joins, so that a case expecting no other record still checks the topic
SENTINEL = [("r", "s", {"W": 0}, 0), ("l", 100, {"FK": "s", "V": 0}, 50)]


def model(ops, inner):
    """The join's records: the left row's V and the right row's W, or None for a delete."""
    records, _ = fk_join(ops, lambda k, v: v["FK"], inner=inner)
    return [(k, None if r is None else {"V": r[0]["V"], "W": r[1]["W"] if r[1] else None}, ts)
            for k, r, ts in records]


tests = []
for lf, rf in PAIRS:
    for kind, words in (("INNER", "JOIN"), ("LEFT", "LEFT JOIN")):
        for name, ops in SCENARIOS:
            ops = SENTINEL[:1] + ops + SENTINEL[1:]
            stmts = [f"CREATE TABLE L (ID INT PRIMARY KEY, FK STRING, V INT) WITH (kafka_topic='l', partitions=4, "
                     f"key_format='{lf}', value_format='JSON');",
                     f"CREATE TABLE R (RID STRING PRIMARY KEY, W INT) WITH (kafka_topic='r', partitions=2, "
                     f"key_format='{rf}', value_format='JSON');",
                     f"CREATE TABLE OUTPUT AS SELECT L.ID AS ID, V, W FROM L {words} R ON L.FK = R.RID;"]
            inputs = [{"topic": side, "key": key(lf, "ID", k) if side == "l" else key(rf, "RID", k),
                       "value": v, "timestamp": ts} for side, k, v, ts in ops]
            outputs = [{"topic": "OUTPUT", "key": key(lf, "ID", k), "value": v, "timestamp": ts}
                       for k, v, ts in model(ops, kind == "INNER")]
            tests.append({"name": f"{kind} foreign-key join, {lf}/{rf} keys: {name}", "statements": stmts,
                          "topics": [{"name": "l", "partitions": 4}, {"name": "r", "partitions": 2}],
                          "inputs": inputs, "outputs": outputs})

if __name__ == "__main__":
    json.dump({"comments": ["ksqlpy's own cases, generated by tests/cases/joins/foreign_key_deletes_gen.py (edit "
                            "that): a foreign-key join's result of left deletes and its times, and of right deletes of "
                            "absent keys, INNER and LEFT, over key formats"], "tests": tests}, open(sys.argv[1], "w"), indent=1)
    print(len(tests))
