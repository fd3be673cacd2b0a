"""``EmbeddedTransaction.produce_batch``'s plain case (timestamps given, or all stamped at the call) by the C framing (``embedded_prepare.native_prepare``:
packed and dealt by Kafka's partitioner in C, put as a prepared batch) stores exactly what the Python packing
stores: the same records at the same offsets of the same partitions, and the same last record per topic -
over random sequences of plain and not-plain batches, single records, fixed and key-hashed partitions, one
and several chunks, in one transaction and across several."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from ksqlpy.log import EmbeddedLog, ProducerRecord, embedded_txn
from ksqlpy.log.framing import NATIVE
from ksqlpy.log.record_codec import CHUNK_MAX_RECORDS

pytestmark = pytest.mark.skipif(NATIVE is None, reason="the _framing extension is not built")


def _all(log: EmbeddedLog, topic: str) -> list[list[tuple]]:
    out = []
    for p in range(log.describe_topic(topic).partitions):  # type: ignore[union-attr]
        b = log.fetch(topic, p, 0, 1_000_000)
        out.append(list(zip(b.offsets, b.keys, b.values, b.timestamps, b.headers, strict=True)))
    return out


def _ops(rnd: random.Random) -> list[list[tuple]]:
    """Transactions of operations: ("batch", topic, partition, keys, values, timestamps, headers) and
    ("one", topic, key, value, ts)."""
    txs = []
    for _ in range(6):
        ops: list[tuple] = []
        for _ in range(rnd.randrange(1, 6)):
            topic = rnd.choice(("t1", "t4"))
            if rnd.random() < 0.25:
                ops.append(("one", topic, rnd.choice((None, b"k%d" % rnd.randrange(50))), b"v", rnd.randrange(1, 99)))
                continue
            n = rnd.choice((1, 3, 40, CHUNK_MAX_RECORDS + 5))
            keys: list[Any] = [b"k%d" % rnd.randrange(50) for _ in range(n)]
            values: list[Any] = [bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 30))) for _ in range(n)]
            tss: Any = [rnd.randrange(-5, 1 << 45) for _ in range(n)]
            headers = None
            kind = rnd.random()
            if kind < 0.1:
                keys[rnd.randrange(n)] = None
            elif kind < 0.2:
                headers = [None] * n
                headers[rnd.randrange(n)] = [("h", b"1")]
            elif kind < 0.25:
                keys = [b"same"] * n  # every record in one partition
            elif kind < 0.4:
                tss = None  # stamped at the call (a store's changelog)
            elif kind < 0.45:
                values[rnd.randrange(n)] = None  # a tombstone
            partition = rnd.choice((None, None, 0)) if topic == "t4" else rnd.choice((None, 0))
            ops.append(("batch", topic, partition, keys, values, tss, headers))
        txs.append(ops)
    return txs


def _run(log: EmbeddedLog, txs: list[list[tuple]]) -> list:
    lasts = []
    for ops in txs:
        with log.transaction() as tx:
            for op in ops:
                if op[0] == "one":
                    tx.produce(ProducerRecord(op[1], op[2], op[3], op[4]))
                else:
                    tx.produce_batch(*op[1:])
        lasts.append(dict(tx.last))
    return lasts


@pytest.mark.parametrize("seed", range(8))
def test_the_c_framing_stores_what_the_python_packing_stores(tmp_path: Path, seed: int,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    txs = _ops(random.Random(seed))
    logs = []
    for name in ("c", "py"):
        lg = EmbeddedLog(tmp_path / name)
        lg.create_topic("t1", 1)
        lg.create_topic("t4", 4)
        logs.append(lg)
    calls = []
    real = embedded_txn.native_prepare

    def spy(*args: Any) -> Any:
        r = real(*args)
        calls.append(r is not None)
        return r

    monkeypatch.setattr(embedded_txn, "_time", lambda: 1_700_000_000.123)
    monkeypatch.setattr(embedded_txn, "native_prepare", spy)
    last_c = _run(logs[0], txs)
    monkeypatch.setattr(embedded_txn, "native_prepare", lambda *a: None)
    last_py = _run(logs[1], txs)
    assert any(calls)
    assert last_c == last_py
    for t in ("t1", "t4"):
        assert _all(logs[0], t) == _all(logs[1], t)
    for t in last_c[-1]:
        assert logs[0].last_written(t) == logs[1].last_written(t)
    for lg in logs:
        lg.close()


def test_a_batch_the_c_framing_refuses_is_packed_in_python(tmp_path: Path) -> None:
    """A timestamp past 64 bits: the C framing refuses, the Python packing raises what it raises."""
    lg = EmbeddedLog(tmp_path / "log")
    lg.create_topic("t", 2)
    with pytest.raises(Exception) as c_err, lg.transaction() as tx:
        tx.produce_batch("t", None, [b"k"], [b"v"], [1 << 70])
    assert c_err.type.__name__ in ("error", "OverflowError")  # struct.error, as before
    with lg.transaction() as tx:
        tx.produce_batch("t", None, [b"k", b"j"], [b"v", b"w"], [1, 2])
    assert sorted(v for part in _all(lg, "t") for _, _, v, _, _ in part) == [b"v", b"w"]
    lg.close()


def test_timestamps_of_every_width_are_framed_exactly(tmp_path: Path) -> None:
    """The C framing reads a timestamp of one, two or three 30-bit digits, either sign, up to the 64-bit bounds
    (by ``PyLong_AsLongLongAndOverflow``; CPython 3.11's ``PyLong_AsLongLong`` took every int of two or more
    digits through ``_PyLong_AsByteArray``): what it stores is what was given; one past 64 bits is refused
    as before."""
    tss = [0, 1, -1, (1 << 30) - 1, 1 << 30, -(1 << 30), 1_700_000_000_000, -1_700_000_000_000, 1 << 60,
           -(1 << 60) - 7, (1 << 63) - 1, -(1 << 63)]
    lg = EmbeddedLog(tmp_path / "log")
    lg.create_topic("t", 1)
    with lg.transaction() as tx:
        tx.produce_batch("t", None, [b"k%d" % i for i in range(len(tss))], [b"v"] * len(tss), tss)
    assert [ts for _, _, _, ts, _ in _all(lg, "t")[0]] == tss
    for bad in (1 << 63, -(1 << 63) - 1):
        with pytest.raises(Exception) as err, lg.transaction() as tx:
            tx.produce_batch("t", None, [b"k"], [b"v"], [bad])
        assert err.type.__name__ in ("error", "OverflowError")
    lg.close()
