"""Generates cross-product probes of aggregation rules (our own cases, ksqlDB's test format).

Run ``python tests/cases/aggregations/gen_cross.py`` to rewrite ``cross-*.json`` next to it. Expected values
come from the small model below, written from ksqlDB's documented rules (nulls ignored by SUM/MIN/MAX/AVG/
COUNT(col), AVG is DOUBLE, SUM keeps its argument's type, a table update moves a row by undo then add).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

NUMERIC = {
    "INT": ("INTEGER", [5, None, -2, 7]),
    "BIGINT": ("BIGINT", [5000000000, None, -2, 7]),
    "DOUBLE": ("DOUBLE", [1.5, None, -2.25, 4.0]),
}
ORDERABLE = {
    **NUMERIC,
    "STRING": ("STRING", ["m", None, "c", "x"]),
    "DATE": ("DATE", [19000, None, 18000, 19500]),
    "TIME": ("TIME", [5000, None, 1000, 9000]),
    "TIMESTAMP": ("TIMESTAMP", [1600000000000, None, 1500000000000, 1700000000000]),
}


def _running(values: list[Any], fn: Callable[[list[Any]], Any]) -> list[Any]:
    out = []
    seen: list[Any] = []
    for v in values:
        if v is not None:
            seen.append(v)
        out.append(fn(seen))
    return out


def _stream_case(name: str, col_type: str, values: list[Any], agg_sql: str, out_type: str,
                 expected: list[Any], formats: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "statements": [
            f"CREATE STREAM INPUT (ID INT KEY, V {col_type}) WITH (kafka_topic='input', value_format='{{FORMAT}}');",
            f"CREATE TABLE OUTPUT AS SELECT ID, {agg_sql} AS R FROM INPUT GROUP BY ID;",
        ],
        "inputs": [{"topic": "input", "key": 1, "value": {"V": v}, "timestamp": i} for i, v in enumerate(values)],
        "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"R": e}, "timestamp": i} for i, e in enumerate(expected)],
        "format": formats,
        "post": {"sources": [{"name": "OUTPUT", "type": "table", "schema": f"ID INTEGER KEY, R {out_type}"}]},
    }


def stream_aggregates() -> list[dict[str, Any]]:
    # PROTOBUF is left out: a NULL primitive reads back as its default there (no wrappers)
    formats = ["JSON", "AVRO", "JSON_SR"]
    cases = []
    for t, (sql_t, vals) in NUMERIC.items():
        cases.append(_stream_case(f"SUM of {t} over nulls keeps {sql_t}", t, vals, "SUM(V)", sql_t,
                                  _running(vals, lambda s: sum(s)), formats))
        cases.append(_stream_case(f"AVG of {t} over nulls is DOUBLE", t, vals, "AVG(V)", "DOUBLE",
                                  _running(vals, lambda s: float(sum(s)) / len(s)), formats))
        # ksqlDB's STDDEV_SAMP returns the sample variance (no square root); so does ours
        cases.append(_stream_case(f"STDDEV_SAMP of {t} over nulls is DOUBLE", t, vals, "STDDEV_SAMP(V)", "DOUBLE",
                                  _running(vals, lambda s: statistics.variance(s) if len(s) > 1 else 0.0), formats))
    for t, (sql_t, vals) in ORDERABLE.items():
        cases.append(_stream_case(f"MIN of {t} over nulls", t, vals, "MIN(V)", sql_t, _running(vals, min), formats))
        cases.append(_stream_case(f"MAX of {t} over nulls", t, vals, "MAX(V)", sql_t, _running(vals, max), formats))
        cases.append(_stream_case(f"COUNT of {t} skips nulls", t, vals, "COUNT(V)", "BIGINT",
                                  _running(vals, len), formats))
        cases.append(_stream_case(f"COUNT_DISTINCT of {t} skips nulls", t, vals, "COUNT_DISTINCT(V)", "BIGINT",
                                  _running(vals, lambda s: len(set(s))), formats))
        cases.append(_stream_case(f"COLLECT_SET of {t} keeps one null", t, vals, "COLLECT_SET(V)", f"ARRAY<{sql_t}>",
                                  [list(dict.fromkeys(vals[:i + 1])) for i in range(len(vals))], formats))
        cases.append(_stream_case(f"COLLECT_LIST of {t} keeps nulls", t, vals, "COLLECT_LIST(V)", f"ARRAY<{sql_t}>",
                                  [vals[:i + 1] for i in range(len(vals))], formats))
        cases.append(_stream_case(f"LATEST_BY_OFFSET of {t} ignores nulls", t, vals, "LATEST_BY_OFFSET(V)", sql_t,
                                  _running(vals, lambda s: s[-1] if s else None), formats))
        cases.append(_stream_case(f"EARLIEST_BY_OFFSET of {t} ignores nulls", t, vals, "EARLIEST_BY_OFFSET(V)",
                                  sql_t, _running(vals, lambda s: s[0] if s else None), formats))
        cases.append(_stream_case(f"TOPKDISTINCT of {t}", t, vals, "TOPKDISTINCT(V, 2)", f"ARRAY<{sql_t}>",
                                  _running(vals, lambda s: sorted(set(s), reverse=True)[:2]), formats))
    return cases


STRUCTURED = {
    "STRUCT<A INT, B STRING>": ("STRUCT<A INTEGER, B STRING>", [{"A": 1, "B": "x"}, {"A": 2, "B": "y"},
                                                                 {"A": 1, "B": "x"}]),
    "ARRAY<STRING>": ("ARRAY<STRING>", [["a", "b"], [], ["c"]]),
    "MAP<STRING, INT>": ("MAP<STRING, INTEGER>", [{"k": 1}, {"j": 2, "k": 3}, {"k": 1}]),
    "DECIMAL(6,2)": ("DECIMAL(6, 2)", [1.25, 10.75, -3.15]),
    "BYTES": ("BYTES", ["AQI=", "Aw==", "AQI="]),
}


def structured_aggregates() -> list[dict[str, Any]]:
    """Aggregates whose state or result holds a whole value (collections, latest/earliest, TOPK's carried
    columns) of every structured type, through the schema-registry formats and JSON."""
    formats = ["JSON", "AVRO", "PROTOBUF", "JSON_SR"]
    cases = []
    for t, (sql_t, vals) in STRUCTURED.items():
        fmts = [f for f in formats if not (t == "BYTES" and f == "JSON_SR")]
        # protobuf has no list of lists or of maps (ksqlDB refuses such a sink: "Array cannot be nested")
        lists = [f for f in fmts if not (f == "PROTOBUF" and t.startswith(("ARRAY", "MAP")))]
        cases.append(_stream_case(f"COLLECT_LIST of {t}", t, vals, "COLLECT_LIST(V)", f"ARRAY<{sql_t}>",
                                  [vals[:i + 1] for i in range(len(vals))], lists))
        cases.append(_stream_case(f"LATEST_BY_OFFSET of {t} with n = 2", t, vals, "LATEST_BY_OFFSET(V, 2)",
                                  f"ARRAY<{sql_t}>", [vals[max(0, i - 1):i + 1] for i in range(len(vals))], lists))
        cases.append(_stream_case(f"EARLIEST_BY_OFFSET of {t}", t, vals, "EARLIEST_BY_OFFSET(V)", sql_t,
                                  [vals[0]] * len(vals), fmts))
        if not t.startswith("MAP"):
            cases.append(_stream_case(f"COLLECT_SET of {t}", t, vals, "COLLECT_SET(V)", f"ARRAY<{sql_t}>",
                                      [_distinct(vals[:i + 1]) for i in range(len(vals))], lists))
    return cases


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


KEY_FORMATS = ["KAFKA", "JSON", "AVRO", "DELIMITED", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR"]
VALUE_FORMATS = ["JSON", "AVRO", "DELIMITED", "PROTOBUF", "PROTOBUF_NOSR", "JSON_SR"]


def _table_events() -> list[tuple[str, Any]]:
    """Rows of a source table (key, (group, value) or None for a tombstone): inserts, an update within a
    group, a move between groups, a NULL value, tombstones down to an empty group."""
    return [("r1", ("a", 5)), ("r2", ("a", 3)), ("r1", ("a", 7)), ("r2", ("b", 3)), ("r3", ("b", None)),
            ("r1", None), ("r2", None), ("r3", None), ("r9", None)]


def _table_model(having_positive: bool, null_value: Any = None) -> list[tuple[str, Any]]:
    """Outputs of ``SELECT G, COUNT(*), SUM(V), COUNT(V) ... GROUP BY G``: a row moving within its group
    gives one update (undo and add in one change), a move or delete undoes from the old group first; a
    tombstone of an unknown row gives nothing; HAVING COUNT(*) > 0 turns an emptied group into a tombstone."""
    rows: dict[str, tuple[str, Any]] = {}
    out: list[tuple[str, Any]] = []

    def result(g: str) -> Any:
        members = [v for (gg, v) in rows.values() if gg == g]
        n = len(members)
        if having_positive and n == 0:
            return None
        vals = [null_value if v is None else v for v in members]
        vals = [v for v in vals if v is not None]
        return {"N": n, "S": sum(vals), "C": len(vals)}

    for key, new in _table_events():
        old = rows.get(key)
        if new is None:
            rows.pop(key, None)
        else:
            rows[key] = new
        if old is not None and (new is None or new[0] != old[0]):
            out.append((old[0], result(old[0])))
        if new is not None:
            out.append((new[0], result(new[0])))
    return out


def table_aggregates() -> list[dict[str, Any]]:
    cases = []
    for key_format in KEY_FORMATS:
        for value_format in VALUE_FORMATS:
            for having in (False, True):
                key_col = "ID STRING PRIMARY KEY"
                # a PROTOBUF key is a message even of one column; a PROTOBUF NULL primitive reads as its default
                in_key: Any = (lambda k: {"ID": k}) if key_format in ("PROTOBUF", "PROTOBUF_NOSR") else (lambda k: k)
                out_key: Any = (lambda k: {"G": k}) if key_format in ("PROTOBUF", "PROTOBUF_NOSR") else (lambda k: k)
                null_value = 0 if value_format in ("PROTOBUF", "PROTOBUF_NOSR") else None
                inputs = []
                for key, row in _table_events():
                    value: Any = None
                    if row is not None and value_format == "DELIMITED":
                        value = f"{row[0]},{'' if row[1] is None else row[1]}"
                    elif row is not None:
                        value = {"G": row[0], "V": row[1]}
                    inputs.append({"topic": "input", "key": in_key(key), "value": value})
                outputs = []
                for g, v in _table_model(having, null_value):
                    if v is not None and value_format == "DELIMITED":
                        v = f"{v['N']},{v['S']},{v['C']}"
                    outputs.append({"topic": "OUTPUT", "key": out_key(g), "value": v})
                clause = " HAVING COUNT(*) > 0" if having else ""
                cases.append({
                    "name": f"table aggregation undo, key {key_format}, value {value_format}"
                            + (", emptied group deleted by HAVING" if having else ""),
                    "statements": [
                        f"CREATE TABLE INPUT ({key_col}, G STRING, V INT) WITH (kafka_topic='input', "
                        f"key_format='{key_format}', value_format='{value_format}');",
                        f"CREATE TABLE OUTPUT AS SELECT G, COUNT(*) AS N, SUM(V) AS S, COUNT(V) AS C FROM INPUT "
                        f"GROUP BY G{clause};",
                    ],
                    "inputs": inputs,
                    "outputs": outputs,
                    "post": {"sources": [{"name": "OUTPUT", "type": "table",
                                          "keyFormat": {"format": key_format},
                                          "schema": "G STRING KEY, N BIGINT, S INTEGER, C BIGINT"}]},
                })
    return cases


# (key, value, timestamp): two keys, an out-of-order record within grace and one past it
_WINDOW_EVENTS = [("a", 1, 1000), ("a", 2, 4000), ("b", 3, 6000), ("a", 4, 12000), ("b", 5, 9000),
                  ("a", 6, 2000), ("b", 7, 25000)]
_SIZE, _ADVANCE, _GRACE, _GAP = 10000, 5000, 4000, 3000


def _time_windows(ts: int, advance: int) -> list[tuple[int, int]]:
    first = max(0, (ts - _SIZE) // advance * advance + advance) if ts >= _SIZE else 0
    return [(s, s + _SIZE) for s in range(first, ts + 1, advance) if s <= ts < s + _SIZE]


def _time_model(advance: int, final: bool) -> list[tuple[str, Any, int, tuple[int, int]]]:
    """Kafka Streams' time windows: a record joins each of its windows still open (end > stream time -
    grace); under EMIT FINAL a window goes out once, in key order, when stream time reaches end + grace."""
    state: dict[tuple[str, tuple[int, int]], list[int]] = {}
    out: list[tuple[str, Any, int, tuple[int, int]]] = []
    emitted: set[tuple[str, tuple[int, int]]] = set()
    stream_time = -1
    for key, v, ts in _WINDOW_EVENTS:
        stream_time = max(stream_time, ts)
        for w in _time_windows(ts, advance):
            if w[1] <= stream_time - _GRACE:
                continue
            agg = state.setdefault((key, w), [0, 0, -1])
            agg[0] += 1
            agg[1] += v
            agg[2] = max(agg[2], ts)
            if not final:
                out.append((key, {"WS": w[0], "WE": w[1], "N": agg[0], "S": agg[1]}, agg[2], w))
        if final:
            closed = sorted((w, k) for (k, w) in state if w[1] + _GRACE <= stream_time and (k, w) not in emitted)
            for w, k in closed:
                emitted.add((k, w))
                agg = state[(k, w)]
                out.append((k, {"WS": w[0], "WE": w[1], "N": agg[0], "S": agg[1]}, agg[2], w))
    return out


# a record within a gap of a session past retention (gap + grace by default), next to one still retained:
# at stream time 13000 a at 4000 reaches [5500, 7000] but not [1000, 3000] (ended at or before 13000 - 7000)
_RETENTION_EVENTS = [("a", 1, 1000), ("a", 2, 3000), ("b", 3, 10500), ("a", 4, 5500), ("b", 5, 9000),
                     ("a", 6, 7000), ("c", 7, 13000), ("a", 8, 4000)]


def _session_model(events: list[tuple[str, int, int]] = _WINDOW_EVENTS, retention: int = 86_400_000,
                   final: bool = False) -> list[tuple[str, Any, int, tuple[int, int]]]:
    """Session windows: a record within the gap of a session extends it (the old session's row is deleted
    first); a record whose merged session ends before stream time - gap - grace is dropped; a session
    that ended at or before stream time - retention (stream time before the record) is no longer found.
    EMIT FINAL: after each record, the sessions that ended before stream time - gap - grace go out once,
    in (end, key) order, with their last value and no deletes."""
    sessions: dict[str, list[list[int]]] = {}
    out: list[tuple[str, Any, int, tuple[int, int]]] = []
    emitted: set[tuple[str, int, int]] = set()
    stream_time = -1
    for key, v, ts in events:
        expired = stream_time - retention
        stream_time = max(stream_time, ts)
        close = stream_time - _GAP - _GRACE
        near = [s for s in sessions.get(key, [])
                if s[1] >= ts - _GAP and s[0] <= ts + _GAP and s[1] > expired]
        start = min([ts] + [s[0] for s in near])
        end = max([ts] + [s[1] for s in near])
        if end >= close:
            n = 1 + sum(s[2] for s in near)
            total = v + sum(s[3] for s in near)
            last = max([ts] + [s[4] for s in near])
            for s in near:
                sessions[key].remove(s)
                if not final:
                    out.append((key, None, s[4], (s[0], s[1])))
            sessions.setdefault(key, []).append([start, end, n, total, last])
            if not final:
                out.append((key, {"WS": start, "WE": end, "N": n, "S": total}, last, (start, end)))
        if final:
            closed = sorted((s[1], k, s[0]) for k, ses in sessions.items() for s in ses
                            if s[1] < close and (k, s[0], s[1]) not in emitted)
            for e, k, st in closed:
                emitted.add((k, st, e))
                (s,) = [s for s in sessions[k] if s[0] == st and s[1] == e]
                out.append((k, {"WS": st, "WE": e, "N": s[2], "S": s[3]}, s[4], (st, e)))
    return out


# a retention of a day keeps every window of these events readable: with the default (size + grace) Kafka
# Streams' store stops returning windows that start before its newest window start - retention, which EMIT
# FINAL then never emits (window-rules.json and aggregation-shapes.json cover that)
_WINDOWS = {
    "TUMBLING": (f"TUMBLING (SIZE {_SIZE} MILLISECONDS, RETENTION 1 DAY, GRACE PERIOD {_GRACE} MILLISECONDS)",
                 "time"),
    "HOPPING": (f"HOPPING (SIZE {_SIZE} MILLISECONDS, ADVANCE BY {_ADVANCE} MILLISECONDS, RETENTION 1 DAY, "
                f"GRACE PERIOD {_GRACE} MILLISECONDS)", "time"),
    "SESSION": (f"SESSION ({_GAP} MILLISECONDS, RETENTION 1 DAY, GRACE PERIOD {_GRACE} MILLISECONDS)", "session"),
    "SESSION default retention": (f"SESSION ({_GAP} MILLISECONDS, GRACE PERIOD {_GRACE} MILLISECONDS)", "session"),
}


def _window_keys(key_format: str, multi: bool) -> tuple[Callable[[str], Any], Callable[[str], Any]]:
    """How a test record spells the input key and the grouped key (``K`` or ``K, LEN(K) + 1``): a PROTOBUF
    key is a message even of one column, DELIMITED keys are text."""
    def in_key(k: str) -> Any:
        return {"K": k} if key_format in ("PROTOBUF", "PROTOBUF_NOSR") else k

    def out_key(k: str) -> Any:
        if not multi:
            return in_key(k)
        if key_format == "DELIMITED":
            return f"{k},{len(k) + 1}"
        return {"K": k, "KSQL_COL_0": len(k) + 1}
    return in_key, out_key


def _having(model: list[tuple[str, Any, int, tuple[int, int]]], final: bool,
            passes: Callable[[dict[str, int]], bool]) -> list[tuple[str, Any, int, tuple[int, int]]]:
    """HAVING after the aggregation (ksqlDB's KTableFilter with old values): an update that passes goes
    out; one that does not is a delete if the window's previous value had passed, else nothing; a merged
    session's delete only if its value had passed. Under EMIT FINAL the filter sees each closed window
    once (after the suppression): its row if it passes, else nothing."""
    if final:
        return [m for m in model if passes(m[1])]
    out = []
    shown: dict[tuple[str, tuple[int, int]], bool] = {}
    for key, val, ts, w in model:
        was = shown.get((key, w), False)
        now = val is not None and passes(val)
        if now:
            out.append((key, val, ts, w))
        elif was:
            out.append((key, None, ts, w))
        shown[(key, w)] = now
    return out


# HAVING that a window's sum passes, fails and passes again as it grows (SUM(V) of 1..7 by record)
_HAVING_SQL = " HAVING SUM(V) % 2 = 1"


def _having_passes(val: dict[str, int]) -> bool:
    return val["S"] % 2 == 1


def windowed_aggregates() -> list[dict[str, Any]]:
    cases = []
    for key_format, window, final, multi, having in (
            (kf, w, f, m, h) for kf in KEY_FORMATS for w in _WINDOWS for f in (False, True)
            for m in (False, True) for h in (False, True)):
        clause, wtype = _WINDOWS[window]
        session = window.startswith("SESSION")
        if multi and key_format == "KAFKA":
            continue
        if having and (multi or key_format in ("PROTOBUF_NOSR", "JSON_SR")):
            continue  # HAVING over one key column of five key formats
        events = _RETENTION_EVENTS if window == "SESSION default retention" else _WINDOW_EVENTS
        if window == "SESSION default retention":
            model = _session_model(events, _GAP + _GRACE, final)
        elif session:
            model = _session_model(final=final)
        else:
            model = _time_model(_ADVANCE if window == "HOPPING" else _SIZE, final)
        if having:
            model = _having(model, final, _having_passes)
        in_key, out_key = _window_keys(key_format, multi)
        if multi:
            group, keys = "K, LEN(K) + 1", "K, LEN(K) + 1, "
            key_schema = "K STRING KEY, KSQL_COL_0 INTEGER KEY"
        else:
            group, keys = "K", "K, "
            key_schema = "K STRING KEY"
        emit = (_HAVING_SQL if having else "") + (" EMIT FINAL" if final else "")
        window_key: dict[str, Any] = {"format": key_format, "windowType": window.split()[0]}
        if not session:
            window_key["windowSize"] = _SIZE
        cases.append({
            "name": f"{window}{' EMIT FINAL' if final else ''} with bounds in the projection, "
                    f"key {key_format}{', two key columns' if multi else ''}"
                    f"{', HAVING an odd sum' if having else ''}",
            "statements": [
                f"CREATE STREAM INPUT (K STRING KEY, V INT) WITH (kafka_topic='input', "
                f"key_format='{key_format}', value_format='JSON');",
                f"CREATE TABLE OUTPUT AS SELECT {keys}WINDOWSTART AS WS, WINDOWEND AS WE, "
                f"COUNT(*) AS N, SUM(V) AS S FROM INPUT WINDOW {clause} GROUP BY {group}{emit};",
            ],
            "inputs": [{"topic": "input", "key": in_key(k), "value": {"V": v}, "timestamp": ts}
                       for k, v, ts in events],
            "outputs": [{"topic": "OUTPUT", "key": out_key(k), "value": val, "timestamp": ts,
                         "window": {"start": w[0], "end": w[1], "type": wtype}}
                        for k, val, ts, w in model],
            # stream time is per partition: one input partition keeps every key's records on it
            "topics": [{"name": "input", "partitions": 1}],
            "properties": {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0},
            "post": {"sources": [{"name": "OUTPUT", "type": "table", "keyFormat": window_key,
                                  "schema": f"{key_schema}, WS BIGINT, WE BIGINT, N BIGINT, S INTEGER"}]},
        })
    return cases


def _value_of(fmt: str, val: dict[str, Any] | None) -> Any:
    """A value as the case spells it: DELIMITED as text in column order, the others as objects."""
    if val is None or fmt != "DELIMITED":
        return val
    return ",".join(str(v) for v in val.values())


def windowed_value_formats() -> list[dict[str, Any]]:
    """Windowed results in every value format (the bounds copied into the value as BIGINT columns)."""
    cases = []
    for fmt in VALUE_FORMATS:
        for window, final in (("TUMBLING", False), ("HOPPING", False), ("SESSION", False), ("TUMBLING", True),
                              ("SESSION", True)):
            clause, wtype = _WINDOWS[window]
            if window == "SESSION":
                model = _session_model(final=final)
            else:
                model = _time_model(_ADVANCE if window == "HOPPING" else _SIZE, final)
            window_key: dict[str, Any] = {"format": "KAFKA", "windowType": window}
            if window != "SESSION":
                window_key["windowSize"] = _SIZE
            cases.append({
                "name": f"{window}{' EMIT FINAL' if final else ''} into value format {fmt}",
                "statements": [
                    f"CREATE STREAM INPUT (K STRING KEY, V INT) WITH (kafka_topic='input', value_format='{fmt}');",
                    f"CREATE TABLE OUTPUT AS SELECT K, WINDOWSTART AS WS, WINDOWEND AS WE, COUNT(*) AS N, "
                    f"SUM(V) AS S FROM INPUT WINDOW {clause} GROUP BY K{' EMIT FINAL' if final else ''};",
                ],
                "inputs": [{"topic": "input", "key": k, "value": _value_of(fmt, {"V": v}), "timestamp": ts}
                           for k, v, ts in _WINDOW_EVENTS],
                "outputs": [{"topic": "OUTPUT", "key": k, "value": _value_of(fmt, val), "timestamp": ts,
                             "window": {"start": w[0], "end": w[1], "type": wtype}} for k, val, ts, w in model],
                "topics": [{"name": "input", "partitions": 1}],
                "properties": {"ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__": 0},
                "post": {"sources": [{"name": "OUTPUT", "type": "table", "keyFormat": window_key,
                                      "schema": "K STRING KEY, WS BIGINT, WE BIGINT, N BIGINT, S INTEGER"}]},
            })
    return cases


def write() -> None:
    files = {"cross-stream-aggregates.json": stream_aggregates() + structured_aggregates(),
             "cross-table-aggregates.json": table_aggregates(),
             "cross-windowed-aggregates.json": windowed_aggregates() + windowed_value_formats()}
    for name, cases in files.items():
        (HERE / name).write_text(json.dumps({"comment": "generated by gen_cross.py", "tests": cases}, indent=1) + "\n")


if __name__ == "__main__":
    write()
