"""A topology as ksqlDB's EXPLAIN prints it: Kafka Streams' ``TopologyDescription`` text.

Sub-topologies in id order; within one, nodes as Kafka Streams orders them (larger sub-trees first, then
by name); each node with its successors (``-->``) and predecessors (``<--``), ``none`` when there are
none; processors with their stores, sources with their topics, sinks with their topic. Internal topics
appear without the application id, as Kafka Streams describes a topology before it runs.
"""

from __future__ import annotations

from functools import cmp_to_key

from ksqlpy.plan.topology import Node, NodeKind, SubTopology, Topology


def topology_text(topology: Topology) -> str:
    out = "Topologies:\n "
    for sub in topology.sub_topologies:
        out += f"  Sub-topology: {sub.id}\n" + "".join(f"    {line}\n" for line in _nodes(sub)) + "\n"
    return out


def _nodes(sub: SubTopology) -> list[str]:
    by_name = {n.name: n for n in sub.nodes}
    preds: dict[str, list[str]] = {n.name: [] for n in sub.nodes}
    for n in sub.nodes:
        for s in n.successors:
            preds[s].append(n.name)
    sizes: dict[str, int] = {}

    def size(name: str) -> int:
        if name not in sizes:
            sizes[name] = 1 + sum(size(s) for s in by_name[name].successors)
        return sizes[name]

    def compare(a: str, b: str) -> int:
        if size(a) != size(b):
            return size(b) - size(a)
        return (a > b) - (a < b)

    order = cmp_to_key(compare)

    def names(of: list[str]) -> str:
        return ", ".join(sorted(of, key=order)) if of else "none"

    lines = []
    for name in sorted(by_name, key=order):
        n: Node = by_name[name]
        if n.kind is NodeKind.SOURCE:
            lines += [f"Source: {name} (topics: [{', '.join(n.topics)}])", f"  --> {names(n.successors)}"]
        elif n.kind is NodeKind.SINK:
            lines += [f"Sink: {name} (topic: {n.topics[0]})", f"  <-- {names(preds[name])}"]
        else:
            lines += [f"Processor: {name} (stores: [{', '.join(n.stores)}])", f"  --> {names(n.successors)}",
                      f"  <-- {names(preds[name])}"]
    return lines
