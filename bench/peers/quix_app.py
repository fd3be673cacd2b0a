"""The shared workloads as Quix Streams applications (run in bench/.venvs/quixstreams, not our env).

``python quix_app.py CONFIG_JSON``. Idiomatic Quix: a StreamingDataFrame over the ``bid`` topic with
JSON values, windows on the message timestamp (the bid's event time) grouped by the message key (the
auction), ``.current()`` so every update is emitted like ksqlpy's EMIT CHANGES. The clock starts at the
first record and stops when the app has processed every input offset and closed (which flushes the
producer and commits the checkpoint). Prints one JSON object.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from typing import Any

from quixstreams import Application, message_context

from bench.proc_tree import cpu_seconds, peak_rss_mb


def main(cfg: dict[str, Any]) -> dict[str, Any]:
    ends = cfg["end_offsets"]
    total = sum(ends)
    app = Application(
        broker_address=cfg["bootstrap"], consumer_group=cfg["group"], auto_offset_reset="earliest",
        state_dir=tempfile.mkdtemp(prefix="quix-state-"), loglevel="WARNING",
        consumer_extra_config={"fetch.queue.backoff.ms": 10},
        producer_extra_config={"linger.ms": 5},
    )
    source = app.topic(cfg["topic"], key_deserializer="bytes", value_deserializer="json")
    sink = app.topic(cfg["out"], key_serializer="bytes", value_serializer="json")
    sdf = app.dataframe(source)
    state = {"t0": 0.0, "c0": 0.0, "seen": 0, "outputs": 0}
    remaining = {p: e for p, e in enumerate(ends) if e > 0}

    def track(value: Any) -> None:
        # stop once every partition's last offset was processed (the app then flushes and commits)
        if not state["seen"]:
            state["t0"], state["c0"] = time.perf_counter(), cpu_seconds()
        state["seen"] += 1
        ctx = message_context()
        if ctx.offset + 1 >= remaining.get(ctx.partition, -1):
            remaining.pop(ctx.partition, None)
            if not remaining:
                app.stop()

    sdf = sdf.update(track)
    w = cfg["workload"]
    if w == "q0":
        pass
    elif w == "q1":
        sdf = sdf.apply(lambda v: {"bidder": v["bidder"], "price": v["price"] * 908 // 1000,
                                   "date_time": v["date_time"], "extra": v["extra"]})
    elif w == "q2":
        sdf = sdf.filter(lambda v, key, ts, headers: int.from_bytes(key, "big", signed=True) % 123 == 0,
                         metadata=True)
        sdf = sdf.apply(lambda v: {"price": v["price"]})
    elif w == "q5":
        sdf = sdf.hopping_window(duration_ms=10_000, step_ms=2_000).count().current()
    elif w == "q7":
        sdf = sdf.apply(lambda v: v["price"]).tumbling_window(duration_ms=10_000).max().current()
    else:
        raise KeyError(w)

    def count_out(value: Any) -> None:
        state["outputs"] += 1

    sdf = sdf.update(count_out)
    sdf.to_topic(sink)
    app.run()
    t1, c1 = time.perf_counter(), cpu_seconds()
    return {"records": state["seen"], "outputs": state["outputs"], "seconds": t1 - state["t0"],
            "cpu_seconds": c1 - state["c0"], "peak_rss_mb": peak_rss_mb(),
            "expected": total}


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))), flush=True)
