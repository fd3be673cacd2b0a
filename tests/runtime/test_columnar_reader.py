"""The reader's columnar path (``SourceReader.columnar``: JSON values as structs, DELIMITED values split into
columns, ``ColumnRows``) reads every
batch exactly as the row path does - the same rows, timestamps and processing-log entries - on every
primitive type, NULLs, missing fields, string-to-number coercion, wrong types, mixed-case names, bad JSON,
tombstones and null keys; and a stage fed columns writes what it writes from rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from ksqlpy.engine import Engine
from ksqlpy.log.base import RecordBatch
from ksqlpy.plan.column_rows import ColumnRows
from ksqlpy.runtime.processing_log import ProcessingLog
from ksqlpy.runtime.reader import DecodedBatch, SourceReader

COLUMNS = ("B BOOLEAN, I INT, L BIGINT, D DOUBLE, S STRING, DT DATE, TM TIME, TS TIMESTAMP, "
           "DEC DECIMAL(4, 2)")
GOOD = {"B": True, "I": 7, "L": 2**40, "D": 1.5, "S": "x", "DT": 19000, "TM": 1000, "TS": 1_700_000_000_000}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(str(tmp_path_factory.mktemp("columnar")), {"auto.offset.reset": "earliest"})
    fast = COLUMNS.rsplit(", DEC", 1)[0]  # the types the struct decoder reads
    e.execute(f"CREATE STREAM fast (K STRING KEY, {fast}) WITH (kafka_topic='fast', key_format='KAFKA', "
              "value_format='JSON', partitions=1);")
    e.execute(f"CREATE STREAM mixed (K STRING KEY, {COLUMNS}) WITH (kafka_topic='mixed', key_format='KAFKA', "
              "value_format='JSON', partitions=1);")
    e.execute("CREATE STREAM keyless (X DOUBLE, Y DOUBLE) WITH (kafka_topic='keyless', value_format='JSON', "
              "partitions=1);")
    e.execute("CREATE STREAM timed (K BIGINT KEY, T BIGINT, N INT) WITH (kafka_topic='timed', key_format='KAFKA', "
              "value_format='JSON', partitions=1, timestamp='T');")
    e.execute(f"CREATE STREAM dfast (K STRING KEY, {COLUMNS}, BS BYTES) WITH (kafka_topic='dfast', "
              "key_format='KAFKA', value_format='DELIMITED', partitions=1);")
    e.execute("CREATE STREAM dtab (K STRING KEY, I INT, S STRING) WITH (kafka_topic='dtab', key_format='KAFKA', "
              "value_format='DELIMITED', value_delimiter='TAB', partitions=1);")
    yield e
    e.close()


def _reader(engine: Engine, name: str, columnar: bool, entries: list[dict[str, Any]]) -> SourceReader:
    source = engine.catalog.source(name.upper())
    assert source is not None
    plog = ProcessingLog(sink=entries.append)
    reader = SourceReader(source, engine.key_serde(source), engine.value_serde(source), plog, "Q",
                          keep_tombstones=True)
    reader.columnar = columnar
    return reader


def _batch(keys: list[bytes | None], values: list[Any]) -> RecordBatch:
    data = [v if v is None or isinstance(v, bytes) else orjson.dumps(v) for v in values]
    n = len(data)
    return RecordBatch("t", 0, list(range(n)), keys, data, [100 + i for i in range(n)], [None] * n)


def _read(engine: Engine, name: str, keys: list[bytes | None], values: list[Any],
          ) -> tuple[DecodedBatch, tuple, tuple]:
    """(the columnar reader's batch, then what each reader gave as plain data)."""
    got: list[tuple] = []
    first: DecodedBatch | None = None
    for columnar in (True, False):
        entries: list[dict[str, Any]] = []
        # a fresh reader each time: the struct decoder's back-off after a failed batch is per serde
        d = _reader(engine, name, columnar, entries).decode(_batch(keys, values))
        if columnar:
            first = d
        got.append((list(d.rows), list(d.timestamps), list(d.offsets), list(d.tombstones), list(d.null_keys),
                    [e["message"] for e in entries]))
    assert first is not None
    return first, got[0], got[1]


def _same(engine: Engine, name: str, values: list[Any], keys: list[bytes | None] | None = None,
          columnar: bool | None = None) -> tuple:
    keys = keys if keys is not None else [b"k%d" % i for i in range(len(values))]
    d, by_columns, by_rows = _read(engine, name, keys, values)
    assert by_columns == by_rows
    if columnar is not None:
        assert isinstance(d.rows, ColumnRows) is columnar
    return by_rows


def test_plain_objects_of_every_primitive_type_are_read_as_columns(engine: Engine) -> None:
    values = [GOOD, {**GOOD, "D": 3, "I": -2**31, "L": -1}, {k: None for k in GOOD}, {}, {"B": False}]
    rows, *_ = _same(engine, "fast", values, columnar=True)
    assert rows[0] == ("k0", True, 7, 2**40, 1.5, "x", 19000, 1000, 1_700_000_000_000)
    assert rows[1][4] == 3.0 and isinstance(rows[1][4], float)  # an integer for a DOUBLE is its float
    assert rows[2] == ("k2",) + (None,) * 8  # null and missing fields are NULL alike
    assert rows[3] == ("k3",) + (None,) * 8
    assert rows[4] == ("k4", False) + (None,) * 7


def test_lower_case_names_are_read_as_columns(engine: Engine) -> None:
    rows, *_ = _same(engine, "fast", [{k.lower(): v for k, v in GOOD.items()}] * 3, columnar=True)
    assert rows[0][1:] == tuple(GOOD.values())


@pytest.mark.parametrize("odd", [
    {"b": True, "I": 3},  # mixed-case names in one object
    {"Dt": 5},  # a name in neither spelling
    {"I": "5", "D": "2.5", "L": "9"},  # strings coerced to numbers
    {"I": 5.0},  # a whole double for an INT
    {"I": 1.5},  # a fraction for an INT (coerced)
    {"TS": "2020"},  # a string for a TIMESTAMP
    {"I": 2**31},  # out of INT's range
    {"B": "true"},  # a string for a BOOLEAN
    {"S": 5},  # a number for a STRING
    {"S": {"a": 1}},  # an object for a STRING (read as its JSON text)
    {"X": 1},  # an extra field
    {"TM": 86_400_001},  # a TIME beyond a day
])
def test_a_batch_the_struct_decoder_cannot_prove_is_read_as_rows(engine: Engine, odd: dict) -> None:
    _same(engine, "fast", [GOOD, odd, GOOD], columnar=False)


@pytest.mark.parametrize("bad", [
    b"{not json", b"[1, 2]", b"5", b'"text"', b"", orjson.dumps({"I": "x"}), orjson.dumps({"B": 1}),
    orjson.dumps({"D": [1]}),
])
def test_a_bad_record_is_dropped_and_logged_alone(engine: Engine, bad: bytes) -> None:
    rows, _, offsets, _, _, messages = _same(engine, "fast", [GOOD, bad, GOOD], columnar=False)
    assert offsets == [0, 2] and len(rows) == 2
    assert len(messages) == 1


def test_tombstones_and_null_keys_are_read_as_rows(engine: Engine) -> None:
    _same(engine, "fast", [GOOD, None, GOOD], columnar=False)
    _, _, _, _, null_keys, _ = _same(engine, "fast", [GOOD, GOOD], keys=[b"a", None], columnar=False)
    assert null_keys == [1]


def test_bad_utf8_keys_read_as_replacement_characters_either_way(engine: Engine) -> None:
    rows, *_ = _same(engine, "fast", [GOOD, GOOD], keys=[b"\xff", b"ok"], columnar=True)
    assert rows[0][0] == "\ufffd"


def test_a_type_the_struct_decoder_does_not_read_keeps_the_row_path(engine: Engine) -> None:
    _same(engine, "mixed", [{**GOOD, "DEC": 1.25}, GOOD], columnar=False)


def test_a_source_without_key_columns(engine: Engine) -> None:
    rows, *_ = _same(engine, "keyless", [{"X": 1.5, "Y": 2}, {"X": None}], keys=[None, None], columnar=True)
    assert rows == [(1.5, 2.0), (None, None)]


def test_timestamps_from_a_column(engine: Engine) -> None:
    keys = [(1).to_bytes(8, "big")] * 3
    _, tss, *_ = _same(engine, "timed", [{"T": 5, "N": 1}, {"T": 6}, {"T": 7, "N": 3}], keys=keys, columnar=True)
    assert tss == [5, 6, 7]
    for bad in ({"T": -1, "N": 1}, {"N": 1}, {"T": None}):  # an invalid timestamp: the row path logs or skips
        _, _, offsets, *_ = _same(engine, "timed", [{"T": 5}, bad, {"T": 7}], keys=keys, columnar=False)
        assert offsets == [0, 2]


def test_column_rows_read_as_rows_and_columns() -> None:
    import msgspec

    S = msgspec.defstruct("S", [("f0", int), ("f1", str)])
    rows = ColumnRows([("a",), ("b",)], 1, [S(1, "x"), S(2, "y")])
    assert rows.column(2) == ["x", "y"] and rows.column(0) == ["a", "b"]
    assert len(rows) == 2 and rows[1] == ("b", 2, "y") and list(rows) == [("a", 1, "x"), ("b", 2, "y")]
    assert rows[0:1] == [("a", 1, "x")] and rows.column(1) == [1, 2]  # from the rows once built
    fresh = ColumnRows([("a",), ("b",)], 1, [S(1, "x"), S(2, "y")])
    assert list(fresh.group((1, 2))) == [(1, "x"), (2, "y")]  # every value column: the structs as tuples
    assert list(fresh.group((2, 0))) == [("x", "a"), ("y", "b")] and list(fresh.group((1,))) == [(1,), (2,)]
    assert list(rows.group((2, 0))) == [("x", "a"), ("y", "b")] and list(rows.group((1,))) == [(1,), (2,)]
    from ksqlpy.plan.column_rows import column_of

    assert column_of(fresh, 1) == [1, 2] and column_of(fresh, 1) is not fresh.column(1)  # a copy to hand out
    split = ColumnRows(None, 0, value_columns=[[1, 2], ["x", "y"]])
    assert len(split) == 2 and list(split.group((0, 1))) == [(1, "x"), (2, "y")] and split.column(1) == ["x", "y"]
    assert split.materialize() == [(1, "x"), (2, "y")]
    keys_as_lists = ColumnRows([["a"], ["b"]], 1, [S(1, "x"), S(2, "y")])  # type: ignore[list-item]
    assert keys_as_lists.materialize() == [("a", 1, "x"), ("b", 2, "y")]


# ------------------------------------------------------------------------------ a query fed columns

FUNCTIONS = '''
import numpy as np

from ksqlpy.udf import udf


@udf("VNEG", vectorized=True)
def vneg(x: float) -> float:  # changes the list it is given
    for i, v in enumerate(x):
        x[i] = None if v is None else -v
    return x


@udf("VMUL", vectorized="numpy")
def vmul(x: float, y: float) -> float:
    with np.errstate(over="ignore"):
        return x * y
'''


@pytest.mark.parametrize(("select", "by_columns"), [
    ("K, X", True), ("VMUL(X, Y) AS V, K", True), ("K, ROWTIME AS R, Y, X", True), ("*", True),
    ("K, X, VNEG(X) AS N", True),
    ("K, X, Y AS Z, AS_VALUE(K) AS K2", False), ("K, VMUL(X, Y) AS V, X + 1 AS W", False),  # loops
])
@pytest.mark.parametrize("fmt", ["JSON", "DELIMITED"])
def test_a_stage_reads_columns_as_it_reads_rows(tmp_path: Path, select: str, by_columns: bool, fmt: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "f.py").write_text(FUNCTIONS)
    values = [{"X": 1.5, "Y": 2}, {"X": None, "Y": 1.0}, {"Y": 3.0}, {"X": -2.5, "Y": 4.0}]
    lower = [{"x": 2.0, "y": 4.0}, {"x": 1e300, "y": 1e10}]
    # a JSON -0.0 reads as 0.0 (a BigDecimal has no negative zero): the columnar decoder leaves that batch to rows
    signed_zero = [{"X": -0.0, "Y": 4.0}, {"X": 1.0, "Y": -0.0}]
    batches = [values, values[:1] + [b"{bad"] + values[1:], [{"X": "7", "Y": 1.0}], lower, values + lower,
               signed_zero]
    outs = []
    read_as = []
    decode_columns = SourceReader._decode_columns

    def spy(self: SourceReader, batch: RecordBatch, keys: list) -> DecodedBatch | None:
        d = decode_columns(self, batch, keys) if columnar else None
        read_as.append((columnar, d is not None))
        return d

    monkeypatch.setattr(SourceReader, "_decode_columns", spy)
    for columnar in (True, False):
        engine = Engine(str(tmp_path / f"d{columnar}"), {"auto.offset.reset": "earliest",
                                                         "ksql.extension.dir": str(ext)})
        try:
            engine.execute("CREATE STREAM S (K STRING KEY, X DOUBLE, Y DOUBLE) WITH (kafka_topic='s', "
                           f"key_format='KAFKA', value_format='{fmt}', partitions=1);")
            engine.execute(f"CREATE STREAM O AS SELECT {select} FROM S;")
            for batch in batches:
                with engine.log.transaction() as tx:
                    data = [v if isinstance(v, bytes) else _encode(fmt, v) for v in batch]
                    tx.produce_batch("s", 0, [b"k%d" % i for i in range(len(data))], data, [9] * len(data))
                engine.drain()  # a batch each
            out = engine.log.fetch("O", 0, 0, 100)
            # the bad record, and the function's failures (a NULL for a NumPy float64 parameter)
            outs.append((list(zip(out.keys, out.values, out.timestamps, strict=True)),
                         [e["message"] for e in engine.plog.entries]))
        finally:
            engine.close()
    assert outs[0] == outs[1]
    # the first run read batches as columns if its stage has no per-record loop, the second never
    assert ((True, True) in read_as) is by_columns
    assert (False, True) not in read_as
    assert len(outs[0][0]) == sum(map(len, batches)) - 1 and outs[0][1]


def _encode(fmt: str, value: dict[str, Any]) -> bytes:
    if fmt == "JSON":
        return orjson.dumps(value)
    x, y = (next((v for k, v in value.items() if k.upper() == name), None) for name in ("X", "Y"))
    return ",".join("" if v is None else str(v) for v in (x, y)).encode()


# ------------------------------------------------------------------------------ DELIMITED

DGOOD = b"true,7,1099511627776,1.5,x,19000,1000,1700000000000,1.25,AAE="


def test_delimited_batches_of_every_type_are_read_as_columns(engine: Engine) -> None:
    values = [DGOOD, b"false,-7,-1,2,y,0,0,0,-1.5,", b",,,,,,,,,", "TRUE,0012,9,1e3,\u00e9 a,1,2,3,0.1,AA==".encode()]
    rows, *_ = _same(engine, "dfast", values, columnar=True)
    assert rows[0][1:5] == (True, 7, 2**40, 1.5) and rows[2] == ("k2",) + (None,) * 10
    assert rows[3][2] == 12 and rows[3][4] == 1000.0


def test_delimited_unicode_digits_and_long_numbers_read_as_the_row_reader_reads_them(engine: Engine) -> None:
    values = ["true,\u0661\u0662,99999999999999999,Infinity,s,1,1,1,1,".encode(),
              b"true,2147483647,9223372036854775807,-0.0,s,1,1,1,1,"]
    _same(engine, "dfast", values, columnar=True)


@pytest.mark.parametrize("odd", [
    b'true,7,1,1.5,"a,b",1,1,1,1,',  # a quoted field
    b"true,7,1,1.5,x,1,1,1,1",  # a field short
    b"true,7,1,1.5,x,1,1,1,1,,",  # a field too many
    b"true,x,1,1.5,x,1,1,1,1,",  # not a number
    b"true,2147483648,1,1.5,x,1,1,1,1,",  # out of INT's range
    b"true,7,1,1.5,x,1,1,1,123.456,",  # a DECIMAL that does not fit
    b"true,7,1,1.5,x,1,1,1,1,!!",  # bad base64
    b"\xff,7,1,1.5,x,1,1,1,1,",  # not UTF-8
    b"true,7,1,1.5,x\r,1,1,1,1,",  # a line break
    None,  # a tombstone
])
def test_a_delimited_batch_the_column_reader_cannot_prove_is_read_as_rows(engine: Engine, odd: bytes | None) -> None:
    _same(engine, "dfast", [DGOOD, odd, DGOOD], columnar=False)


def test_delimited_with_another_delimiter(engine: Engine) -> None:
    rows, *_ = _same(engine, "dtab", [b"1\ta,b", b"\t", b"-3\tz"], columnar=True)
    assert rows == [("k0", 1, "a,b"), ("k1", None, None), ("k2", -3, "z")]
    _same(engine, "dtab", [b"1,a", b"2\tb"], columnar=False)
