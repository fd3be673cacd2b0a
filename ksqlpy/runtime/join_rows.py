"""Row plumbing of joins: source records -> blocks, join-key functions, key bytes.

A *block* is one source's part of the joined row (``analysis.join_scope.block_columns``). The functions
here are generated once per query, so a record costs a tuple build and a few index lookups.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from ksqlpy.catalog import Source
from ksqlpy.codegen_cache import compiled
from ksqlpy.expr.bound import Expr
from ksqlpy.expr.codegen import Codegen
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.plan.logical import SchemaColumn
from ksqlpy.serde.json_blocks import JsonBlocks, json_blocks
from ksqlpy.types import SqlType

KeyFn = Callable[[tuple], tuple | None]


def block_builder(source: Source, read: frozenset[str] | None = None) -> Callable[[tuple, int, int, int], tuple]:
    """``fn(reader_row, ts, partition, offset) -> block`` for a source (reader order: keys, values,
    headers, window bounds). ``read``: the non-key columns the query reads (None: all); the others are
    NULL in the block (``plan.join_columns``)."""
    reader = ([c.name for c in source.key_columns] + [c.name for c in source.value_columns]
              + [c.name for c in source.header_columns])
    parts = [f"r[{reader.index(c.name)}]" if read is None or c.name in read else "None"
             for c in source.columns if not c.key]
    parts += ["ts", "p", "o"]
    if source.windowed is not None:
        n = len(reader)
        parts += [f"r[{n}]", f"r[{n + 1}]"]
    parts += [f"r[{i}]" for i in range(len(source.key_columns))]
    code = f"lambda r, ts, p, o: ({', '.join(parts)},)"
    return eval(code)  # noqa: S307 - generated from the catalog's column list


def struct_block_builder(source: Source, read: frozenset[str] | None = None) -> Callable[..., tuple] | None:
    """``fn(key, struct, ts, partition, offset) -> block``, the same block as ``block_builder``'s from a key
    tuple and the value as the JSON reader's struct (field ``f<j>`` is value column j:
    ``serde.json_fast``), so a batch's blocks are built without the row tuples in between (the struct to a
    tuple, the key prepended, the block picked from that). None for a source whose blocks take more than
    keys and values (header columns, window bounds)."""
    if source.windowed is not None or source.header_columns:
        return None
    values = [c.name for c in source.value_columns]
    parts = [f"s.f{values.index(c.name)}" if read is None or c.name in read else "None"
             for c in source.columns if not c.key]
    parts += ["ts", "p", "o"]
    parts += [f"k[{i}]" for i in range(len(source.key_columns))]
    return eval(f"lambda k, s, ts, p, o: ({', '.join(parts)},)")  # type: ignore[no-any-return]  # noqa: S307 - generated from the catalog's column list


def native_blocks(source: Source, reader: Any, read: frozenset[str] | None = None) -> JsonBlocks | None:
    """The C decoder of a batch's JSON values straight into ``struct_block_builder``'s blocks
    (``serde.json_blocks``), or None where it does not apply: a value serde other than wrapped JSON with the
    typed fast path, a block of more than keys and values, a timestamp from anything but a value column
    read as an integer (``SourceReader.ts_index``) or the record's own."""
    vs = reader.value_serde
    if getattr(vs, "deserialize_structs", None) is None or struct_block_builder(source, read) is None:
        return None
    names = [c.name for c in source.value_columns]
    if [c.name for c in source.columns if not c.key] != names or [n for n, _ in vs.columns] != names:
        return None
    ts_col = None
    if source.timestamp_column:
        if reader.ts_index is None or reader.ts_index < reader.n_keys:
            return None
        ts_col = reader.ts_index - reader.n_keys
    return json_blocks(vs.columns, [read is None or n in read for n in names], ts_col)


def key_function(exprs: list[Expr], columns: list[SchemaColumn], functions: FunctionRegistry,
                 window_at: int | None = None, window_size: int | None = None) -> KeyFn:
    """``fn(row) -> key tuple`` (None if any part is NULL) for bound join-key expressions over a row whose
    columns are ``columns``; ``window_at``: index of WINDOWSTART in the row (windowed keys carry it and
    WINDOWEND). ``window_size``: time windows are identified by their start only (as Kafka Streams'
    time-windowed key bytes are), so the end is start + the join's window size on both sides."""
    consts: dict[str, Any] = {}
    cg = Codegen([f"r[{i}]" for i in range(len(columns))], consts, functions)
    codes = [cg.text(e) for e in exprs]
    if window_at is not None:
        end = f"r[{window_at + 1}]" if window_size is None else f"r[{window_at}] + {int(window_size)}"
        codes += [f"r[{window_at}]", end]
    names = [f"_k{i}" for i in range(len(codes))]
    body = ", ".join(f"({n} := {c})" for n, c in zip(names, codes, strict=True))
    null_check = " or ".join(f"{n} is None" for n in names[: len(exprs)])
    src = f"def _key(r):\n    k = ({body},)\n    return None if {null_check} else k\n"
    ns = dict(consts)
    exec(compiled(src, "<ksqlpy-join-key>"), ns)  # noqa: S102 - generated from a typed plan
    return ns["_key"]


