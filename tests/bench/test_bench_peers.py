"""The side-by-side parts of the benchmark: the cross-engine final result, the JSON-lines export the
peers read, process-tree CPU, and (slow, when their environments exist) the Flink SQL and Pathway jobs
agreeing with ksqlpy on a tiny input. No timing is asserted anywhere."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from bench import inputs, venvs
from bench.__main__ import _count
from bench.final_results import Result, compare, normalize
from bench.nexmark import generate
from bench.proc_tree import cpu_seconds, peak_rss_mb, process_age_s, tree_cpu_seconds
from bench.run_ksqlpy import run
from bench.workloads import QUICK, WORKLOADS

REPO = Path(__file__).resolve().parents[2]


def test_values_have_one_spelling_across_engines() -> None:
    assert normalize(3) == normalize(3.0) == "3"
    assert normalize(0.1 + 0.2) == normalize(0.3)  # a sum in another order agrees
    assert normalize(True) == "true" and normalize(None) is None
    assert normalize({"a": [1, 2.5]}) == {"a": ["1", "2.5"]}


def test_a_changelog_and_a_retraction_stream_reduce_to_the_same_final_rows() -> None:
    cols, key = ("auction", "num"), ("auction",)
    upserts, diffs = Result("final", cols, key), Result("final", cols, key)
    for n in (1, 2, 3):  # EMIT CHANGES: every update of auction 7, the last one stands
        upserts.upsert({"AUCTION": 7, "NUM": n})
    upserts.upsert({"AUCTION": 8, "NUM": 1})
    upserts.delete({"AUCTION": 8})  # a tombstone
    diffs.add({"auction": 7, "num": 1})  # +1/-1 diffs (Pathway, Flink's changelog)
    diffs.retract({"auction": 7, "num": 1})
    diffs.add({"auction": 7, "num": 3.0})
    assert upserts.summary() == diffs.summary() == {"rows": 1, "digest": upserts.summary()["digest"]}
    assert upserts.rows() == ['["7","3"]']


def test_rows_are_a_multiset_and_unmatched_retractions_are_reported() -> None:
    a, b = Result("rows", ("x",)), Result("rows", ("x",))
    for x in (1, 1, 2):
        a.add({"x": x})
    for x in (2, 1):
        b.add({"x": x})
    assert a.summary() != b.summary()  # a duplicate row counts
    b.add({"x": 1})
    assert a.summary() == b.summary()
    b.retract({"x": 9})
    assert b.summary()["unmatched_retractions"] == 1
    with pytest.raises(KeyError, match="no column 'x'"):
        a.add({"y": 1})


def test_compare_names_the_engines_that_differ() -> None:
    same, other = {"rows": 2, "digest": "aa"}, {"rows": 2, "digest": "bb"}
    rs = [{"workload": "q1", "engine": "flink-p1", "log": "files", "final": same},
          {"workload": "q1", "engine": "ksqlpy", "log": "embedded", "final": same},
          {"workload": "q1", "engine": "pathway", "log": "files", "final": other},
          {"workload": "q2", "engine": "ksqlpy", "log": "embedded", "final": same},
          {"workload": "q2", "engine": "flink-p2", "log": "files", "error": "boom"}]
    by = {a["workload"]: a for a in compare(rs)}
    assert by["q1"]["reference"] == "ksqlpy (embedded)" and not by["q1"]["agree"]
    assert by["q1"]["differ"] == ["pathway (files): 2 rows, digest bb"]
    assert by["q1"]["engines"] == ["flink-p1 (files)", "ksqlpy (embedded)"]  # the reference's result only
    assert by["q2"]["agree"] and by["q2"]["engines"] == ["ksqlpy (embedded)"]


def test_event_counts_take_suffixes() -> None:
    assert _count("10M") == 10_000_000 and _count("500k") == 500_000 and _count("1_000") == 1000
    with pytest.raises(Exception, match="not a count"):
        _count("many")


def test_every_quick_workload_says_what_its_final_result_is() -> None:
    for w in QUICK:
        spec = WORKLOADS[w].result
        assert set(spec.key) <= set(spec.columns), w
        assert (spec.kind == "final") == bool(spec.key), w
        assert WORKLOADS[w].inputs and set(WORKLOADS[w].inputs) <= {"bid", "auction", "person"}, w


def test_json_lines_export_holds_every_event_with_its_key(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(inputs, "DATA", str(tmp_path))
    path = inputs.jsonl_inputs(2000, 3, 2, lambda _: None)
    g = generate(2000, seed=3)
    for topic, key_col in inputs.KEY_COLUMN.items():
        rows = []
        for part in (0, 1):
            with open(os.path.join(path, topic, f"part-{part}.jsonl"), "rb") as f:
                rows.append([orjson.loads(line) for line in f])
        assert abs(len(rows[0]) - len(rows[1])) <= 1  # dealt round-robin
        got = sorted((r[key_col], r["date_time"]) for part in rows for r in part)
        want = sorted((int.from_bytes(k, "big", signed=True), orjson.loads(v)["date_time"])
                      for k, v in zip(g.keys[topic], g.values[topic], strict=True))
        assert got == want, topic
        assert all(list(r)[0] == key_col for r in rows[0])  # the key column first
        assert [r["date_time"] for r in rows[0]] == sorted(r["date_time"] for r in rows[0])  # in event order
    assert inputs.input_records(path, ("bid", "auction")) == len(g.values["bid"]) + len(g.values["auction"])
    assert inputs.jsonl_inputs(2000, 3, 2, lambda _: None) == path  # cached


def test_process_tree_cpu_counts_children() -> None:
    """A descendant's CPU counts in its ancestor's tree. Measured on a process tree of the test's own
    (a parent that only waits, a busy grandchild): the test process's tree also holds whatever earlier
    tests left running, and one of those exiting mid-test took its CPU out of the sum."""
    busy = "import time\nt=time.process_time()\nwhile time.process_time() - t < 0.3: pass\ntime.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys\n"
                               f"subprocess.Popen([sys.executable, '-c', {busy!r}]).wait()"],
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while tree_cpu_seconds(parent.pid) - own_cpu(parent.pid) < 0.25 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert tree_cpu_seconds(parent.pid) - own_cpu(parent.pid) >= 0.25  # the busy grandchild is in the tree
    finally:
        os.killpg(parent.pid, signal.SIGKILL)  # the session the parent leads: it and the grandchild
        parent.wait()


def own_cpu(pid: int) -> float:
    """CPU seconds of one process alone (utime + stime from /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_one_process_measures_shared_by_every_runner() -> None:
    """The runners' (ksqlpy's, the ceiling's, every peer's) own-process figures, one implementation: CPU
    grows with work, the peak resident set holds what was allocated, the age counts from process start."""
    c0 = cpu_seconds()
    t = time.process_time()
    while time.process_time() - t < 0.05:
        pass
    assert cpu_seconds() - c0 >= 0.04
    block = bytearray(64 * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])  # touch every page
    assert peak_rss_mb() >= 64
    del block
    child = subprocess.run([sys.executable, "-c", "import time; time.sleep(0.3)\n"
                            "from bench.proc_tree import process_age_s; print(process_age_s())"],
                           capture_output=True, text=True, cwd=REPO, check=True)
    assert 0.3 <= float(child.stdout) < 30
    assert process_age_s() > 0


