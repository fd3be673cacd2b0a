"""CPU seconds, peak memory and age of a process (and of all its descendants), from /proc (stdlib only:
the peers, in their own environments, import it too).

A PyFlink job runs in a JVM that the Python driver starts as a child process; Pathway runs its Rust
workers as threads. Counting the whole tree is what makes engines with helper processes comparable to
one ksqlpy process.
"""

from __future__ import annotations

import os
import resource

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a live process, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICK


def tree_cpu_seconds(root: int | None = None) -> float:
    """User + system CPU of ``root`` (default: this process) and every live descendant."""
    root = os.getpid() if root is None else root
    stats: dict[int, tuple[int, float]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = _stat(int(name))
            if s is not None:
                stats[int(name)] = s
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
        todo.extend(children.get(pid, ()))
    return total


def tree_peak_rss_mb(root: int | None = None) -> float:
    """Sum of the peak resident sets (VmHWM) of ``root`` and its live descendants."""
    root = os.getpid() if root is None else root
    pids = [root]
    seen = 0.0
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = _stat(int(name))
            if s is not None:
                parents[int(name)] = s[0]
    todo = [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(c for c, p in parents.items() if p == pid)
    for pid in set(pids):
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        seen += int(line.split()[1]) / 1024
                        break
        except OSError:
            pass
    return seen


def peak_rss_mb() -> float:
    """Peak resident set of this process (VmHWM; ru_maxrss would carry the parent's peak across exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """User + system CPU of this process so far (its threads included, not its children)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def process_age_s() -> float:
    """Seconds since this process started (a start-up clock that includes the interpreter's own)."""
    with open("/proc/self/stat") as f:
        start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return uptime - start_ticks / _TICK
