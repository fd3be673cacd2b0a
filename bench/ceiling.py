"""The limit: a hand-written minimal Python loop per workload, on Kafka and on the embedded log.

``python -m bench.ceiling CONFIG_JSON`` (Kafka, confluent-kafka) or with ``"log": "embedded"``. What a
Python engine cannot beat on this machine: batch consume, one ``orjson.loads`` per value, the workload's
logic in a tight loop with plain dicts for state, one ``orjson.dumps`` per output, batch produce. It
decodes every value (as an engine must) and emits one output per update, like ksqlpy's EMIT CHANGES, so
its outputs match ksqlpy's record for record. No SQL NULL handling, no error handling, no durability
of state: that is what makes it a ceiling rather than a peer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from bench.proc_tree import cpu_seconds, peak_rss_mb

Batch = tuple[list[bytes], list[bytes], list[int]]  # keys, values, timestamps
Processor = Callable[[list[bytes], list[bytes], list[int]], Batch]

HOP_SIZE, HOP_ADVANCE, TUMBLE = 10_000, 2_000, 10_000


def _win_key(key: bytes, start: int) -> bytes:
    """Kafka Streams' time-windowed key: the key then the window start (8 bytes big-endian)."""
    return key + start.to_bytes(8, "big")


def make_processor(workload: str, folded: bool = False) -> Processor:
    """The workload's logic over one batch of (keys, values, timestamps); ``folded`` (q5, q7): a batch's
    updates of one window fold into its last one, output in the order of the last updates (what ksqlDB's
    record cache forwards at a commit)."""
    loads, dumps = orjson.loads, orjson.dumps
    from_bytes = int.from_bytes

    if workload == "q0":
        def q0(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            return keys, [dumps(loads(v)) for v in values], tss
        return q0

    if workload == "q1":
        def q1(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            out = []
            for v in values:
                d = loads(v)
                out.append(dumps({"bidder": d["bidder"], "price": d["price"] * 908 // 1000,
                                  "date_time": d["date_time"], "extra": d["extra"]}))
            return keys, out, tss
        return q1

    if workload == "q2":
        def q2(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            ok, ov, ot = [], [], []
            for k, v, t in zip(keys, values, tss, strict=False):
                d = loads(v)
                if from_bytes(k, "big", signed=True) % 123 == 0:
                    ok.append(k)
                    ov.append(dumps({"price": d["price"]}))
                    ot.append(t)
            return ok, ov, ot
        return q2

    if workload == "q5" and folded:
        fcounts: dict[tuple[bytes, int], int] = {}

        def q5f(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            last: dict[tuple[bytes, int], int] = {}
            for k, v, t in zip(keys, values, tss, strict=False):
                loads(v)
                first = t - t % HOP_ADVANCE - HOP_SIZE + HOP_ADVANCE
                for s in range(max(first, 0), t + 1, HOP_ADVANCE):
                    ws = (k, s)
                    fcounts[ws] = fcounts.get(ws, 0) + 1
                    last.pop(ws, None)
                    last[ws] = t
            return ([_win_key(k, s) for k, s in last], [dumps({"num": fcounts[ws]}) for ws in last],
                    list(last.values()))
        return q5f

    if workload == "q7" and folded:
        fmaxes: dict[tuple[bytes, int], int] = {}

        def q7f(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            last: dict[tuple[bytes, int], int] = {}
            for k, v, t in zip(keys, values, tss, strict=False):
                price = loads(v)["price"]
                ws = (k, t - t % TUMBLE)
                m = fmaxes.get(ws)
                if m is None or price > m:
                    fmaxes[ws] = price
                last.pop(ws, None)
                last[ws] = t
            return ([_win_key(k, s) for k, s in last], [dumps({"max_price": fmaxes[ws]}) for ws in last],
                    list(last.values()))
        return q7f

    if workload == "q5":
        counts: dict[tuple[bytes, int], int] = {}

        def q5(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            ok, ov, ot = [], [], []
            for k, v, t in zip(keys, values, tss, strict=False):
                loads(v)
                first = t - t % HOP_ADVANCE - HOP_SIZE + HOP_ADVANCE
                for s in range(max(first, 0), t + 1, HOP_ADVANCE):
                    c = counts.get((k, s), 0) + 1
                    counts[(k, s)] = c
                    ok.append(_win_key(k, s))
                    ov.append(dumps({"num": c}))
                    ot.append(t)
            return ok, ov, ot
        return q5

    if workload == "q7":
        maxes: dict[tuple[bytes, int], int] = {}

        def q7(keys: list[bytes], values: list[bytes], tss: list[int]) -> Batch:
            ok, ov, ot = [], [], []
            for k, v, t in zip(keys, values, tss, strict=False):
                price = loads(v)["price"]
                s = t - t % TUMBLE
                m = maxes.get((k, s))
                if m is None or price > m:
                    maxes[(k, s)] = m = price
                ok.append(_win_key(k, s))
                ov.append(dumps({"max_price": m}))
                ot.append(t)
            return ok, ov, ot
        return q7

    raise KeyError(f"no hand-written loop for {workload}")


def run_kafka(cfg: dict[str, Any]) -> dict[str, Any]:
    """Consume ``cfg['topic']`` to its end offsets, process, produce to ``cfg['out']``, commit."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

    from bench.broker import consumer_config, producer_config

    process = make_processor(cfg["workload"])
    total = sum(cfg["end_offsets"])
    c = Consumer(consumer_config(cfg["bootstrap"], cfg["group"]))
    c.assign([TopicPartition(cfg["topic"], p, OFFSET_BEGINNING) for p in range(len(cfg["end_offsets"]))])
    prod = Producer(producer_config(cfg["bootstrap"]))
    produce, poll, out_topic = prod.produce, prod.poll, cfg["out"]
    seen = outputs = 0
    t0 = c0 = None
    while seen < total:
        msgs = c.consume(10_000, 0.05)  # returns early when 10k are there
        if not msgs:
            continue
        if t0 is None:
            t0, c0 = time.perf_counter(), cpu_seconds()
        seen += len(msgs)
        ok, ov, ot = process([m.key() for m in msgs], [m.value() for m in msgs], [m.timestamp()[1] for m in msgs])
        for k, v, t in zip(ok, ov, ot, strict=False):
            try:
                produce(out_topic, v, k, timestamp=t)
            except BufferError:
                poll(0.1)
                produce(out_topic, v, k, timestamp=t)
        outputs += len(ov)
        poll(0)
    prod.flush(120)
    c.commit(asynchronous=False)
    t1, c1 = time.perf_counter(), cpu_seconds()
    c.close()
    return {"records": seen, "outputs": outputs, "seconds": t1 - t0, "cpu_seconds": c1 - c0,  # type: ignore[operator]
            "peak_rss_mb": peak_rss_mb()}


def run_embedded(cfg: dict[str, Any]) -> dict[str, Any]:
    """The same loop over the embedded log: fetch, process, produce_batch and commit in one transaction."""
    from ksqlpy.log import EmbeddedLog

    log = EmbeddedLog(cfg["log_dir"])
    topic, out, group = cfg["topic"], cfg["out"], cfg["group"]
    parts = log.describe_topic(topic).partitions  # type: ignore[union-attr]
    if not log.topic_exists(out):
        log.create_topic(out, parts)
    process = make_processor(cfg["workload"], bool(cfg.get("folded")))
    positions = [0] * parts
    seen = outputs = 0
    t0, c0 = time.perf_counter(), cpu_seconds()
    progressed = True
    while progressed:
        progressed = False
        for p in range(parts):
            b = log.fetch(topic, p, positions[p], 10_000)
            if not b.offsets:
                continue
            progressed = True
            ok, ov, ot = process(b.keys, b.values, b.timestamps)  # type: ignore[arg-type]
            with log.transaction() as tx:
                tx.produce_batch(out, None, ok, ov, ot)
                tx.commit_offsets(group, {(topic, p): b.next_offset})
            positions[p] = b.next_offset
            seen += len(b.offsets)
            outputs += len(ov)
    t1, c1 = time.perf_counter(), cpu_seconds()
    log.close()
    return {"records": seen, "outputs": outputs, "seconds": t1 - t0, "cpu_seconds": c1 - c0,
            "peak_rss_mb": peak_rss_mb()}


def main(argv: list[str]) -> None:
    cfg = orjson.loads(argv[0])
    result = run_embedded(cfg) if cfg.get("log") == "embedded" else run_kafka(cfg)
    sys.stdout.buffer.write(orjson.dumps(result) + b"\n")


if __name__ == "__main__":
    main(sys.argv[1:])
