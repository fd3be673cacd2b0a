"""How state stores write their values (LMDB and the changelog alike): ``marshal`` when it writes every
value of a batch, else ``pickle``; a value is read by its first byte.

Store values are ksqlpy's own (accumulators, rows, join records), never read by another program. marshal
writes and reads the exact built-in types (None, bool, int, float, str, bytes, tuple, list, dict, set,
frozenset) exactly, about 1.5x as fast as pickle to write and 2x to read (a q8 join record: one window
store put and its changelog record per person and auction); anything else - a Decimal, a datetime, a
subclass, an accumulator object, a nesting deeper than marshal's limit - makes marshal refuse, and the
batch is pickled instead, as every value was before. A pickle starts with its PROTO opcode 0x80, which is
no marshal type code (marshal refuses it), so payloads written by either - and by older versions of
ksqlpy, all pickles - are read back by the one ``decode``. marshal's version 4 (Python 3.4 on) is named
explicitly, so a newer interpreter's default cannot change what the changelog holds.
"""

from __future__ import annotations

import marshal
import pickle
from collections.abc import Sequence
from itertools import repeat
from typing import Any

_VERSION = 4
_HIGHEST = pickle.HIGHEST_PROTOCOL
_PROTO = 0x80  # pickle's first byte from protocol 2 on
_m_dumps, _m_loads = marshal.dumps, marshal.loads
_p_dumps, _p_loads = pickle.dumps, pickle.loads


def encode(value: Any) -> bytes:
    """One value's payload."""
    try:
        return _m_dumps(value, _VERSION)
    except ValueError:
        return _p_dumps(value, _HIGHEST)


def encode_many(values: Sequence[Any]) -> list[bytes]:
    """The payloads of a batch's values: all by marshal in one C-level map, or - any value it refuses -
    all pickled."""
    try:
        return list(map(_m_dumps, values, repeat(_VERSION)))
    except ValueError:
        return list(map(_p_dumps, values, repeat(_HIGHEST)))


def decode(payload: bytes) -> Any:
    """A payload of ``encode``/``encode_many`` (or an older pickle) back to its value."""
    return _p_loads(payload) if payload[0] == _PROTO else _m_loads(payload)


__all__ = ["decode", "encode", "encode_many"]
