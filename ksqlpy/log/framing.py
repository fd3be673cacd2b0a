"""The embedded log's record framing in C, when it is built: one call packs a batch's plain records into
chunks, one call splits a chunk's records into key, value and timestamp columns.

Why: in Python a record written costs a header ``struct.pack`` and a ``b"".join`` (two bytes objects), and a
record read a header ``unpack_from`` and two slices in a loop - about a quarter of a pass-through query's CPU
(q0: 2.58 -> 1.95 CPU s with both in C, same results). The C module (``_framing.c``, an optional extension
setup.py builds when a compiler is there) writes exactly the bytes ``record_codec`` writes and reads exactly
the columns ``embedded._decode`` reads; without it - or with ``KSQLPY_NO_NATIVE=1``, or on a big-endian
machine (the layout is little-endian and the C code copies native ints) - the Python code runs.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

NATIVE: ModuleType | None = None
if sys.byteorder == "little" and os.environ.get("KSQLPY_NO_NATIVE", "") in ("", "0"):
    try:
        from ksqlpy.log import _framing as NATIVE  # type: ignore[attr-defined,no-redef]
    except ImportError:  # not built: the Python framing
        NATIVE = None

__all__ = ["NATIVE"]