def kept(keep: Callable[[tuple], bool], row: tuple) -> bool:
    """``keep(row)`` of a WHERE prefilter; a failure (its conjuncts cannot fail) keeps the row and leaves it
    to the WHERE after the join, which logs it as ever."""
    try:
        return keep(row)
    except Exception:  # noqa: BLE001
        return True


def is_source_key(exprs: list[Expr], columns: list[SchemaColumn], functions: FunctionRegistry, n_keys: int,
                  window_at: int | None = None) -> bool:
    """Whether join-key expressions over a block (``block_builder``'s layout: its source's key columns
    last) are the source's key columns themselves, in order and unconverted: the key of a record whose
    key columns are all non-NULL is then its key tuple as read (q20's ``B.auction = A.id`` on the bids'
    Kafka key)."""
    if window_at is not None or not n_keys or len(exprs) != n_keys:
        return False
    cg = Codegen([f"r[{i}]" for i in range(len(columns))], {}, functions)
    base = len(columns) - n_keys
    try:
        return [cg.text(e) for e in exprs] == [f"r[{base + i}]" for i in range(n_keys)]
    except Exception:  # noqa: BLE001 - anything code generation will not write plainly: the key function
        return False


def predicate(exprs: list[Expr], width: int, functions: FunctionRegistry) -> Callable[[tuple], bool]:
    """``fn(row) -> every one of exprs is TRUE`` over a row of ``width`` columns (generated as the WHERE's
    code is: NULL is not TRUE)."""
    consts: dict[str, Any] = {}
    cg = Codegen([f"r[{i}]" for i in range(width)], consts, functions)
    body = " and ".join(f"({cg.text(e)}) is True" for e in exprs)
    ns = dict(consts)
    exec(compiled(f"def _keep(r):\n    return {body}\n", "<ksqlpy-join-prefilter>"), ns)  # noqa: S102
    return ns["_keep"]


def key_encoder(fmt: str, types: list[SqlType], delimiter: str | None = None) -> Callable[[tuple], bytes]:
    """Key tuple -> bytes in the join's internal key format (what co-partitioning and store order rest on);
    keys the format cannot write (windowed, structured) fall back to private bytes. A schema-registry
    format's framing names schema id 1 in every process (``serde.placed``)."""
    return _encoders(fmt, types, delimiter)[0]


def _encoders(fmt: str, types: list[SqlType], delimiter: str | None
              ) -> tuple[Callable[[tuple], bytes], Callable[[Any], bytes] | None]:
    """``key_encoder``'s function, and the bare writer of the key's one column it calls first (None: none)."""
    from ksqlpy.serde import key_serde, placed

    try:
        ks = key_serde(fmt, [(f"K{i}", t) for i, t in enumerate(types)], delimiter=delimiter)
    except Exception:  # noqa: BLE001
        ks = None
    n = len(types)
    serialize = placed(fmt, ks.serialize) if ks is not None else None

    def encode(key: tuple) -> bytes:
        if serialize is not None and len(key) == n:
            try:
                b = serialize(key)
                if b is not None:
                    return b
            except Exception:  # noqa: BLE001
                pass
        return pickle.dumps(key, pickle.HIGHEST_PROTOCOL)

    one = _one_column(fmt, types) if ks is not None else None
    if one is None:
        return encode, None

    def encode_one(key: tuple) -> bytes:
        # the KAFKA writer of the one column, called directly (the serde's layers cost more than it does);
        # anything it cannot write goes the general way, which fails the same and falls back
        if len(key) == 1:
            try:
                return one(key[0])
            except Exception:  # noqa: BLE001
                pass
        return encode(key)

    return encode_one, one


def _one_column(fmt: str, types: list[SqlType]) -> Callable[[Any], bytes] | None:
    """The KAFKA writer of a key's one column (``kafka_format.column_writer``), None for other keys."""
    from ksqlpy.serde.kafka_format import column_writer

    return column_writer(types[0].name) if fmt == "KAFKA" and len(types) == 1 else None


def keys_encoder(fmt: str, types: list[SqlType], delimiter: str | None = None
                 ) -> Callable[[list[tuple]], list[bytes]]:
    """A batch of keys -> their bytes, each what ``key_encoder``'s function gives it. A KAFKA key of one INT,
    BIGINT, DOUBLE or STRING column: the column's writer mapped over the batch in C (a call of the wrapper
    per key was 60,000 calls in q8's re-keying of the auctions); a batch it cannot write whole (a key of
    another width, a value the writer refuses) goes key by key, where each key fails or falls back alike."""
    each, one = _encoders(fmt, types, delimiter)

    def encode_each(keys: list[tuple]) -> list[bytes]:
        return list(map(each, keys))

    if one is None:
        return encode_each

    def encode_batch(keys: list[tuple]) -> list[bytes]:
        if set(map(len, keys)) == _WIDTH_ONE:
            try:
                return list(map(one, map(_first, keys)))
            except Exception:  # noqa: BLE001 - key by key below: the same bytes or the same fallback
                pass
        return encode_each(keys)

    return encode_batch


_WIDTH_ONE = {1}
_first = itemgetter(0)


def concat(left_width: int, right_width: int) -> tuple[tuple, tuple]:
    """The all-NULL blocks padding a missing side."""
    return (None,) * left_width, (None,) * right_width
