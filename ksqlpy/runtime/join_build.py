"""Wiring a join task from its sub-topology's ``JoinStage`` (``plan.topology``; the cut into sub-topologies
and every name are the lowering's, ``plan.lower_join``).

A task's channels decode their input topics - a source's records into blocks keyed by the join key, an
internal topic's ``(key, row)`` pairs (marshal, or pickle) - and hand each record to its target: a join
operator's input handler, a repartition topic (re-keyed), or the join's result. Operators are created in the order of the
stage's wiring, each before anything feeding it. Compiled pieces (key functions, key encoders) are built
once per query and shared by its tasks.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from ksqlpy.log.base import RecordBatch
from ksqlpy.log.partitioner import partition_for_key
from ksqlpy.plan.column_rows import ColumnRows, rows_of
from ksqlpy.plan.topology import (
    ForeignKeyLeft,
    ForeignKeyRight,
    JoinChannel,
    JoinOperator,
    JoinStage,
    KeyCodec,
    KeyFunction,
    Target,
    ToOperator,
    Topology,
    ToRepartition,
    ToResult,
)
from ksqlpy.runtime.context import RuntimeContext, fail_on_deserialization, strict_timestamps
from ksqlpy.runtime.join_fk import FkLeft, FkRight
from ksqlpy.runtime.join_keys import rekey, store_encoder
from ksqlpy.runtime.join_rows import (
    block_builder,
    is_source_key,
    key_encoder,
    key_function,
    keys_encoder,
    native_blocks,
    predicate,
    struct_block_builder,
)
from ksqlpy.runtime.join_store import OuterStore, TableStore, WindowStore
from ksqlpy.runtime.join_stream_stream import StreamStreamJoin
from ksqlpy.runtime.join_stream_table import StreamTableJoin, exact_key_types
from ksqlpy.runtime.join_table_table import TableTableJoin
from ksqlpy.runtime.join_task import Channel, Run, TaskContext
from ksqlpy.runtime.reader import SourceReader
from ksqlpy.runtime.repartition import decode_values
from ksqlpy.runtime.serdes import QuerySerdes

Emit = Callable[[Any, Any, Any, int, Any], None]


_TUPLE = {tuple}
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_THIRD = itemgetter(2)


def _kept(events: list[tuple], keep: Callable[[tuple], bool]) -> list[tuple]:
    """The events whose block passes ``keep`` (a tombstone, without one, is kept). The conjuncts cannot
    fail (``plan.join_prefilter``); if one did, every event goes on and the WHERE after the join decides
    and logs, as without them."""
    try:
        return [e for e in events if e[2][1] is None or keep(e[2][1])]
    except Exception:  # noqa: BLE001
        return events


class JoinWiring:
    """Wires the join stages of one query's tasks; compiles each key function and encoder once."""

    def __init__(self, rctx: RuntimeContext, topology: Topology, serdes: QuerySerdes | None = None) -> None:
        self.rctx = rctx
        self.serdes = serdes if serdes is not None else QuerySerdes(rctx)  # the query's, shared by its tasks
        self.topology = topology
        self.functions = topology.functions
        self.strict = strict_timestamps(rctx)
        self.fail_on_deserialization = fail_on_deserialization(rctx)
        self._keys: dict[int, Callable[[tuple], Any]] = {}
        self._codecs: dict[int, Callable[[tuple], bytes]] = {}
        self._store_codecs: dict[int, Callable[[tuple], bytes]] = {}
        self._codecs_many: dict[int, Callable[[list[tuple]], list[bytes]]] = {}
        self._routes: dict[int, Callable[[tuple], int | None]] = {}
        self._predicates: dict[tuple[int, int], Callable[[tuple], bool]] = {}

    def key_fn(self, key: KeyFunction) -> Callable[[tuple], Any]:
        fn = self._keys.get(id(key))
        if fn is None:
            fn = self._keys[id(key)] = key_function(list(key.exprs), key.columns, self.functions, key.window_at,
                                                    key.window_size)
        return fn

    def logged_key_fn(self, ctx: TaskContext, key: KeyFunction) -> Callable[[tuple], Any]:
        """A key function whose failure on a row (``L.FK + 1`` over a NULL) is logged to the processing log
        and gives a NULL key, as an expression ksqlDB evaluates for a join key does: a foreign-key join
        then treats the row as having no foreign key instead of stopping the query."""
        fn, plog, qid = self.key_fn(key), ctx.plog, ctx.query_id

        def logged(row: tuple) -> Any:
            try:
                return fn(row)
            except Exception as e:  # noqa: BLE001 - a bad row never stops the query
                plog.record_error(qid, f"Error computing the join key: {e}", row)
                return None

        return logged

    def predicate(self, exprs: Any, width: int) -> Callable[[tuple], bool]:
        """A prefilter (``join_rows.predicate``), compiled once per query: every task of q8 compiled its
        pair prefilter and the channels' own (a code object per task and prefilter)."""
        key = (id(exprs), width)
        fn = self._predicates.get(key)
        if fn is None:
            fn = self._predicates[key] = predicate(list(exprs), width, self.functions)
        return fn

    def codec(self, codec: KeyCodec) -> Callable[[tuple], bytes]:
        """Key -> its bytes in the join's internal key format (an internal topic's record key)."""
        fn = self._codecs.get(id(codec))
        if fn is None:
            fn = self._codecs[id(codec)] = key_encoder(codec.format, codec.types, codec.delimiter)
        return fn

    def codec_many(self, codec: KeyCodec) -> Callable[[list[tuple]], list[bytes]]:
        """A batch of keys -> their bytes, each as ``codec``'s function writes it (``join_rows.keys_encoder``)."""
        fn = self._codecs_many.get(id(codec))
        if fn is None:
            fn = self._codecs_many[id(codec)] = keys_encoder(codec.format, codec.types, codec.delimiter)
        return fn

    def store_codec(self, codec: KeyCodec) -> Callable[[tuple], bytes]:
        """Key -> its join stores' key: the format's bytes without the registry's framing (``join_keys``)."""
        fn = self._store_codecs.get(id(codec))
        if fn is None:
            fn = self._store_codecs[id(codec)] = store_encoder(codec.format, self.codec(codec))
        return fn

    @staticmethod
    def migration(ctx: TaskContext, kv: Any, codec: KeyCodec, fk_codec: KeyCodec | None = None) -> Any:
        """``kv``, registered to be re-keyed after its restore if an earlier version wrote it."""
        key = rekey(codec.format, codec.types)
        fk = rekey(fk_codec.format, fk_codec.types) if fk_codec is not None else None
        if key is not None or fk is not None:
            ctx.migrations.append((kv, key, fk))
        return kv

    def router(self, op: ForeignKeyLeft) -> Callable[[tuple], int | None]:
        """Foreign key -> the partition of the right table's topic it is in: where the key written by that
        source's own key serde hashes (None, left to the log's partitioner, when that serde cannot); for a
        re-keyed right table, where the repartition topic's key (the join's own bytes) hashes."""
        route = self._routes.get(id(op))
        if route is not None:
            return route
        if getattr(op, "right_rekeyed", False):  # (older plans: not re-keyed)
            # the right table's rows were re-keyed with the join's own key bytes, which the subscription's key is
            fk_bytes, count = self.codec(op.fk_codec), op.right_partitions

            def route_placed(key: tuple) -> int | None:
                return partition_for_key(fk_bytes(key), count)

            self._routes[id(op)] = route_placed
            return route_placed
        try:
            serde = self.serdes.key_serde(op.right_source)
        except Exception:  # noqa: BLE001 - no serde for the source's keys: leave routing to the log
            route = self._routes[id(op)] = lambda key: None
            return route
        partitions = op.right_partitions

        def route_key(key: tuple) -> int | None:
            try:
                data = serde.serialize(key)
            except Exception:  # noqa: BLE001
                return None
            return None if data is None else partition_for_key(data, partitions)

        self._routes[id(op)] = route_key
        return route_key

    # ------------------------------------------------------------------ a task
    def wire(self, ctx: TaskContext, stage: JoinStage, store: Callable[[str], Any]) -> None:
        """Create ``stage``'s operators and channels in ``ctx`` (``store(name)``: the task's store)."""
        for item in stage.wiring:
            if isinstance(item, JoinChannel):
                ctx.channels.append(self.channel(ctx, item))
            else:
                op = self.operator(ctx, item, store)
                ctx.operators.append(op)
                ctx.ops[item.id] = op

    def emitter(self, ctx: TaskContext, target: Target) -> Emit:
        if isinstance(target, ToResult):
            return ctx.result_rows.add if ctx.result_rows is not None else ctx.add_final
        if isinstance(target, ToOperator):
            return getattr(ctx.ops[target.operator], target.handler)  # type: ignore[no-any-return]
        assert isinstance(target, ToRepartition)
        return self.repartition_emit(ctx, target)

    def repartition_emit(self, ctx: TaskContext, target: ToRepartition) -> Emit:
        """Emit into a repartition topic, re-keying each row (unless ``target.key`` is None); the records
        are written per batch as columns (``TaskContext.internal_topic``). A join key that fails to compute
        (``L.X + 1`` over a NULL X) is logged and is NULL: ksqlDB re-keys a join side with the PARTITION BY
        machinery (StreamSelectKeyBuilder, whose evaluator logs the error and returns null - from memory),
        so the record goes on under a null key as a NULL join expression's does."""
        plog, qid = ctx.plog, ctx.query_id
        key_fn = self.key_fn(target.key) if target.key is not None else None
        key_bytes = self.codec(target.codec)
        buf = ctx.internal_topic(target.topic)
        add_key, add_payload, add_ts, add_headers = (buf.keys.append, buf.payloads.append, buf.timestamps.append,
                                                     buf.headers.append)

        def emit(key: Any, new: Any, old: Any, ts: int, hdrs: Any) -> None:
            if key_fn is not None and new is not None:
                try:
                    key = key_fn(new)
                except Exception as e:  # noqa: BLE001
                    plog.record_error(qid, f"Error computing the join key: {e}", new)
                    key = None
            # a NULL join key goes on with a null Kafka key: an outer join side still emits the record
            add_key(None if key is None else key_bytes(key))
            add_payload((key, new))
            add_ts(ts)
            add_headers(hdrs)

        return emit

    def repartition_run(self, ctx: TaskContext, target: ToRepartition, emit: Emit) -> Run:
        """A run of records into a repartition topic as ``emit`` writes them one by one, by C-level maps over
        the run: the new keys (q8's 60,000 auctions re-keyed by seller), their bytes, and the columns of
        the topic's buffer. A run with a tombstone or a NULL key, or whose key function fails on some
        record, goes record by record through ``emit`` (which logs the failing record and skips it)."""
        key_fn = self.key_fn(target.key) if target.key is not None else None
        keys_bytes = self.codec_many(target.codec)
        buf = ctx.internal_topic(target.topic)

        def run(events: list[tuple], i: int, j: int) -> None:
            run = events[i:j]
            inner = list(map(_THIRD, run))
            rows = list(map(_SECOND, inner))
            keys: list[Any] | None = None
            if None not in rows:
                if key_fn is None:
                    keys = list(map(_FIRST, inner))
                else:
                    try:
                        keys = list(map(key_fn, rows))
                    except Exception:  # noqa: BLE001 - logged record by record below
                        keys = None
            if keys is None or None in keys:
                for ts, _, (key, row, hdrs) in run:
                    emit(key, row, None, ts, hdrs)
                return
            buf.keys += keys_bytes(keys)
            buf.payloads += zip(keys, rows, strict=True)
            buf.timestamps += map(_FIRST, run)
            buf.headers += map(_THIRD, inner)

        return run

    @staticmethod
    def _table_of_stream_table_join(ctx: TaskContext, target: Target) -> bool:
        """Whether a channel feeds the table side of a stream-table join: its records go first on equal
        timestamps, so a stream record joins the table row written at its own time (the table as of the
        stream record's time, that time included - as a versioned table's lookup reads it)."""
        return isinstance(target, ToOperator) and target.handler == "on_right" \
            and isinstance(ctx.ops[target.operator], StreamTableJoin)

    def channel(self, ctx: TaskContext, ch: JoinChannel) -> Channel:
        emit = self.emitter(ctx, ch.target)
        first = self._table_of_stream_table_join(ctx, ch.target)
        if ch.source is None:
            def decode_internal(batch: RecordBatch) -> list[tuple]:
                # the ``(key, row)`` payloads by one C-level map (marshal, or pickle as older records are), the
                # events by C-level zips (a comprehension unpacking each payload cost twice as much)
                pairs = decode_values(batch.values)
                return list(zip(batch.timestamps, batch.offsets,
                                zip(map(_FIRST, pairs), map(_SECOND, pairs), batch.headers, strict=True), strict=True))

            internal = Channel(ch.topic, decode_internal, lambda key, row, hdrs, ts: emit(key, row, None, ts, hdrs),
                               run=self.runner(ctx, ch.target, emit), first_on_ties=first)
            internal.merge = self.merge(ctx, ch.target)
            return internal
        source = ch.source
        plog, qid = ctx.plog, ctx.query_id
        reader = SourceReader(source, self.serdes.key_serde(source), self.serdes.value_serde(source), plog, qid,
                              keep_tombstones=ch.table, throw_on_invalid_timestamp=self.strict,
                              fail_on_deserialization=self.fail_on_deserialization)
        # a logged failing row is the whole row: with rows in the processing log every column is kept
        read = None if ch.table or getattr(plog, "include_rows", True) else ch.columns_read
        block = block_builder(source, read)
        # a batch the JSON reader decoded into structs (``reader.columnar``): blocks straight from them
        sblock = struct_block_builder(source, read)
        reader.columnar = sblock is not None
        assert ch.key is not None
        key_fn = self.key_fn(ch.key)
        # the join key is the record's one key column as read: a batch without a NULL key takes the reader's
        # key tuples (what ``key_fn`` would build again from each block)
        own_key = len(source.key_columns) == 1 and is_source_key(
            list(ch.key.exprs), ch.key.columns, self.functions, 1, ch.key.window_at)
        keep = self.predicate(ch.prefilter, len(ch.key.columns)) if ch.prefilter else None
        run = self.runner(ctx, ch.target, emit)
        # the stream side of a stream-table join whose records are keyed as read and not prefiltered: a
        # record's block is built by the operator when it emits a row for it (``StreamTableJoin.block``) -
        # most bids of q20 find no auction of category 10 and never need theirs
        op = ctx.ops[ch.target.operator] if isinstance(ch.target, ToOperator) else None
        lazy = (sblock is not None and own_key and keep is None and not ch.table
                and isinstance(op, StreamTableJoin) and getattr(run, "__func__", None) is StreamTableJoin.on_left_run)
        if lazy:
            assert isinstance(op, StreamTableJoin) and sblock is not None
            part = ctx.partition
            op.block = lambda k, s, ts, o: sblock(k, s, ts, part, o)

        native = None if lazy else native_blocks(source, reader, read)
        key_batch = reader.key_serde.deserialize_batch

        def decode_native(batch: RecordBatch) -> list[tuple] | None:
            # the batch's blocks straight from the JSON in C (``serde.json_blocks``); None: the reader's way
            keys, kerr = key_batch(batch.keys)
            if not reader.columns_apply(keys, kerr):
                return None
            got = native(batch.values, keys if reader.n_keys else None, batch.timestamps,  # type: ignore[misc]
                         batch.partition, batch.offsets)
            if got is None:
                return None
            blocks, tss = got
            if not (own_key and set(map(type, keys)) == _TUPLE and None not in map(_FIRST, keys)):
                try:
                    keys = list(map(key_fn, blocks))
                except Exception:  # noqa: BLE001 - the reader's way logs the record
                    return None
            events = list(zip(tss, batch.offsets, zip(keys, blocks, batch.headers, strict=True), strict=True))
            return events if keep is None else _kept(events, keep)

        def decode(batch: RecordBatch) -> list[tuple]:
            # blocks and keys by C-level maps; a key function that fails on some record sends the batch
            # through the loop below, which logs that record and gives it a NULL key
            if native is not None and batch.offsets:
                events = decode_native(batch)
                if events is not None:
                    return events
            d = reader.decode(batch)
            rows = d.rows
            if not rows:
                return []
            keys = None
            if rows.__class__ is ColumnRows and rows.values is not None and rows.keys is not None:  # type: ignore[attr-defined]
                rkeys = rows.keys  # type: ignore[attr-defined]
                if own_key and set(map(type, rkeys)) == _TUPLE and None not in map(_FIRST, rkeys):
                    keys = rkeys
                    if lazy:  # the structs themselves (no tombstone, no prefilter on this path)
                        return list(zip(d.timestamps, d.offsets, zip(keys, rows.values, d.headers, strict=True),  # type: ignore[attr-defined]
                                        strict=True))
                blocks = list(map(sblock, rkeys, rows.values, d.timestamps, d.partitions, d.offsets))  # type: ignore[attr-defined, arg-type]
            else:
                blocks = list(map(block, rows_of(rows), d.timestamps, d.partitions, d.offsets))
            if keys is None:
                try:
                    keys = list(map(key_fn, blocks))
                except Exception:  # noqa: BLE001
                    return decode_each(d)
            values = [None if t else b for b, t in zip(blocks, d.tombstones, strict=True)] if any(d.tombstones) \
                else blocks
            events = list(zip(d.timestamps, d.offsets, zip(keys, values, d.headers, strict=True), strict=True))
            return events if keep is None else _kept(events, keep)

        def decode_each(d: Any) -> list[tuple]:
            out = []
            for i, row in enumerate(d.rows):
                ts = d.timestamps[i]
                b = block(row, ts, d.partitions[i], d.offsets[i])
                try:
                    key = key_fn(b)
                except Exception as e:  # noqa: BLE001 - a bad record never stops the query
                    plog.record_error(qid, f"Error computing the join key: {e}", row)
                    key = None  # goes on with a NULL key, as a re-keyed record does (repartition_emit)
                out.append((ts, d.offsets[i], (key, None if d.tombstones[i] else b, d.headers[i])))
            return out if keep is None else _kept(out, keep)

        channel = Channel(ch.topic, decode, lambda key, row, hdrs, ts: emit(key, row, None, ts, hdrs), ch.start_at,
                          run=run, first_on_ties=first)
        channel.merge = self.merge(ctx, ch.target)
        return channel

    @staticmethod
    def merge(ctx: TaskContext, target: Target) -> Any:
        """A channel's ``Channel.merge``: a stream-stream join's side takes the batch's runs of both sides in
        one call (``StreamStreamJoin.on_runs``)."""
        if isinstance(target, ToOperator) and target.handler in ("on_left", "on_right"):
            op = ctx.ops[target.operator]
            if isinstance(op, StreamStreamJoin):
                return op.on_runs, target.handler == "on_left"
        return None

    def runner(self, ctx: TaskContext, target: Target, emit: Emit) -> Run:
        """A channel's run handler: the operator's own (``<handler>_run``, e.g. ``on_left_run``) when it
        has one, a repartition's run of records re-keyed at once (``repartition_run``), else a loop over
        ``emit``."""
        if isinstance(target, ToOperator):
            run = getattr(ctx.ops[target.operator], f"{target.handler}_run", None)
            if run is not None:
                return run  # type: ignore[no-any-return]
        if isinstance(target, ToRepartition):
            return self.repartition_run(ctx, target, emit)

        def run_events(events: list[tuple], i: int, j: int) -> None:
            for ts, _, (key, row, hdrs) in events[i:j]:
                emit(key, row, None, ts, hdrs)

        return run_events

    def operator(self, ctx: TaskContext, op: Any, store: Callable[[str], Any]) -> Any:
        if isinstance(op, JoinOperator):
            emit, key_bytes = self.emitter(ctx, op.output), self.store_codec(op.codec)

            def kv(name: str) -> Any:
                return self.migration(ctx, store(op.stores[name]), op.codec)

            if op.flavor == "STREAM_STREAM":
                assert op.within is not None
                before, after, grace, _ = op.within
                retention = before + after + grace
                outer = OuterStore(kv("outer")) if "outer" in op.stores else None
                # no pair prefilter for results built straight into the task's rows (``ResultRows``): the
                # WHERE after the join decides them, and a pair it drops costs one tuple
                to_rows = isinstance(op.output, ToResult) and ctx.result_rows is not None
                pair = self.predicate(op.pair_prefilter, op.left_width + op.right_width) \
                    if op.pair_prefilter and not to_rows else None
                return StreamStreamJoin(op.kind, op.within, WindowStore(kv("this"), retention),
                                        WindowStore(kv("other"), retention), outer, emit,
                                        op.left_width, op.right_width, key_bytes, keep_pair=pair,
                                        exact_keys=exact_key_types(op.codec.types),
                                        emit_interval_ms=getattr(op, "emit_interval_ms", 1000))  # (older plans)
            if op.flavor == "STREAM_TABLE":
                keep = self.predicate(op.right_prefilter, op.right_width) if op.right_prefilter else None
                return StreamTableJoin(op.kind, TableStore(kv("table")), emit, op.right_width,
                                       key_bytes, keep_right=keep, exact_keys=exact_key_types(op.codec.types))
            return TableTableJoin(op.kind, TableStore(kv("left")), TableStore(kv("right")),
                                  emit, op.left_width, op.right_width, key_bytes)
        if isinstance(op, ForeignKeyLeft):
            left = self.migration(ctx, store(op.stores["left"]), op.left_codec)
            # the applied results share the left table's store (plan rules 6), unless a store of their own
            results = self.migration(ctx, store(op.stores["results"]), op.left_codec) \
                if "results" in op.stores else left
            return FkLeft(TableStore(left), results,
                          self.emitter(ctx, op.output), ctx.produce, inner=op.inner,
                          fk_of=self.logged_key_fn(ctx, op.fk_of),
                          fk_bytes=self.codec(op.fk_codec), left_key_bytes=self.store_codec(op.left_codec),
                          subscription_topic=op.subscription_topic, right_width=op.right_width,
                          partition=ctx.partition, fk_partition=self.router(op))
        assert isinstance(op, ForeignKeyRight)
        return FkRight(TableStore(self.migration(ctx, store(op.stores["right"]), op.right_codec)),
                       self.migration(ctx, store(op.stores["subscriptions"]), op.left_codec, op.right_codec),
                       ctx.produce, right_key_bytes=self.store_codec(op.right_codec),
                       left_key_bytes=self.store_codec(op.left_codec), response_key_bytes=self.codec(op.left_codec),
                       response_topic=op.response_topic)
