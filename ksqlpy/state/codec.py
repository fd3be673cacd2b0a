"""How state stores write their values (LMDB and the changelog alike): ``marshal`` when it writes every
value of a batch, else ``pickle``; a value is read by its first byte.

Store values are ksqlpy's own (accumulators, rows, join records), never read by another program. marshal
writes and reads the exact built-in types (None, bool, int, float, str, bytes, tuple, list, dict, set,
frozenset) exactly, about 1.5x as fast as pickle to write and 2x to read (a q8 join record: one window
store put and its changelog record per person and auction); anything else - a Decimal, a datetime, a
subclass, an accumulator object, a nesting deeper than marshal's limit - makes marshal refuse, and the
batch is pickled instead, as every value was before. A pickle starts with its PROTO opcode 0x80, which is
no marshal type code (marshal refuses it), so payloads written by either - and by older versions of
ksqlpy, all pickles - are read back by the one ``decode``.

marshal writes version 2 (named explicitly, so a newer interpreter's default cannot change what the
changelog holds): versions 3 and 4 keep a table of every object written with a reference count above one,
so that a shared object is written once and read back shared - a hash table made, filled and freed per
value, about a third of a store value's marshal in a join (whose rows share their ints and strings with
the batch). Store values never need sharing kept: they are compared by value, and a structure that refers
to itself (which only references could write) exceeds marshal's depth and is pickled. ``marshal.loads``
reads every version, so payloads written as version 4 by earlier versions of ksqlpy read back the same.

A batch's payloads are written by ``marshal_many``: the C extension's ``dumps_many`` (``runtime/_ssjoin.c``)
writes the bytes ``marshal.dumps(v, 2)`` gives for the values stores and repartition topics carry (None,
bools, 64-bit ints, floats, ASCII strings, bytes, tuples and lists of them) without marshal's per-call
set-up - a third or less of its instructions - and hands every other value to marshal; without the
extension, or with ``KSQLPY_NO_NATIVE=1``, marshal writes them all. The bytes are the same either way.
"""

from __future__ import annotations

import marshal
import os
import pickle
from collections.abc import Sequence
from itertools import repeat
from typing import Any

_VERSION = 2  # no reference table (see the module docstring)
_HIGHEST = pickle.HIGHEST_PROTOCOL
_PROTO = 0x80  # pickle's first byte from protocol 2 on
_m_dumps, _m_loads = marshal.dumps, marshal.loads
_p_dumps, _p_loads = pickle.dumps, pickle.loads
_dumps_many: Any = None
if os.environ.get("KSQLPY_NO_NATIVE", "") in ("", "0"):
    try:
        from ksqlpy.runtime._ssjoin import dumps_many as _dumps_many  # type: ignore[attr-defined,no-redef]
    except ImportError:  # pragma: no cover - the optional extension not built
        _dumps_many = None


def marshal_many(values: Sequence[Any]) -> list[bytes]:
    """``[marshal.dumps(v, 2) for v in values]`` (by the C writer when it is built); ValueError as marshal
    raises it for a value it cannot write."""
    if _dumps_many is not None:
        return _dumps_many(values)  # type: ignore[no-any-return]
    return list(map(_m_dumps, values, repeat(_VERSION)))


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
        return marshal_many(values)
    except ValueError:
        return list(map(_p_dumps, values, repeat(_HIGHEST)))


def decode(payload: bytes) -> Any:
    """A payload of ``encode``/``encode_many`` (or an older pickle) back to its value."""
    return _p_loads(payload) if payload[0] == _PROTO else _m_loads(payload)


__all__ = ["decode", "encode", "encode_many", "marshal_many"]
