"""The workloads as Pathway programs (run in bench/.venvs/pathway, not our env).

``python pathway_job.py CONFIG_JSON``. Input: Pathway's own readers in streaming mode - ``jsonlines``
over the exported JSON lines (``"reader": "jsonlines"``), or ``kafka`` over the bench's tansu broker
(``"reader": "kafka"``: JSON values, the auction from the record key). Output: Pathway's ``jsonlines``
writer, or its Kafka writer (JSON) for the Kafka reader - a row per change, with its ``diff``. A
streaming reader never ends, so the program watches itself: a count of each input (one small update per Pathway time) tells the time at which the last input
record entered, and a count of the result tells when that time has been processed: the clock stops
there. The sinks write in threads of their own behind it, so the program stops itself a grace second
later (SIGINT, which Pathway handles by closing its connectors) and the CPU is taken then (the sinks'
work counts; the process is otherwise idle). The clock runs from ``pw.run``;
``startup_seconds`` is the process's age at ``pw.run`` (imports and building the dataflow). On Kafka the
clock starts instead at the first record the program's code sees (the per-record decoding of the first
record's key), as the other Kafka runners start theirs at their first record, and ``records`` are all of
them; ``startup_seconds`` is then the process's age there (the consumer group's join included), and
``cpu_before_first_record`` the CPU Pathway spent from ``pw.run`` to it (outside the clock - it was the
whole of q5/q7's work when the clock started at the first minibatch counted by the subscription, which
on those windowed queries came after nearly every record was processed). CPU is the whole process tree. After the clock the output file is read back into the workload's final
result (``bench.final_results``: +1/-1 diffs added and retracted); on Kafka the harness counts the output
topic. Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import threading
import time
from typing import Any

import pathway as pw

from bench.final_results import Result
from bench.proc_tree import process_age_s, tree_cpu_seconds, tree_peak_rss_mb
from bench.workloads import WORKLOADS


class Bid(pw.Schema):
    auction: int
    bidder: int
    price: int
    channel: str
    url: str
    date_time: int
    extra: str


class Auction(pw.Schema):
    auction_id: int  # "id" names a Pathway table's own row ids
    item_name: str
    description: str
    initial_bid: int
    reserve: int
    date_time: int
    expires: int
    seller: int
    category: int
    extra: str


class Person(pw.Schema):
    person_id: int
    name: str
    email_address: str
    credit_card: str
    city: str
    state: str
    date_time: int
    extra: str


SCHEMAS: dict[str, type[pw.Schema]] = {"bid": Bid, "auction": Auction, "person": Person}


def read(topic: str, cfg: dict[str, Any]) -> pw.Table:
    if cfg["reader"] == "jsonlines":
        return pw.io.jsonlines.read(os.path.join(cfg["data"], topic), schema=SCHEMAS[topic], mode="streaming",
                                    autocommit_duration_ms=cfg.get("autocommit_ms", 100),
                                    json_field_paths={f"{topic}_id": "/id"} if topic != "bid" else None)
    # Kafka: JSON values without the key column; the auction is the record's 8-byte BIGINT key
    # (the session timeout: tansu completes a new group's first join only after it, librdkafka's default
    # 45 s made each run wait ~23 s before its first record)
    raw = pw.io.kafka.read(
        {"bootstrap.servers": cfg["bootstrap"], "group.id": cfg["group"], "auto.offset.reset": "earliest",
         "fetch.queue.backoff.ms": "10", "enable.auto.commit": "false", "session.timeout.ms": "6000",
         "heartbeat.interval.ms": "500"},
        cfg["topic"], format="raw", autocommit_duration_ms=cfg.get("autocommit_ms", 100), with_metadata=False)
    # the key is ksqlDB's KAFKA BIGINT (8 bytes big-endian), which none of Pathway's formats reads: one
    # Python call per record for it, one for the JSON value (Pathway's json format cannot reach the key)
    parsed = raw.select(auction=pw.unwrap(pw.apply_with_type(_bigint_key, int, pw.unwrap(pw.this.key))),
                        value=pw.apply_with_type(json.loads, pw.Json, pw.this.data))
    v = pw.this.value
    return parsed.select(auction=pw.this.auction, bidder=pw.unwrap(v["bidder"].as_int()),
                         price=pw.unwrap(v["price"].as_int()), channel=pw.unwrap(v["channel"].as_str()),
                         url=pw.unwrap(v["url"].as_str()), date_time=pw.unwrap(v["date_time"].as_int()),
                         extra=pw.unwrap(v["extra"].as_str()))


# (perf_counter, tree CPU seconds) when the program's code saw its first Kafka record: the clock's start
FIRST_RECORD: list[tuple[float, float]] = []


def _bigint_key(k: bytes) -> int:
    """The record key as ksqlDB's KAFKA BIGINT; the first call starts the clock (``FIRST_RECORD``)."""
    if not FIRST_RECORD:
        FIRST_RECORD.append((time_now(), tree_cpu_seconds()))
    return int.from_bytes(k, "big", signed=True)


