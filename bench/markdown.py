"""Render a report JSON as the Markdown tables of docs/benchmarks.md: ``python -m bench.markdown FILE.json``."""

from __future__ import annotations

import json
import sys
from typing import Any


def _opt(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    out = [f"Run {report['when']}: {report['events']:,} events ({report['data']['bids']:,} bids of "
           f"~{report['data']['avg_bid_bytes']:.0f} B), seed {report['seed']}; {m.get('cpu', '?')}, "
           f"{m.get('cpus')} cores, {m.get('memory_gb')} GB, Python {m['python']}; load average at start "
           f"{', '.join(f'{x:.1f}' for x in m.get('load_avg_at_start', []))}; wall time {report['wall_seconds']} s.",
           "",
           "| workload | engine | log | records | seconds | records/s | records/s per busy core | busy cores "
           "| peak RSS MB | outputs |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report["results"]:
        if "error" in r:
            out.append(f"| {r['workload']} | {r['engine']} | {r['log']} | error: {r['error'][:60]} ||||||| ")
            continue
        out.append(f"| {r['workload']} | {r['engine']} | {r['log']} | {r['records']:,} | {r['seconds']:.2f} | "
                   f"{r['records_per_s']:,} | {r['records_per_s_per_core'] or 0:,} | {r['busy_cores']} | "
                   f"{r['peak_rss_mb']:.0f} | {r['outputs'] or 0:,} |")
    starts = [r for r in report["results"] if "startup_seconds" in r or "job_fixed_seconds" in r]
    if starts:
        out += ["", "| workload | engine | log | start-up s | per-job fixed s | job s (raw) | CPU s (raw) |",
                "|---|---|---|---:|---:|---:|---:|"]
        for r in starts:
            out.append(f"| {r['workload']} | {r['engine']} | {r['log']} | {_opt(r.get('startup_seconds'))} | "
                       f"{_opt(r.get('job_fixed_seconds'))} | {r.get('job_seconds', r['seconds']):.2f} | "
                       f"{r.get('job_cpu_seconds', r['cpu_seconds']):.2f} |")
    if report.get("agreement"):
        out += ["", "| workload | final rows | digest | engines | agree |", "|---|---:|---|---|---|"]
        for a in report["agreement"]:
            if a["agree"]:
                agree = "yes"
            elif a.get("explained"):  # differ only where the join's semantics decide (bench/join_reference.py)
                agree = "only on rows the join's semantics decide: " + "; ".join(a["explanations"])
            else:
                agree = "**no**: " + "; ".join(a.get("explanations") or a["differ"])
            out.append(f"| {a['workload']} | {a['rows']:,} | `{a['digest']}` | {', '.join(a['engines'])} | {agree} |")
    out += ["", "| latency (embedded engine) | p50 ms | p99 ms | max ms | samples | notes |", "|---|---:|---:|---:|---:|---|"]
    for lat in report["latency"]:
        if "error" in lat:
            out.append(f"| {lat['workload']} | error: {lat['error'][:80]} |||||")
            continue
        note = (f"{lat.get('via', 'Engine.execute')}, a lookup every {lat.get('gap_ms', 0):g} ms + its own time; "
                f"idle: p50 {lat['idle_p50_ms']:.2f} / p99 {lat['idle_p99_ms']:.2f} ms"
                + (f"; load average {lat['load_avg_idle']} idle, {lat['load_avg_draining']} draining "
                   f"({lat.get('cpus')} cores)" if "load_avg_draining" in lat else "")
                if str(lat["workload"]).startswith("pull") else f"{lat.get('rate_per_s', 0):.0f} records/s, no other load")
        out.append(f"| {lat['workload']} | {lat['p50_ms']:.2f} | {lat['p99_ms']:.2f} | {lat['max_ms']:.1f} | "
                   f"{lat['samples']} | {note} |")
    out += ["", "| target | figure (wall clock) | per busy core | met | |", "|---|---:|---:|---|---|"]
    for t in report["targets"]:
        met = {True: "yes", False: "**no**", None: "n/a"}[t["met"]]
        fig = "" if t["figure"] is None else f"{t['figure']:,}"
        pc = "" if not t.get("per_core") else f"{t['per_core']:,}"
        out.append(f"| {t['target']} | {fig} | {pc} | {met} | {t.get('note', '')} |")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        print(render(json.load(f)))
