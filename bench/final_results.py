"""The final result of a workload as one comparable digest, whatever engine produced it.

Engines emit differently: ksqlpy's EMIT CHANGES writes every update (or, with its record cache, the last
of a batch's), Flink's window aggregations write one row per closed window and its group aggregations a
changelog of retractions, Pathway a stream of +1/-1 diffs. What must agree is the final result: for a
stream workload the multiset of output rows, for a table workload the last row per key. Each runner
reduces its own output to canonical rows (lower-case column names, values normalized below) with a
:class:`Result`, and the harness compares the digests.

Stdlib only: the peers' runners import this module inside their own virtual environments.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["rows", "final"]


def normalize(v: Any) -> Any:
    """One spelling per value across engines: integers and floats as decimal strings (so an INT 3 and a
    DOUBLE 3.0 agree, and a double summed in another order agrees to 12 significant digits)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == int(v) and abs(v) < 2 ** 53:
            return str(int(v))
        return f"{v:.12g}"
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    if isinstance(v, Mapping):
        return {str(k): normalize(x) for k, x in v.items()}
    return str(v)


def _hash(row: Sequence[Any]) -> int:
    return int.from_bytes(hashlib.blake2b(json.dumps(row, separators=(",", ":")).encode(), digest_size=8).digest(),
                          "big")


@dataclass
class Result:
    """Accumulates one engine's output rows into the workload's final result.

    ``kind="rows"``: every row counts (a multiset). ``kind="final"``: ``upsert`` keeps the last row per
    ``key`` (a changelog read in order per key; ``delete`` removes), ``diff`` adds or retracts whole rows
    (a retraction stream: order-free)."""

    kind: Kind
    columns: tuple[str, ...]
    key: tuple[str, ...] = ()
    _rows: Counter[str] = field(default_factory=Counter)
    _last: dict[str, str] = field(default_factory=dict)

    def _canon(self, row: Mapping[str, Any]) -> str:
        low = {k.lower(): v for k, v in row.items()}
        try:
            return json.dumps([normalize(low[c]) for c in self.columns], separators=(",", ":"))
        except KeyError as e:
            raise KeyError(f"output row has no column {e.args[0]!r}: {sorted(low)}") from None

    def _key(self, row: Mapping[str, Any]) -> str:
        low = {k.lower(): v for k, v in row.items()}
        return json.dumps([normalize(low[c]) for c in self.key], separators=(",", ":"))

    def add(self, row: Mapping[str, Any]) -> None:
        """One output row (a stream's row, an insert of a retraction stream)."""
        self._rows[self._canon(row)] += 1

    def retract(self, row: Mapping[str, Any]) -> None:
        self._rows[self._canon(row)] -= 1

    def upsert(self, row: Mapping[str, Any]) -> None:
        self._last[self._key(row)] = self._canon(row)

    def delete(self, key_row: Mapping[str, Any]) -> None:
        self._last.pop(self._key(key_row), None)

    def rows(self) -> list[str]:
        """The final rows, canonical and sorted (for dumping and diffing)."""
        out = [r for r, n in self._rows.items() for _ in range(max(0, n))]
        out += self._last.values()
        return sorted(out)

    def summary(self) -> dict[str, Any]:
        """``{"rows": N, "digest": hex}``: an order-free digest of the final rows."""
        rows = self.rows()
        total = 0
        for r in rows:
            total = (total + _hash(json.loads(r))) % 2 ** 64
        negative = sum(1 for n in self._rows.values() if n < 0)
        out: dict[str, Any] = {"rows": len(rows), "digest": f"{total:016x}"}
        if negative:
            out["unmatched_retractions"] = negative
        return out

    def dump(self, path: str) -> None:
        with open(path, "w") as f:
            for r in self.rows():
                f.write(r + "\n")


def compare(results: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per workload: whether every engine that reported a final result reported the same one. The
    reference is ksqlpy on the embedded log; rows without a ``final`` are skipped. ``engines`` are those
    agreeing with the reference, ``differ`` the others (it listed every engine, the differing ones too)."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        if r.get("final"):
            by.setdefault(r["workload"], []).append(r)
    out = []
    for w, rs in by.items():
        ref = next((r for r in rs if r["engine"] == "ksqlpy" and r["log"] == "embedded"), rs[0])
        differ = [f"{r['engine']} ({r['log']}): {r['final']['rows']:,} rows, digest {r['final']['digest']}"
                  for r in rs if r["final"] != ref["final"]]
        # ``engines``: those with the reference's result (the rows and digest printed beside them)
        out.append({"workload": w, "engines": sorted({f"{r['engine']} ({r['log']})" for r in rs
                                                      if r["final"] == ref["final"]}),
                    "rows": ref["final"]["rows"], "digest": ref["final"]["digest"], "agree": not differ,
                    "reference": f"{ref['engine']} ({ref['log']})", "differ": differ})
    return out
