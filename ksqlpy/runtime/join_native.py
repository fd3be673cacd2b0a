"""A stream-stream join's batch loop in C, when it is built: ``runs`` is ``StreamStreamJoin._runs`` with both
sides stored by ``WindowStore.adder`` - the probe of the other side's index, the joined row, the pair
prefilter, the emit and the record's indexing in one C loop -, ``window_keys`` the LMDB keys
``WindowStore.write_puts`` writes.

Why: q8's join task spends about a quarter of its CPU in that loop, most of it the interpreter's own work
per record (a call per probe and per store, tuple and list juggling), not the callbacks it makes. The C
module (``_ssjoin.c``, an optional extension setup.py builds when a compiler is there) gives the same
results in the same order and leaves the stores exactly as the Python loop does; without it - or with
``KSQLPY_NO_NATIVE=1`` (every native part off), or ``KSQLPY_NO_NATIVE_JOIN=1`` (this one alone, for A/B
runs) - the Python loop runs (tests compare the two).
"""

from __future__ import annotations

import os
from types import ModuleType

NATIVE: ModuleType | None = None
if all(os.environ.get(v, "") in ("", "0") for v in ("KSQLPY_NO_NATIVE", "KSQLPY_NO_NATIVE_JOIN")):
    try:
        from ksqlpy.runtime import _ssjoin as NATIVE  # type: ignore[attr-defined,no-redef]
    except ImportError:  # not built: the Python loop
        NATIVE = None

__all__ = ["NATIVE"]