def _ksqlpy_final(tmp_path: Path, src: str, workload: str) -> dict:
    work = tmp_path / f"log-{workload}"
    shutil.copytree(Path(src) / "log", work)
    return run(str(work), workload)


def test_ksqlpy_final_result_matches_an_independent_reading_of_the_input(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(3000, 1, lambda _: None)
    g = generate(3000, seed=1)
    q2 = Result("rows", WORKLOADS["q2"].result.columns)
    q7 = Result("final", *[WORKLOADS["q7"].result.columns, WORKLOADS["q7"].result.key])
    best: dict[tuple[int, int], int] = {}
    for k, v in zip(g.keys["bid"], g.values["bid"], strict=True):
        auction, bid = int.from_bytes(k, "big", signed=True), orjson.loads(v)
        if auction % 123 == 0:
            q2.add({"auction": auction, "price": bid["price"]})
        w = bid["date_time"] // 10_000 * 10_000
        best[(auction, w)] = max(best.get((auction, w), bid["price"]), bid["price"])
    for (auction, w), price in best.items():
        q7.upsert({"auction": auction, "window_start": w, "window_end": w + 10_000, "max_price": price})
    assert _ksqlpy_final(tmp_path, src, "q2")["final"] == q2.summary()
    assert _ksqlpy_final(tmp_path, src, "q7")["final"] == q7.summary()


# ------------------------------------------------------------------------------------ peers (slow)
def _peer(peer: str) -> str:
    py = venvs.python_of(peer)
    ready = os.path.join(venvs.ROOT, peer, ".bench-ready")
    if not (os.path.exists(py) and os.path.exists(ready)):
        pytest.skip(f"no {peer} environment: python -m bench.venvs {peer} creates it (from PyPI, large)")
    return py


def _job(py: str, script: str, cfg: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([py, str(REPO / "bench" / "peers" / script), json.dumps(cfg)], capture_output=True,
                       text=True, timeout=600, env=env, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("{")][-1])


PEER_CASES = ("q2", "q7", "q17", "q3")
# every workload Pathway expresses: the stateless ones, sessions, and the three joins
PATHWAY_CASES = (*PEER_CASES, "q11", "q14", "q21", "q22", "q8", "q20")


@pytest.mark.slow
def test_flink_sql_agrees_with_ksqlpy(tmp_path: Path, monkeypatch) -> None:
    py = _peer("flink")
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(3000, 1, lambda _: None)
    data, warm = inputs.jsonl_inputs(3000, 1, 1, lambda _: None), inputs.jsonl_inputs(500, 1, 1, lambda _: None)
    for w in ("q2", "q20"):
        cfg = {"workload": w, "parallelism": 1, "sink": "filesystem", "data": data, "warm": warm,
               "out": str(tmp_path / f"flink-{w}"), "records": inputs.input_records(data, WORKLOADS[w].inputs)}
        r = _job(py, "flink_job.py", cfg)
        assert r["final"] == _ksqlpy_final(tmp_path, src, w)["final"], w
        assert r["job_fixed_seconds"] > 0 and r["startup_seconds"] > 0


@pytest.mark.slow
def test_pathway_agrees_with_ksqlpy(tmp_path: Path, monkeypatch) -> None:
    py = _peer("pathway")
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(3000, 1, lambda _: None)
    data = inputs.jsonl_inputs(3000, 1, 1, lambda _: None)
    with open(os.path.join(data, "READY")) as f:
        counts = json.load(f)
    for w in PATHWAY_CASES:
        cfg = {"workload": w, "reader": "jsonlines", "data": data, "out": str(tmp_path / f"pw-{w}.jsonl"),
               "input_counts": counts, "grace_s": 0.2}
        r = _job(py, "pathway_job.py", cfg)
        assert r["final"] == _ksqlpy_final(tmp_path, src, w)["final"], w


@pytest.mark.slow
def test_pathway_on_kafka_clocks_every_record_from_the_first(tmp_path: Path, monkeypatch) -> None:
    """Pathway's Kafka runner starts its clock at the first record, as the other Kafka runners do, and
    counts every record: its clock once started at the first minibatch its subscription counted, which on
    the windowed queries came after nearly all of the work (q5/q7 at 2.2M/17.9M records/s)."""
    py = _peer("pathway")
    from bench.broker import Broker, tansu_binary
    from bench.inputs import PARTITIONS

    if tansu_binary() is None:
        pytest.skip("no tansu broker binary")
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    keys, values, tss = inputs.read_bids(inputs.source_log(3000, 1, lambda _: None))
    with Broker() as broker:
        broker.create_topics(["bid"], PARTITIONS)
        broker.produce("bid", keys, values, tss, PARTITIONS)
        ends = broker.end_offsets(keys, PARTITIONS)
        broker.create_topics(["out_q7"], PARTITIONS)
        cfg = {"bootstrap": broker.bootstrap, "workload": "q7", "topic": "bid", "out": "out_q7",
               "group": f"test_pathway_{os.getpid()}", "end_offsets": ends, "reader": "kafka",
               "input_counts": {"bid": sum(ends)}, "grace_s": 0.2}
        r = _job(py, "pathway_job.py", cfg)
    assert r["records"] == r["records_read"] == len(values)
    assert r["seconds"] > 0 and r["cpu_seconds"] > 0
    assert r["startup_seconds"] > 0 and r["cpu_before_first_record"] >= 0


@pytest.mark.slow
def test_worker_processes_give_the_same_final_result(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(inputs, "DATA", str(tmp_path / "data"))
    src = inputs.source_log(3000, 1, lambda _: None)
    one = _ksqlpy_final(tmp_path, src, "q17")
    work = tmp_path / "log-w2"
    shutil.copytree(Path(src) / "log", work)
    two = run(str(work), "q17", workers=2)
    assert two["workers"] == 2 and two["final"] == one["final"]
