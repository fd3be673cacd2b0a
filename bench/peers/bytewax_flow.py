"""The shared workloads as Bytewax dataflows (run in bench/.venvs/bytewax, not our env).

``python bytewax_flow.py CONFIG_JSON``. Idiomatic Bytewax 0.21: the Kafka input operator (read to the
end, ``tail=False``), ``orjson`` decoding in a ``map``, ``key_on`` the auction for windows with an
``EventClock`` on the bid's event time, the Kafka output operator. One worker (``run_main``). Bytewax
windows emit once per window when it closes (it has no per-update emission), so its windowed outputs
are fewer than ksqlpy's and Quix's: noted next to the figures. The clock starts at the first record and
stops when the dataflow has finished (input at EOF, sink flushed). Prints one JSON object.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import bytewax.operators as op
import orjson
from bytewax.connectors.kafka import KafkaSinkMessage
from bytewax.connectors.kafka import operators as kop
from bytewax.dataflow import Dataflow
from bytewax.operators import windowing as win
from bytewax.testing import run_main

from bench.proc_tree import cpu_seconds, peak_rss_mb

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def build(cfg: dict[str, Any], state: dict[str, Any]) -> Dataflow:
    flow = Dataflow(f"bench_{cfg['workload']}")
    kin = kop.input("in", flow, brokers=[cfg["bootstrap"]], topics=[cfg["topic"]], tail=False,
                    add_config={"fetch.queue.backoff.ms": "10", "group.id": cfg["group"]}, batch_size=10_000)
    loads, dumps = orjson.loads, orjson.dumps

    def decode(m: Any) -> tuple[bytes, Any, int]:
        if not state["seen"]:
            state["t0"], state["c0"] = time.perf_counter(), cpu_seconds()
        state["seen"] += 1
        return m.key, loads(m.value), m.timestamp[1]

    rows = op.map("decode", kin.oks, decode)
    w = cfg["workload"]
    if w == "q0":
        out = op.map("q0", rows, lambda r: KafkaSinkMessage(r[0], dumps(r[1]), timestamp=r[2]))
    elif w == "q1":
        def q1(r: tuple[bytes, Any, int]) -> KafkaSinkMessage:
            v = r[1]
            return KafkaSinkMessage(r[0], dumps({"bidder": v["bidder"], "price": v["price"] * 908 // 1000,
                                                 "date_time": v["date_time"], "extra": v["extra"]}),
                                    timestamp=r[2])
        out = op.map("q1", rows, q1)
    elif w == "q2":
        kept = op.filter("q2", rows, lambda r: int.from_bytes(r[0], "big", signed=True) % 123 == 0)
        out = op.map("q2_out", kept, lambda r: KafkaSinkMessage(r[0], dumps({"price": r[1]["price"]}),
                                                                 timestamp=r[2]))
    elif w in ("q5", "q7"):
        keyed = op.key_on("key", rows, lambda r: r[0].hex())
        clock = win.EventClock(lambda r: EPOCH + timedelta(milliseconds=r[2]),
                               wait_for_system_duration=timedelta(seconds=0))
        if w == "q5":
            windower = win.SlidingWindower(length=timedelta(seconds=10), offset=timedelta(seconds=2), align_to=EPOCH)
            res = win.count_window("count", rows, clock, windower, key=lambda r: r[0].hex())  # keys itself
        else:
            windower = win.TumblingWindower(length=timedelta(seconds=10), align_to=EPOCH)
            res = win.max_window("max", keyed, clock, windower, by=lambda r: r[1]["price"])
        out = op.map("encode", res.down,
                     lambda kv: KafkaSinkMessage(bytes.fromhex(kv[0]), dumps({"window": kv[1][0], "value": (
                         kv[1][1] if w == "q5" else kv[1][1][1]["price"])})))
    else:
        raise KeyError(w)

    def count_out(m: Any) -> Any:
        state["outputs"] += 1
        return m

    out = op.map("count_out", out, count_out)
    kop.output("out", out, brokers=[cfg["bootstrap"]], topic=cfg["out"],
               add_config={"linger.ms": "5", "queue.buffering.max.messages": "1000000"})
    return flow


def main(cfg: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = {"t0": 0.0, "c0": 0.0, "seen": 0, "outputs": 0}
    run_main(build(cfg, state))
    t1, c1 = time.perf_counter(), cpu_seconds()
    return {"records": state["seen"], "outputs": state["outputs"], "seconds": t1 - state["t0"],
            "cpu_seconds": c1 - state["c0"],
            "peak_rss_mb": peak_rss_mb()}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)
