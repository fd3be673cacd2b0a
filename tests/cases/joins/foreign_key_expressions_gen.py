"""Foreign-key table-table joins whose foreign key is an expression over the left row rather than a column:
an ARRAY element, a MAP value, a field two STRUCTs deep, a function of an ARRAY, arithmetic, a CASE, and a
CAST that fails on some rows - INNER and LEFT, over KAFKA and JSON right key formats.

The rule (from memory of ksqlDB's LogicalPlanner.verifyJoin / ForeignKeyTableTableJoinBuilder and Kafka
Streams' SubscriptionSendProcessorSupplier / ResponseJoinProcessorSupplier, 3.7+ with KIP-962): a
table-table join whose left side is not the left table's primary key is a foreign-key join; the foreign key
is evaluated on every left change, old and new (an evaluation that fails is logged and is NULL). A left
change sends its instruction to the right row the new foreign key names:

- INNER: a new row with a NULL foreign key is skipped; a new row is answered only if its right row exists;
  an update is answered by the joined row, or a delete if the right row is missing; a delete, and a change to
  a NULL foreign key, by a delete; a change from NULL as an update is (KAFKA-16407).
- LEFT: a NULL foreign key names no right row, so the row is padded with NULLs; otherwise as INNER but an
  answer without a right row is the padded row.
- A left change's answer is stamped with the later of its time and the right row's; a right change answers
  every left row naming it (in left-key order) with its own time: the joined row, or on a right delete a
  delete (INNER) or the padded row (LEFT).

The model below computes the expected rows from these rules; the key is the left table's key.
Writes tests/cases/joins/foreign-key-expressions.json: ``python tests/cases/joins/foreign_key_expressions_gen.py``.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable
from typing import Any

Row = dict[str, Any]


def arr1(r: Row) -> Any:
    a = r["ARR"]
    return a[0] if a else None  # ksqlDB's ARR[1] is 1-based; out of range is NULL


def map_a(r: Row) -> Any:
    return r["M"].get("a") if r["M"] is not None else None


def struct_h(r: Row) -> Any:
    s = r["S"]
    return s["G"]["H"] if s is not None and s["G"] is not None else None


def arr_len(r: Row) -> Any:
    return len(r["ARR"]) if r["ARR"] is not None else None


def plus_one(r: Row) -> Any:
    return r["N"] + 1 if r["N"] is not None else None


def case_expr(r: Row) -> Any:
    return 1 if r["N"] is not None and r["N"] > 5 else 2


def cast_str(r: Row) -> Any:
    try:
        return int(r["STR"])
    except (TypeError, ValueError):
        return None  # ksqlDB logs the failed CAST to the processing log; the key is NULL


EXPRESSIONS: list[tuple[str, str, Callable[[Row], Any]]] = [
    ("L.ARR[1]", "an ARRAY element", arr1),
    ("L.M['a']", "a MAP value", map_a),
    ("L.S->G->H", "a field two STRUCTs deep", struct_h),
    ("ARRAY_LENGTH(L.ARR)", "a function of an ARRAY", arr_len),
    ("L.N + 1", "arithmetic", plus_one),
    ("CASE WHEN L.N > 5 THEN 1 ELSE 2 END", "a CASE", case_expr),
    ("CAST(L.STR AS INT)", "a CAST failing on some rows", cast_str),
]


def left_row(arr: list[int] | None, m: dict[str, int] | None, h: int | None, n: int | None, s: str | None) -> Row:
    return {"ARR": arr, "M": m, "S": None if h is None else {"G": {"H": h}}, "N": n, "STR": s}


# (topic, key, value, timestamp); right rows are older than the left changes that read them, except where
# a right change comes later
INPUTS: list[tuple[str, int, Row | None, int]] = [
    ("r", 1, {"V": "r1"}, 10),
    ("r", 2, {"V": "r2"}, 20),
    ("l", 100, left_row([1, 2], {"a": 2}, 1, 0, "2"), 30),      # names 1 or 2
    ("l", 101, left_row([], {}, None, None, "x"), 40),          # names NULL (2 for the CASE)
    ("l", 102, left_row([3], {"a": 3}, 3, 2, "3"), 50),         # names 3 (missing) or 1 (ARRAY_LENGTH)
    ("l", 100, left_row([2], {"a": 1}, 2, 1, "1"), 60),         # moves
    ("r", 3, {"V": "r3"}, 70),                                  # answers the rows naming 3
    ("l", 101, left_row([1], {"a": 1}, 1, 6, "1"), 80),         # from NULL to 1
    ("r", 2, None, 90),                                         # a right delete
    ("r", 1, {"V": "r1b"}, 100),                                # a right update
    ("l", 102, None, 110),                                      # a left delete
    ("l", 100, left_row(None, None, None, None, None), 120),    # to NULL
]


def expected(fk: Callable[[Row], Any], inner: bool) -> list[tuple[int, Row | None, int]]:
    right: dict[int, tuple[str, int]] = {}
    left: dict[int, Row] = {}
    version: dict[int, int] = {}  # left key -> the version of its current row
    subs: dict[int, tuple[Any, int]] = {}  # left key -> (foreign key, row version) it subscribed with
    out: list[tuple[int, Row | None, int]] = []

    def subscribe(k: int, f: Any, ts: int, propagate_only: bool) -> None:
        subs[k] = (f, version[k])
        r = right.get(f)
        if r is not None:
            out.append((k, {"V": r[0]}, max(ts, r[1])))
        elif not propagate_only:
            out.append((k, None if inner else {"V": None}, ts))

    for topic, key, value, ts in INPUTS:
        if topic == "r":
            if value is None:
                right.pop(key, None)
            else:
                right[key] = (value["V"], ts)
            for lk in sorted(subs):  # only a subscription of the left row's current version is answered
                f, ver = subs[lk]
                if f == key and ver == version.get(lk):
                    padded = None if inner else {"V": None}
                    out.append((lk, {"V": value["V"]} if value is not None else padded, ts))
            continue
        old = left.get(key)
        version[key] = version.get(key, 0) + 1
        if value is None:
            left.pop(key, None)
        else:
            left[key] = value
        old_fk = fk(old) if old is not None else None
        new_fk = fk(value) if value is not None else None
        if old is None:
            if value is None:
                continue
            if new_fk is None:  # INNER skips it; LEFT pads it
                if not inner:
                    subs.pop(key, None)
                    out.append((key, {"V": None}, ts))
                continue
            subscribe(key, new_fk, ts, propagate_only=inner)
            continue
        if inner and old_fk is None:  # from NULL: subscribes as a new foreign key would (KAFKA-16407)
            if new_fk is not None:
                subscribe(key, new_fk, ts, propagate_only=False)
            continue
        if value is None or (inner and new_fk is None):
            # a delete - for INNER also a change to NULL - is answered by a delete, at the later time if the
            # right row exists
            subs.pop(key, None)
            r = right.get(old_fk) if old_fk is not None else None
            out.append((key, None, max(ts, r[1]) if r is not None else ts))
            continue
        if new_fk is None:
            subs.pop(key, None)
            out.append((key, {"V": None}, ts))
            continue
        subscribe(key, new_fk, ts, propagate_only=False)
    return out


def case(crit: str, about: str, fk: Callable[[Row], Any], kind: str, right_key_format: str) -> dict[str, Any]:
    inner = kind == "INNER"
    stmts = [
        "CREATE TABLE L (ID INT PRIMARY KEY, ARR ARRAY<INT>, M MAP<STRING, INT>, S STRUCT<G STRUCT<H INT>>, "
        "N INT, STR STRING) WITH (kafka_topic='l', value_format='JSON', partitions=1);",
        f"CREATE TABLE R (ID INT PRIMARY KEY, V STRING) WITH (kafka_topic='r', key_format='{right_key_format}', "
        "value_format='JSON', partitions=1);",
        f"CREATE TABLE OUT AS SELECT L.ID, V FROM L {'JOIN' if inner else 'LEFT JOIN'} R ON {crit} = R.ID;",
    ]
    return {
        "name": f"{kind} foreign-key join on {crit} ({about}), right key {right_key_format}",
        "statements": stmts,
        "inputs": [{"topic": t, "key": k, "value": v, "timestamp": ts} for t, k, v, ts in INPUTS],
        "outputs": [{"topic": "OUT", "key": k, "value": v, "timestamp": ts} for k, v, ts in expected(fk, inner)],
    }


def main() -> None:
    tests = [case(crit, about, fk, kind, fmt)
             for crit, about, fk in EXPRESSIONS
             for kind in ("INNER", "LEFT")
             for fmt in ("KAFKA", "JSON")]
    doc = {"comments": [__doc__.split("\n\n")[0].replace("\n", " ")], "tests": tests}
    path = pathlib.Path(__file__).with_name("foreign-key-expressions.json")
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
