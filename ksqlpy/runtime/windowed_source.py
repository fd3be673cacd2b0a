"""Queries without aggregation over a windowed source keep the window in their output key.

A windowed source row carries WINDOWSTART/WINDOWEND as its last columns. The generated pipeline computes
them as two extra key columns (so deletes of a windowed table keep their window too), and this wrapper
turns each output key ``(k..., start, end)`` into the ``((k...), start, end)`` a windowed sink writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ksqlpy import types as T
from ksqlpy.plan.logical import OutputColumn, RowSchema


def window_key_groups(groups: list[list[OutputColumn]], schema: RowSchema) -> list[list[OutputColumn]]:
    """``groups`` with the window bounds of the ``schema`` row added to the key group."""
    bounds = [OutputColumn(n, T.BIGINT, schema.ref(n)) for n in ("WINDOWSTART", "WINDOWEND")]
    return [groups[0] + bounds, *groups[1:]]


def windowed_rows(factory: Callable[[int], Any]) -> Callable[[int], Any]:
    """Wrap a processor factory so output keys become ``(key tuple, window start, window end)``."""

    def make(partition: int) -> Any:
        inner = factory(partition)

        def process(d: Any, tx: Any) -> list[tuple]:
            # (a null key - a record read without one - stays null)
            return [((r[0][:-2], r[0][-2], r[0][-1]) if r[0] is not None else None,) + r[1:] for r in inner(d, tx)]

        after = getattr(inner, "after_commit", None)
        if after is not None:
            process.after_commit = after  # type: ignore[attr-defined]
        return process

    return make