def build(workload: str, t: dict[str, pw.Table]) -> pw.Table:
    """The workload's result table."""
    if workload == "q0":
        return t["bid"]
    b = t["bid"] if "bid" in t else None
    if workload == "q1":
        return b.select(pw.this.auction, pw.this.bidder, price=pw.this.price * 908 // 1000,  # type: ignore[union-attr]
                        date_time=pw.this.date_time, extra=pw.this.extra)
    if workload == "q2":
        return b.filter(pw.this.auction % 123 == 0).select(pw.this.auction, pw.this.price)  # type: ignore[union-attr]
    if workload in ("q5", "q7"):
        window = (pw.temporal.sliding(hop=2000, duration=10000) if workload == "q5"
                  else pw.temporal.tumbling(duration=10000))
        w = b.windowby(pw.this.date_time, window=window, instance=pw.this.auction)  # type: ignore[union-attr]
        agg = {"num": pw.reducers.count()} if workload == "q5" else {"max_price": pw.reducers.max(pw.this.price)}
        return w.reduce(auction=pw.this._pw_instance, window_start=pw.this._pw_window_start,
                        window_end=pw.this._pw_window_end, **agg)
    if workload == "q17":
        d = b.select(pw.this.auction, pw.this.price,  # type: ignore[union-attr]
                     day=pw.this.date_time.dt.utc_from_timestamp(unit="ms").dt.strftime("%Y-%m-%d"))
        return d.groupby(pw.this.auction, pw.this.day).reduce(
            pw.this.auction, pw.this.day, total_bids=pw.reducers.count(),
            rank1_bids=pw.reducers.sum(pw.if_else(pw.this.price < 10000, 1, 0)),
            rank2_bids=pw.reducers.sum(pw.if_else((pw.this.price >= 10000) & (pw.this.price < 1000000), 1, 0)),
            rank3_bids=pw.reducers.sum(pw.if_else(pw.this.price >= 1000000, 1, 0)),
            min_price=pw.reducers.min(pw.this.price), max_price=pw.reducers.max(pw.this.price),
            avg_price=pw.reducers.avg(pw.this.price), sum_price=pw.reducers.sum(pw.this.price))
    if workload == "q11":
        w = b.windowby(pw.this.date_time, window=pw.temporal.session(max_gap=10000),  # type: ignore[union-attr]
                       instance=pw.this.bidder)
        return w.reduce(bidder=pw.this._pw_instance, window_start=pw.reducers.min(pw.this.date_time),
                        window_end=pw.reducers.max(pw.this.date_time), bid_count=pw.reducers.count())
    if workload == "q14":
        hour = (pw.this.date_time // 3600000) % 24
        return b.filter((pw.this.price * 908 // 1000 > 1000000)  # type: ignore[union-attr]
                        & (pw.this.price * 908 // 1000 < 50000000)).select(
            pw.this.auction, pw.this.bidder, price=pw.this.price * 908 // 1000,
            bid_time_type=pw.if_else((hour >= 8) & (hour <= 18), "dayTime",
                                     pw.if_else((hour <= 6) | (hour >= 20), "nightTime", "otherTime")),
            date_time=pw.this.date_time, extra=pw.this.extra,
            c_counts=pw.apply_with_type(_count_c, int, pw.this.extra))
    if workload == "q21":
        d = b.select(pw.this.auction, pw.this.bidder, pw.this.price, pw.this.channel,  # type: ignore[union-attr]
                     lower=pw.apply_with_type(str.lower, str, pw.this.channel),
                     cid=pw.apply_with_type(_channel_id, str | None, pw.this.url))
        return d.filter(pw.this.cid.is_not_none() | pw.apply_with_type(_KNOWN_CHANNELS.__contains__, bool,
                                                                        pw.this.lower)).select(
            pw.this.auction, pw.this.bidder, pw.this.price, pw.this.channel,
            channel_id=pw.apply_with_type(_KNOWN_CHANNELS.get, str | None, pw.this.lower, pw.this.cid))
    if workload == "q22":
        return b.select(pw.this.auction, pw.this.bidder, pw.this.price, pw.this.channel,  # type: ignore[union-attr]
                        dir1=pw.apply_with_type(_url_part(3), str | None, pw.this.url),
                        dir2=pw.apply_with_type(_url_part(4), str | None, pw.this.url),
                        dir3=pw.apply_with_type(_url_part(5), str | None, pw.this.url))
    if workload == "q20":
        # the auction as of the bid's time: each auction is written once, so "as of" is an auction opened
        # at or before the bid - at equal timestamps ksqlpy's join task takes the table side first, as Kafka
        # Streams does, so a bid meets an auction of its own millisecond
        a = t["auction"].filter(pw.this.category == 10)
        j = t["bid"].join(a, pw.left.auction == pw.right.auction_id).filter(pw.right.date_time <= pw.left.date_time)
        return j.select(auction=pw.left.auction, bidder=pw.left.bidder, price=pw.left.price,
                        channel=pw.left.channel, url=pw.left.url, date_time=pw.left.date_time,
                        extra=pw.left.extra, item_name=pw.right.item_name, description=pw.right.description,
                        initial_bid=pw.right.initial_bid, reserve=pw.right.reserve,
                        a_date_time=pw.right.date_time, expires=pw.right.expires, seller=pw.right.seller,
                        category=pw.right.category, a_extra=pw.right.extra)
    if workload == "q8":
        # Nexmark's q8 as Flink runs it: persons and sellers per 10 s tumbling window, joined on id and window
        p = t["person"].select(pw.this.person_id, pw.this.name, starttime=pw.this.date_time // 10000 * 10000)
        p = p.groupby(pw.this.person_id, pw.this.name, pw.this.starttime).reduce(
            pw.this.person_id, pw.this.name, pw.this.starttime)
        a = t["auction"].select(pw.this.seller, starttime=pw.this.date_time // 10000 * 10000)
        a = a.groupby(pw.this.seller, pw.this.starttime).reduce(pw.this.seller, pw.this.starttime)
        j = p.join(a, pw.left.person_id == pw.right.seller, pw.left.starttime == pw.right.starttime)
        return j.select(person_id=pw.left.person_id, name=pw.left.name, starttime=pw.left.starttime)
    if workload == "q3":
        a = t["auction"].filter(pw.this.category == 10)
        p = t["person"].filter((pw.this.state == "OR") | (pw.this.state == "ID") | (pw.this.state == "CA"))
        return a.join(p, a.seller == p.person_id).select(seller=a.seller, name=p.name, city=p.city, state=p.state,
                                                         auction_id=a.auction_id)  # read back as "id"
    raise KeyError(f"{workload} has no Pathway program here")


_KNOWN_CHANNELS = {"apple": "0", "google": "1", "facebook": "2", "baidu": "3"}
_CHANNEL_ID = re.compile(r"(&|^)channel_id=([^&]*)")


def _count_c(s: str) -> int:
    return s.count("c")


def _channel_id(url: str) -> str | None:
    """REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2): the first match's second group, else NULL."""
    m = _CHANNEL_ID.search(url)
    return m.group(2) if m else None


def _url_part(i: int) -> Any:
    """SPLIT(url, '/')[i + 1]: NULL past the end."""
    def part(url: str) -> str | None:
        parts = url.split("/")
        return parts[i] if i < len(parts) else None
    return part


def read_result(workload: str, path: str) -> tuple[int, dict[str, Any]]:
    spec = WORKLOADS[workload].result
    res = Result(spec.kind, spec.columns, spec.key)
    n = 0
    with open(path, "rb") as f:
        for line in f:
            rec = json.loads(line)
            n += 1
            for reserved in ("auction_id", "person_id"):  # Pathway reserves "id"
                if reserved in rec:
                    rec["id"] = rec.pop(reserved)
            (res.add if rec.pop("diff") > 0 else res.retract)(rec)
    return n, res.summary()


RESULT = "__result"  # the result's row in the counts watched (no input is named so)


def main(cfg: dict[str, Any]) -> dict[str, Any]:
    workload = cfg["workload"]
    inputs = WORKLOADS[workload].inputs if cfg["reader"] == "jsonlines" else ("bid",)
    tables = {topic: read(topic, cfg) for topic in inputs}
    result = build(workload, tables)
    expected = cfg["input_counts"]
    state: dict[str, Any] = {"seen": {}, "end": None}

    def on_change(key: Any, row: dict[str, Any], time: int, is_addition: bool) -> None:
        if is_addition and row["name"] != RESULT:
            state["seen"][row["name"]] = row["n"]

    def on_time_end(time: int) -> None:
        # one subscription sees the input counts and the result's count: the end of a time comes after
        # every change of that time, the result's included, so the time at which the last input arrived
        # has been processed once it ends with every count complete (two subscriptions, one for the inputs
        # and one for the result, call back in no fixed order - that hung 1M-event runs)
        if state["end"] is None and all(state["seen"].get(t, 0) >= expected[t] for t in inputs):
            state["end"] = (time_now(), tree_cpu_seconds())
            threading.Timer(cfg.get("grace_s", 1.0), stop).start()

    def stop() -> None:
        # the sinks write in threads of their own, behind the subscription: they get a grace period
        # (their CPU in it counts; the process is otherwise idle), then SIGINT, which Pathway handles by
        # closing its connectors
        state["cpu_at_stop"] = tree_cpu_seconds()
        os.kill(os.getpid(), signal.SIGINT)

    counts = [table.reduce(name=topic, n=pw.reducers.count()) for topic, table in tables.items()]
    counts.append(result.reduce(name=RESULT, n=pw.reducers.count()))
    pw.io.subscribe(pw.Table.concat_reindex(*counts), on_change=on_change, on_time_end=on_time_end)
    out = cfg["out"]
    if cfg["reader"] == "kafka":
        pw.io.kafka.write(result, {"bootstrap.servers": cfg["bootstrap"], "linger.ms": "5"}, topic_name=out,
                          format="json")
    else:
        pw.io.jsonlines.write(result, out)
    # the stop is a SIGINT to ourselves: started from a background job of a non-interactive shell (nohup ...
    # &), the process inherits SIGINT ignored, Python then installs no handler and the signal is lost - the
    # run hung after its last record until the harness's timeout
    signal.signal(signal.SIGINT, signal.default_int_handler)
    startup = process_age_s()
    c0, t0 = tree_cpu_seconds(), time_now()
    try:
        pw.run(monitoring_level=pw.MonitoringLevel.NONE)
    except KeyboardInterrupt:
        pass
    if state["end"] is None:
        raise RuntimeError(f"Pathway stopped before its input was processed: {state['seen']} of {expected}")
    t1, _ = state["end"]
    c1 = state["cpu_at_stop"]
    records = sum(expected[t] for t in inputs)
    res: dict[str, Any] = {"records_read": records}
    if cfg["reader"] == "kafka":
        # the consumer group's join (seconds on tansu) is no part of the rate: the clock starts at the first
        # record, as the Quix, Bytewax, ksqlpy and hand-written Kafka runners start theirs
        tf, cf = FIRST_RECORD[0]
        startup += tf - t0
        res["cpu_before_first_record"] = round(cf - c0, 3)
        t0, c0 = tf, cf
    res.update({"records": records, "seconds": t1 - t0, "cpu_seconds": c1 - c0, "startup_seconds": round(startup, 3),
                "peak_rss_mb": tree_peak_rss_mb()})
    if cfg["reader"] != "kafka":
        res["outputs"], res["final"] = read_result(workload, out)
        os.unlink(out)
    return res


def time_now() -> float:
    return time.perf_counter()


if __name__ == "__main__":
    res = main(json.loads(sys.argv[1]))
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)
