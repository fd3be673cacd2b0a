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


def test_batch_clock_reports_the_same_batches_in_two_runs(tmp_path: Path, monkeypatch) -> None:
    """``--batches``: every batch a task processed, as [task id, records, thread CPU us]; two runs of one workload
    list the same batches (only the times differ), and the queries' ``poll_batch`` is given back when the clock
    stops."""
    import ksqlpy.engine.queries as queries

    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(4000, 3, lambda _: None)
    poll = queries.poll_batch
    shapes = []
    for i in range(2):
        work = tmp_path / f"q8-{i}"
        shutil.copytree(Path(src) / "log", work)
        r = run(str(work), "q8", check=False, batches=True)
        assert queries.poll_batch is poll
        batches = r["batches"]
        assert batches and all(isinstance(t, str) and n > 0 and us >= 0 for t, n, us in batches)
        # every input record is read once, and the internal topics' records (re-keyed auctions, the GROUP BY's) too
        assert sum(n for _, n, _ in batches) > r["records"]
        assert {t.split("_")[0] for t, _, _ in batches} == {"0", "1", "2"}  # q8's three sub-topologies
        shapes.append([(t, n) for t, n, _ in batches])
    assert shapes[0] == shapes[1]
    assert "batches" not in run(str(tmp_path / "q8-0"), "q1", check=False)
