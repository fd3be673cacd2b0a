"""The benchmark's inputs: the generated Nexmark topics in an embedded log and the same events as JSON
lines for the peers' file readers, each made once per (events, seed) and cached in bench/.data."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data")
PARTITIONS = 4


def source_log(events: int, seed: int, say: Callable[[str], None]) -> str:
    """The generated topics in an embedded log, made once per (events, seed) and cached in bench/.data."""
    path = os.path.join(DATA, f"nexmark-{events}-{seed}")
    if os.path.exists(os.path.join(path, "READY")):
        return path
    from bench.nexmark import generate
    from ksqlpy.log import EmbeddedLog

    say(f"generating {events:,} Nexmark events (seed {seed}) into {path} ...")
    shutil.rmtree(path, ignore_errors=True)
    t0 = time.perf_counter()
    g = generate(events, seed)
    log = EmbeddedLog(os.path.join(path, "log"))
    for topic in ("bid", "auction", "person"):
        log.create_topic(topic, PARTITIONS)
        ks, vs, ts = g.keys[topic], g.values[topic], g.timestamps[topic]
        for s in range(0, len(vs), 50_000):
            with log.transaction() as tx:
                tx.produce_batch(topic, None, ks[s:s + 50_000], vs[s:s + 50_000], ts[s:s + 50_000])
    log.close()
    with open(os.path.join(path, "READY"), "w") as f:
        json.dump({"events": events, "seed": seed, "bids": len(g.values["bid"]),
                   "avg_bid_bytes": g.bytes("bid") / max(1, len(g.values["bid"]))}, f)
    say(f"  generated in {time.perf_counter() - t0:.1f} s")
    return path


KEY_COLUMN = {"bid": "auction", "auction": "id", "person": "id"}


def jsonl_inputs(events: int, seed: int, parts: int, say: Callable[[str], None]) -> str:
    """The same events as JSON lines for the peers' file readers, made once and cached beside the log:
    ``<dir>/<topic>/part-<i>.jsonl``, the key column first, records dealt round-robin over ``parts``
    files (one per reader), each file in event order."""
    from bench.nexmark import NexmarkGenerator

    path = os.path.join(DATA, f"nexmark-{events}-{seed}", f"jsonl-{parts}")
    if os.path.exists(os.path.join(path, "READY")):
        return path
    say(f"exporting {events:,} events as JSON lines ({parts} file(s) per topic) into {path} ...")
    shutil.rmtree(path, ignore_errors=True)
    files = {}
    for topic in KEY_COLUMN:
        os.makedirs(os.path.join(path, topic))
        files[topic] = [open(os.path.join(path, topic, f"part-{i}.jsonl"), "wb") for i in range(parts)]
    counts = dict.fromkeys(KEY_COLUMN, 0)
    heads = {t: b'{"%s":' % KEY_COLUMN[t].encode() for t in KEY_COLUMN}
    for topic, key, value, _ in NexmarkGenerator(events, seed):
        n = counts[topic]
        counts[topic] = n + 1
        files[topic][n % parts].write(b"%s%d,%s\n" % (heads[topic], int.from_bytes(key, "big", signed=True), value[1:]))
    for fs in files.values():
        for f in fs:
            f.close()
    with open(os.path.join(path, "READY"), "w") as f:
        json.dump(counts, f)
    return path


def input_records(path: str, topics: tuple[str, ...]) -> int:
    """Records of ``topics`` in an exported JSON-lines directory."""
    with open(os.path.join(path, "READY")) as f:
        counts = json.load(f)
    return sum(counts[t] for t in topics)


def read_bids(path: str) -> tuple[list[bytes], list[bytes], list[int]]:
    """The bids back from the cached log, in event order per partition (for loading the broker)."""
    from ksqlpy.log import EmbeddedLog

    log = EmbeddedLog(os.path.join(path, "log"))
    keys: list[bytes] = []
    values: list[bytes] = []
    tss: list[int] = []
    for p in range(PARTITIONS):
        off = 0
        while True:
            b = log.fetch("bid", p, off, 50_000)
            if not b.offsets:
                break
            keys += b.keys  # type: ignore[arg-type]
            values += b.values  # type: ignore[arg-type]
            tss += b.timestamps
            off = b.next_offset
    log.close()
    return keys, values, tss


def work_copy(src: str) -> str:
    """A private copy of the source log for one measurement (so sinks and state never accumulate)."""
    d = tempfile.mkdtemp(prefix="ksqlpy-bench-run-")
    shutil.copytree(os.path.join(src, "log"), os.path.join(d, "log"))
    return d
