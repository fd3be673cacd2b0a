"""The benchmark's generator and one tiny workload, for correctness only (no timing is asserted)."""

from __future__ import annotations

import collections
import json
import shutil
from pathlib import Path

import orjson

from bench import inputs
from bench.ceiling import make_processor
from bench.nexmark import generate
from bench.run_ksqlpy import run


def test_generator_is_deterministic_with_nexmark_proportions() -> None:
    a, b = generate(5000, seed=7), generate(5000, seed=7)
    assert a.values == b.values and a.keys == b.keys
    assert generate(5000, seed=8).values["bid"] != a.values["bid"]
    counts = {t: len(v) for t, v in a.values.items()}
    assert counts == {"person": 100, "auction": 300, "bid": 4600}  # 2 / 6 / 92 %
    bid = orjson.loads(a.values["bid"][0])
    assert set(bid) == {"bidder", "price", "channel", "url", "date_time", "extra"}
    assert all(len(k) == 8 for k in a.keys["bid"])
    hot = collections.Counter(a.keys["bid"]).most_common(1)[0][1]
    assert hot > 10 * len(a.values["bid"]) / len(set(a.keys["bid"]))  # hot auctions exist
    assert a.timestamps["bid"] == sorted(a.timestamps["bid"])


def test_tiny_workloads_match_the_hand_written_loop(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(3000, 1, lambda _: None)
    g = generate(3000, seed=1)
    bids = (g.keys["bid"], g.values["bid"], g.timestamps["bid"])
    for w in ("q1", "q2"):
        work = tmp_path / w
        shutil.copytree(Path(src) / "log", work)
        r = run(str(work), w)
        expected = make_processor(w)(*bids)
        assert r["records"] == len(bids[0])
        assert r["outputs"] == len(expected[0]), w
    with open(Path(src) / "READY") as f:
        assert json.load(f)["bids"] == len(bids[0])
