"""Aggregate functions: results, NULL rules, retraction (undo) and session merges, as ksqlDB behaves."""

from __future__ import annotations

import math
import pickle
import re
from decimal import Decimal as D
from typing import Any

import pytest

from ksqlpy.errors import KsqlTypeError
from ksqlpy.functions.aggregates import ResolvedUdaf, register
from ksqlpy.functions.registry import FunctionRegistry
from ksqlpy.functions.signatures import FunctionError
from ksqlpy.types import (
    BIGINT,
    BOOLEAN,
    BYTES,
    DATE,
    DOUBLE,
    INTEGER,
    STRING,
    Array,
    Decimal,
    Map,
    SqlType,
    Struct,
)


@pytest.fixture(scope="module")
def registry() -> FunctionRegistry:
    r = FunctionRegistry()
    register(r)
    return r


def agg(
    registry: FunctionRegistry,
    name: str,
    *types: SqlType,
    literals: list[Any] | None = None,
    config: dict[str, Any] | None = None,
) -> ResolvedUdaf:
    res = registry.aggregates[name].resolve(list(types), literals or [], config or {})
    assert isinstance(res, ResolvedUdaf)
    return res


def run(res: ResolvedUdaf, *rows: Any) -> list[Any]:
    """Feed rows (a value, or a tuple for several columns) and collect the result after each one.

    Every accumulator goes through pickle, as it would through a state store."""
    acc = res.init()
    out = []
    for row in rows:
        acc = pickle.loads(pickle.dumps(res.add(acc, *(row if isinstance(row, tuple) else (row,)))))
        out.append(res.result(acc))
    return out


def feed(res: ResolvedUdaf, *rows: Any) -> Any:
    acc = res.init()
    for row in rows:
        acc = res.add(acc, *(row if isinstance(row, tuple) else (row,)))
    return acc


class TestCount:
    def test_count_column_skips_nulls(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT", STRING)
        assert res.return_type == BIGINT
        assert run(res, "a", None, "b") == [1, 1, 2]

    def test_count_rows(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT")
        acc = res.init()
        for _ in range(3):
            acc = res.add(acc)
        assert res.result(acc) == 3
        assert res.undo is not None and res.result(res.undo(acc)) == 2

    def test_count_back_to_zero_over_a_table(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT", BIGINT)
        assert res.undo is not None
        acc = feed(res, 3, 3)
        acc = res.undo(res.undo(acc, 3), 3)
        assert res.result(acc) == 0

    def test_merge(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT", INTEGER)
        assert res.merge is not None and res.merge(feed(res, 1, 2), feed(res, 3)) == 3


class TestSum:
    def test_types_and_nulls(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "SUM", INTEGER), 0, 100, None) == [0, 100, 100]
        assert run(agg(registry, "SUM", BIGINT), 2147483648, 100) == [2147483648, 2147483748]
        assert run(agg(registry, "SUM", DOUBLE), 5.4, 100.1) == [5.4, 105.5]
        res = agg(registry, "SUM", DOUBLE)
        assert res.result(res.init()) == 0.0 and isinstance(res.result(res.init()), float)

    def test_java_integer_overflow_wraps(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "SUM", INTEGER), 2**31 - 1, 1) == [2**31 - 1, -(2**31)]
        assert run(agg(registry, "SUM", BIGINT), 2**63 - 1, 2) == [2**63 - 1, -(2**63) + 1]

    def test_decimal_keeps_type_and_overflows(self, registry: FunctionRegistry) -> None:
        t = Decimal(4, 1)
        res = agg(registry, "SUM", t)
        assert res.return_type == t
        assert run(res, D("500.9"), D("300.8")) == [D("500.9"), D("801.7")]
        with pytest.raises(FunctionError, match="Numeric field overflow"):
            feed(res, D("500.9"), D("300.8"), D("400.8"))

    def test_decimal_high_precision_is_exact(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "SUM", Decimal(38, 2))
        big = D("123456789012345678901234567890.12")
        assert res.result(feed(res, big, D("0.01"))) == D("123456789012345678901234567890.13")

    def test_undo_over_table(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "SUM", INTEGER)
        assert res.undo is not None
        acc = feed(res, 5, 20)
        assert res.result(res.undo(acc, 20)) == 5
        assert res.result(res.undo(acc, None)) == 25

    def test_rejects_non_numbers(self, registry: FunctionRegistry) -> None:
        with pytest.raises(KsqlTypeError, match=r"Function 'SUM' does not accept parameters \(STRING\)"):
            agg(registry, "SUM", STRING)

    def test_sum_list(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "SUM_LIST", Array(DOUBLE))
        assert res.return_type == DOUBLE
        assert run(res, [1.0, 1.0], [2.0, 2.0], [922337203685.0, 1.0], [1.0, 1.0, None], None) == [
            2.0, 6.0, 922337203692.0, 922337203694.0, 922337203694.0,
        ]  # fmt: skip
        ints = agg(registry, "SUM_LIST", Array(INTEGER))
        assert ints.return_type == INTEGER and run(ints, [100, 100, None]) == [200]
        assert ints.undo is not None and ints.result(ints.undo(feed(ints, [1, 2], [3]), [3])) == 3


class TestAvg:
    def test_int_average(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "AVG", INTEGER)
        assert res.return_type == DOUBLE
        assert run(res, 1, 2, 2, None) == [1.0, 1.5, 1.6666666666666667, 1.6666666666666667]

    def test_long_average_converts_sum_to_double(self, registry: FunctionRegistry) -> None:
        got = run(agg(registry, "AVG", BIGINT), -1, 9223372036854775807, 1)
        assert got == [-1.0, 4.611686018427388e18, 3.0744573456182584e18]

    def test_double_average(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "AVG", DOUBLE), 2.3, -200000.6, 0.0) == [2.3, -99999.15000000001, -66666.1]

    def test_empty_is_zero(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "AVG", INTEGER)
        assert run(res, None) == [0.0]

    def test_table_retraction(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "AVG", INTEGER)
        assert res.undo is not None
        acc = feed(res, 1, 2)
        acc = res.undo(acc, 1)
        assert res.result(acc) == 2.0
        assert res.result(res.add(acc, 4)) == 3.0

    def test_decimal_input_averages_as_double(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "AVG", Decimal(4, 2)), D("1.50"), D("2.50")) == [1.5, 2.0]

    def test_intermediate_type_is_a_struct(self, registry: FunctionRegistry) -> None:
        assert isinstance(agg(registry, "AVG", INTEGER).intermediate_type, Struct)
        assert agg(registry, "COUNT", INTEGER).intermediate_type == BIGINT


class TestMinMax:
    @pytest.mark.parametrize(
        "t, values, expected",
        [(INTEGER, [None, -2147483647, 5, None, 2], [None, -2147483647, 5, 5, 5]),
         (DOUBLE, [-1000000.123, 0.0, 5.1], [-1000000.123, 0.0, 5.1]),
         (Decimal(4, 2), [D("-10.12"), D("0.00"), D("5.10")], [D("-10.12"), D("0.00"), D("5.10")]),
         (STRING, ["B", "A", "F"], ["B", "B", "F"]),
         (DATE, [-100, 5, 1], [-100, 5, 5])],
    )  # fmt: skip
    def test_max(
        self, registry: FunctionRegistry, t: SqlType, values: list[Any], expected: list[Any]
    ) -> None:
        res = agg(registry, "MAX", t)
        assert res.return_type == t
        assert run(res, *values) == expected

    def test_min(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "MIN", BIGINT), None, 7, 3, 9) == [None, 7, 3, 3]

    def test_bytes_compare_as_signed(self, registry: FunctionRegistry) -> None:
        # Java ByteBuffer order: 0x80 is -128, below 0x01
        assert run(agg(registry, "MAX", BYTES), b"\x80", b"\x01") == [b"\x80", b"\x01"]
        assert run(agg(registry, "MIN", BYTES), b"\x01", b"\xff", b"\x80") == [b"\x01", b"\xff", b"\x80"]

    def test_no_table_support_but_session_merge(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "MAX", INTEGER)
        assert res.undo is None
        assert res.merge is not None and res.merge(None, 3) == 3 and res.merge(4, 3) == 4

    def test_rejects_unordered_types(self, registry: FunctionRegistry) -> None:
        with pytest.raises(KsqlTypeError):
            agg(registry, "MIN", BOOLEAN)
        with pytest.raises(KsqlTypeError):
            agg(registry, "MAX", Array(INTEGER))


class TestCollections:
    def test_collect_list_keeps_nulls_and_order(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_LIST", INTEGER)
        assert res.return_type == Array(INTEGER)
        assert run(res, 1, None, 1) == [[1], [1, None], [1, None, 1]]

    def test_collect_list_limit_and_undo(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_LIST", INTEGER, config={"ksql.functions.collect_list.limit": "2"})
        assert run(res, 1, 2, 3) == [[1], [1, 2], [1, 2]]
        assert res.undo is not None and res.result(res.undo(feed(res, 1, 2), 1)) == [2]

    @pytest.mark.parametrize(("value", "kept"), [
        (None, 5), (-1, 5), ("-7", 5), (-(2**31), 5), (0, 0), ("0", 0), (3, 3), ("3", 3),
        (2**32 + 2, 2),  # a Java Number's intValue() wraps to 32 bits
    ])
    @pytest.mark.parametrize("name", ["COLLECT_LIST", "COLLECT_SET"])
    def test_collect_limit_rule(self, registry: FunctionRegistry, name: str, value: Any, kept: int) -> None:
        """Unset or negative: no limit (ksqlDB's configure sets Integer.MAX_VALUE); 0: always empty."""
        config = {} if value is None else {f"ksql.functions.{name.lower()}.limit": value}
        res = agg(registry, name, INTEGER, config=config)
        assert run(res, 1, 2, 3, 4, 5)[-1] == [1, 2, 3, 4, 5][:kept]
        assert res.merge is not None and res.result(res.merge(feed(res, 1, 2), feed(res, 3, 4, 5))) == \
            [1, 2, 3, 4, 5][:kept]

    def test_collect_limit_of_text_outside_int_is_refused(self, registry: FunctionRegistry) -> None:
        with pytest.raises(KsqlTypeError, match="collect_list.limit"):
            agg(registry, "COLLECT_LIST", INTEGER, config={"ksql.functions.collect_list.limit": str(2**31)})

    def test_collect_set_dedupes_structures(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_SET", Struct((("A", STRING), ("B", BIGINT))))
        rows = [{"A": "x", "B": 1}, {"B": 1, "A": "x"}, {"A": "y", "B": 2}, None, None]
        assert run(res, *rows)[-1] == [{"A": "x", "B": 1}, {"A": "y", "B": 2}, None]

    def test_collect_set_limit_and_no_undo(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_SET", INTEGER, config={"ksql.functions.collect_set.limit": 1})
        assert run(res, 0, 100) == [[0], [0]]
        # a set cannot tell which duplicate a retraction removes: ksqlDB's COLLECT_SET is stream-only
        assert agg(registry, "COLLECT_SET", STRING).undo is None

    def test_result_does_not_alias_state(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_LIST", INTEGER)
        acc = feed(res, 1)
        emitted = res.result(acc)
        res.add(acc, 2)
        assert emitted == [1]

    def test_histogram_counts_and_retracts(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "HISTOGRAM", STRING)
        assert res.return_type == Map(STRING, BIGINT)
        assert run(res, "baz", "baz", "foo", None) == [{"baz": 1}, {"baz": 2}, {"baz": 2, "foo": 1}] * 1 + [
            {"baz": 2, "foo": 1}
        ]
        assert res.undo is not None
        acc = res.undo(feed(res, "carol", "dave", "bob"), "bob")
        assert res.result(acc) == {"carol": 1, "dave": 1}
        assert res.merge is not None and res.merge(feed(res, "a"), feed(res, "a", "b")) == {"a": 2, "b": 1}


class TestTopK:
    def test_plain_values_largest_first(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPK", INTEGER, literals=[3])
        assert res.return_type == Array(INTEGER)
        assert run(res, 0, 100, 99, 7, 100, None) == [
            [0], [100, 0], [100, 99, 0], [100, 99, 7], [100, 100, 99], [100, 100, 99],
        ]  # fmt: skip

    def test_strings(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "TOPK", STRING, literals=[3]), "a", "b", "c", "b", "d")[-1] == [
            "d",
            "c",
            "b",
        ]

    def test_other_columns_make_structs_and_ties_keep_arrival_order(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPK", INTEGER, STRING, literals=[3])
        assert res.return_type == Array(Struct((("sort_col", INTEGER), ("col0", STRING))))
        got = run(res, (0, "zero"), (100, "one"), (99, "two"), (None, "three"), (100, None))
        assert got[3] == got[2]  # NULL sort values are ignored
        assert got[-1] == [
            {"sort_col": 100, "col0": "one"},
            {"sort_col": 100, "col0": None},
            {"sort_col": 99, "col0": "two"},
        ]

    def test_full_list_ignores_ties_with_the_smallest(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPK", BIGINT, STRING, literals=[2])
        got = run(res, (5, "a"), (1, "b"), (1, "c"))
        assert got[-1] == [{"sort_col": 5, "col0": "a"}, {"sort_col": 1, "col0": "b"}]

    def test_k_is_a_trailing_literal(self, registry: FunctionRegistry) -> None:
        fn = registry.aggregates["TOPK"]
        assert fn.literal_arg_count(2) == 1 and fn.literal_arg_count(4) == 1
        with pytest.raises(KsqlTypeError):
            agg(registry, "TOPK", INTEGER, literals=["3"])

    @pytest.mark.parametrize("name", ["TOPK", "TOPKDISTINCT"])
    def test_k_below_one_is_accepted_and_runs_ksqldbs_algorithm(self, registry: FunctionRegistry, name: str) -> None:
        # no range check (TopkKudaf, from memory): k < 0 never fills the list, k = 0 fails at the first value
        res = agg(registry, name, INTEGER, literals=[-1])
        assert res.result(feed(res, 3, None, 9, 3)) == ([9, 3, 3] if name == "TOPK" else [9, 3])
        with pytest.raises(FunctionError, match="Illegal Capacity: -1"):
            res.merge(feed(res, 1), feed(res, 2))
        zero = agg(registry, name, INTEGER, literals=[0])
        assert zero.result(feed(zero, None)) == []
        assert zero.merge(feed(zero), feed(zero)) == []
        with pytest.raises(FunctionError, match="Index -1 out of bounds for length 0"):
            feed(zero, None, 4)

    def test_merge(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPK", INTEGER, literals=[2])
        assert res.undo is None and res.merge is not None
        assert res.result(res.merge(feed(res, 1, 5), feed(res, 3))) == [5, 3]

    @pytest.mark.parametrize("name", ["TOPK", "TOPKDISTINCT"])
    def test_merge_keeps_lists_shorter_than_k(self, registry: FunctionRegistry, name: str) -> None:
        # a session's list merged into a fresh aggregate, then another: nothing under k is dropped
        res = agg(registry, name, INTEGER, literals=[5])
        assert res.merge is not None
        one = res.merge(res.init(), feed(res, 1, 3, 2))
        assert res.result(one) == [3, 2, 1]
        assert res.result(res.merge(one, feed(res, 9, 2))) == ([9, 3, 2, 2, 1] if name == "TOPK" else [9, 3, 2, 1])

    def test_merge_ties_put_the_running_aggregate_first(self, registry: FunctionRegistry) -> None:
        # TopkKudaf.merge takes aggOne's head on a tie (compareTo >= 0), then cuts at k
        res = agg(registry, "TOPK", INTEGER, STRING, literals=[2])
        assert res.merge is not None
        merged = res.merge(res.merge(res.init(), feed(res, (3, "a"))), feed(res, (3, "b"), (3, "c")))
        assert res.result(merged) == [{"sort_col": 3, "col0": "a"}, {"sort_col": 3, "col0": "b"}]

    def test_topk_distinct(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPKDISTINCT", INTEGER, literals=[3])
        assert run(res, 0, 100, 99, 7, 100)[-2:] == [[100, 99, 7], [100, 99, 7]]
        dec = agg(registry, "TOPKDISTINCT", Decimal(2, 1), literals=[3])
        vals = [D("9.8"), D("8.9"), None, D("7.8"), D("6.5"), D("9.9")]
        assert run(dec, *vals)[-1] == [D("9.9"), D("9.8"), D("8.9")]
        assert res.merge is not None and res.result(res.merge(feed(res, 1, 2), feed(res, 2, 3))) == [3, 2, 1]

    def test_topk_distinct_bytes(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "TOPKDISTINCT", BYTES, literals=[3])
        assert run(res, b"B", b"F", b"G", None, b"A", b"F")[-1] == [b"G", b"F", b"B"]


class TestByOffset:
    def test_latest_ignores_nulls_by_default(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "LATEST_BY_OFFSET", INTEGER)
        assert res.return_type == INTEGER and res.undo is None
        assert run(res, 12, None, 13) == [12, 12, 13]
        assert run(res, None, None) == [None, None]

    def test_latest_keeping_nulls(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[False]), 12, None, 13) == [
            12,
            None,
            13,
        ]

    def test_latest_n(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[2])
        assert res.return_type == Array(INTEGER)
        assert run(res, 12, None, 13, 14) == [[12], [12], [12, 13], [13, 14]]
        keep = agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[2, False])
        assert run(keep, 12, None, 13) == [[12], [12, None], [None, 13]]
        assert run(res, None) == [[]]

    def test_earliest(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "EARLIEST_BY_OFFSET", STRING), None, "a", "b") == [None, "a", "a"]
        assert run(agg(registry, "EARLIEST_BY_OFFSET", STRING, literals=[False]), None, "a") == [None, None]
        assert run(agg(registry, "EARLIEST_BY_OFFSET", STRING, literals=[2]), "a", None, "b", "c") == [
            ["a"], ["a"], ["a", "b"], ["a", "b"],
        ]  # fmt: skip

    def test_literals(self, registry: FunctionRegistry) -> None:
        fn = registry.aggregates["LATEST_BY_OFFSET"]
        assert [fn.literal_arg_count(n) for n in (1, 2, 3)] == [0, 1, 2]
        with pytest.raises(KsqlTypeError):
            agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=["x"])
        with pytest.raises(KsqlTypeError):
            agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[0])

    @staticmethod
    def session(res: ResolvedUdaf, existing: list[Any], value: Any) -> Any:
        """Kafka Streams' session merge: init, merge every overlapping session in, then add the record."""
        acc = res.init()
        assert res.merge is not None
        for other in existing:
            acc = res.merge(acc, other)
        return res.result(res.add(acc, value))

    def test_session_merges(self, registry: FunctionRegistry) -> None:
        latest = agg(registry, "LATEST_BY_OFFSET", INTEGER)
        a, b = feed(latest, 1), feed(latest, None)
        assert self.session(latest, [a, b], 2) == 2
        assert self.session(latest, [feed(latest, 1)], None) == 1  # ignored NULL keeps the merged value
        keep = agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[False])
        assert self.session(keep, [feed(keep, 1)], None) is None
        n_keep = agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[2, False])
        a, b = feed(n_keep, 1), feed(n_keep, None)
        assert self.session(n_keep, [a, b], 2) == [None, 2]
        n_ignore = agg(registry, "LATEST_BY_OFFSET", INTEGER, literals=[2, True])
        a, b = feed(n_ignore, 1), feed(n_ignore, None)
        assert self.session(n_ignore, [a, b], 2) == [1, 2]
        earliest = agg(registry, "EARLIEST_BY_OFFSET", INTEGER)
        a, b = feed(earliest, 1), feed(earliest, 3)
        assert self.session(earliest, [b, a], 2) == 1


class TestStatistics:
    def test_stddev_samp_is_the_sample_variance(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "STDDEV_SAMP", INTEGER)
        assert res.return_type == DOUBLE
        assert run(res, 0, 10, 7, None, 6) == [
            0.0,
            50.0,
            26.333333333333332,
            26.333333333333332,
            17.583333333333332,
        ]

    def test_stddev_sample_matches_ksqldb_bits(self, registry: FunctionRegistry) -> None:
        got = run(agg(registry, "STDDEV_SAMPLE", DOUBLE), 9223372036854.775, 300.8, -200000.6, 0.0)
        assert got == [0.0, 6521908912453.693, 5325116385962.54, 4611686051710.689]
        assert run(agg(registry, "STDDEV_SAMP", DOUBLE), -1.8, 2.3, 100.2)[-1] == 3334.2033333333347

    def test_stddev_undo_and_merge(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "STDDEV_SAMP", BIGINT)
        assert res.undo is not None and res.merge is not None
        acc = res.undo(feed(res, 1, 2, 3, 100), 100)
        assert math.isclose(res.result(acc), 1.0)
        merged = res.merge(feed(res, 1, 2), feed(res, 3))
        assert math.isclose(res.result(merged), 1.0)
        assert res.result(res.undo(feed(res, 5), 5)) == 0.0

    def test_correlation(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "CORRELATION", DOUBLE, INTEGER)
        assert res.return_type == DOUBLE
        assert math.isclose(res.result(feed(res, (1.0, 2), (2.0, 4), (3.0, 6), (None, 1))), 1.0)
        assert math.isclose(res.result(feed(res, (1.0, 3), (2.0, 2), (3.0, 1))), -1.0)
        assert math.isnan(res.result(feed(res, (1.0, 1))))
        assert res.undo is not None
        acc = res.undo(feed(res, (1.0, 1), (2.0, 2), (3.0, 0)), 3.0, 0)
        assert math.isclose(res.result(acc), 1.0)


class TestAttrAndCountDistinct:
    def test_attr(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "ATTR", STRING)
        assert run(res, "s", "s") == ["s", "s"]
        assert run(res, "1", "2", "3") == ["1", None, None]
        assert run(res, "1", None, "1") == ["1", None, None]
        assert run(res, None, None) == [None, None]

    def test_attr_over_a_table(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "ATTR", STRING)
        assert res.undo is not None
        acc = feed(res, "1", "1")
        acc = res.undo(res.undo(acc, "1"), "1")
        assert res.result(acc) is None
        acc = feed(res, "2", "3")
        assert res.result(acc) is None and res.result(res.undo(acc, "3")) == "2"

    def test_attr_of_structures(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "ATTR", Array(INTEGER))
        assert run(res, [1, 2], [1, 2]) == [[1, 2], [1, 2]]
        assert run(res, [1, 2], [2, 1]) == [[1, 2], None]

    def test_count_distinct_small_sets_are_exact(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT_DISTINCT", STRING)
        assert res.return_type == BIGINT and res.undo is None
        assert run(res, "one", "two", "one", "two", None) == [1, 2, 2, 2, 2]

    def test_count_distinct_large_sets_are_close(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COUNT_DISTINCT", BIGINT)
        acc = feed(res, *range(20_000), *range(5_000))
        assert abs(res.result(acc) - 20_000) < 20_000 * 0.03
        assert res.merge is not None
        merged = res.merge(feed(res, *range(3000)), feed(res, *range(2000, 5000)))
        assert abs(res.result(merged) - 5000) < 5000 * 0.03
        assert res.result(res.merge(feed(res, 1, 2), feed(res, 2, 3))) == 3


def test_every_reference_aggregate_is_registered(registry: FunctionRegistry) -> None:
    names = (
        "AVG COUNT COUNT_DISTINCT SUM SUM_LIST MIN MAX COLLECT_LIST COLLECT_SET HISTOGRAM TOPK TOPKDISTINCT "
        "EARLIEST_BY_OFFSET LATEST_BY_OFFSET STDDEV_SAMP STDDEV_SAMPLE CORRELATION ATTR"
    ).split()
    assert all(registry.kind_of(n) == "aggregate" for n in names)
    assert all(registry.aggregates[n].signatures() for n in names)
    table_ok = {n for n in names if getattr(_resolve_any(registry, n), "undo", None) is not None}
    assert table_ok == {
        "AVG", "COUNT", "SUM", "SUM_LIST", "COLLECT_LIST", "HISTOGRAM", "STDDEV_SAMP",
        "STDDEV_SAMPLE", "CORRELATION", "ATTR",
    }  # fmt: skip
    from ksqlpy.functions.docs import TABLE_AGGREGATES

    applies, refused = TABLE_AGGREGATES.split("\n\n")[0].split(" apply; ")  # the page's first paragraph
    assert {n for n in names if re.search(rf"\b{n}\b", applies)} == table_ok  # the reference page says the same
    assert {n for n in names if re.search(rf"\b{n}\b", refused)} == set(names) - table_ok


@pytest.mark.parametrize("name", [
    "AVG", "COUNT", "COUNT_DISTINCT", "SUM", "SUM_LIST", "MIN", "MAX", "COLLECT_LIST", "COLLECT_SET", "HISTOGRAM",
    "TOPK", "TOPKDISTINCT", "EARLIEST_BY_OFFSET", "LATEST_BY_OFFSET", "STDDEV_SAMP", "STDDEV_SAMPLE",
    "CORRELATION", "ATTR"])
@pytest.mark.parametrize("k", [1, 3, 6])
def test_a_session_merged_into_a_fresh_aggregate_is_unchanged(registry: FunctionRegistry, name: str, k: int) -> None:
    """Kafka Streams merges the sessions a record reaches into a fresh aggregate, the first one alone: for
    every aggregate that merge is the identity, whatever the number of values (TOPK's k is varied)."""
    res = _resolve_any(registry, name, k)
    rows = {"SUM_LIST": [[1], [2, 3], [4]], "HISTOGRAM": ["a", "b", "a", "c"],
            "CORRELATION": [(1.0, 2.0), (2.0, 1.0), (4.0, 5.0), (3.0, 3.0)]}.get(name, [4, 1, 3, 1, 2])
    for n in range(len(rows) + 1):
        acc = feed(res, *rows[:n])
        assert res.merge is not None
        assert repr(res.result(res.merge(res.init(), pickle.loads(pickle.dumps(acc))))) == repr(res.result(acc))


def _resolve_any(registry: FunctionRegistry, name: str, k: int = 1) -> ResolvedUdaf:
    types: dict[str, tuple[list[SqlType], list[Any]]] = {
        "SUM_LIST": ([Array(INTEGER)], []),
        "HISTOGRAM": ([STRING], []),
        "TOPK": ([INTEGER], [k]),
        "TOPKDISTINCT": ([INTEGER], [k]),
        "CORRELATION": ([DOUBLE, DOUBLE], []),
    }
    arg_types, literals = types.get(name, ([INTEGER], []))
    res = registry.aggregates[name].resolve(arg_types, literals, {})
    assert isinstance(res, ResolvedUdaf)
    return res


def test_count_distinct_of_structures_and_stable_hashes(registry: FunctionRegistry) -> None:
    from ksqlpy.functions.aggregates_sketch import stable_hash

    res = agg(registry, "COUNT_DISTINCT", Array(INTEGER))
    assert run(res, [1, 2], [1, 2], [2, 1], None) == [1, 1, 2, 2]
    # the sketch hashes must not depend on the process (PYTHONHASHSEED): fixed expected values
    assert stable_hash("abc") == 13178474878074054718
    assert stable_hash(42) == 13679457532755275413


@pytest.mark.parametrize(("name", "which"), [("LATEST_BY_OFFSET", "latestN"), ("EARLIEST_BY_OFFSET", "earliestN")])
def test_by_offset_n_must_be_positive_with_ksqldbs_text(registry: FunctionRegistry, name: str, which: str) -> None:
    with pytest.raises(KsqlTypeError, match=f"{which} must be 1 or greater"):
        agg(registry, name, INTEGER, literals=[0])


def _texts(values: Any) -> list[str]:
    """Doubles as Java prints them, so -0.0 and NaN are seen (``==`` would not tell -0.0 from 0.0)."""
    return [repr(v) for v in values]


class TestJavaDoubles:
    """DOUBLEs compared as Java's Double.equals/compareTo: -0.0 below and unequal to 0.0, NaN equal to itself and
    above everything (aggregates/java_values)."""

    NAN = float("nan")

    def test_min_max_order_signed_zeros_and_nan(self, registry: FunctionRegistry) -> None:
        assert _texts(run(agg(registry, "MIN", DOUBLE), 0.0, -0.0, 0.0)) == ["0.0", "-0.0", "-0.0"]
        assert _texts(run(agg(registry, "MAX", DOUBLE), -0.0, 0.0, -0.0)) == ["-0.0", "0.0", "0.0"]
        assert _texts(run(agg(registry, "MAX", DOUBLE), 1.0, self.NAN, math.inf)) == ["1.0", "nan", "nan"]
        assert _texts(run(agg(registry, "MIN", DOUBLE), self.NAN, 1.0)) == ["nan", "1.0"]

    def test_min_max_merge_sessions_by_the_same_order(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "MIN", DOUBLE)
        assert repr(res.merge(feed(res, 0.0), feed(res, -0.0))) == "-0.0"

    def test_collect_set_keeps_both_zeros_and_one_nan(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_SET", DOUBLE)
        assert _texts(run(res, 0.0, -0.0, self.NAN, self.NAN, 0.0)[-1]) == ["0.0", "-0.0", "nan"]
        assert _texts(res.result(res.merge(feed(res, 0.0, self.NAN), feed(res, -0.0, self.NAN)))) == [
            "0.0", "nan", "-0.0"]

    def test_collect_set_of_nested_doubles(self, registry: FunctionRegistry) -> None:
        res = agg(registry, "COLLECT_SET", Array(DOUBLE))
        assert run(res, [0.0], [-0.0], [self.NAN], [self.NAN])[-1].__len__() == 3

    def test_count_distinct(self, registry: FunctionRegistry) -> None:
        assert run(agg(registry, "COUNT_DISTINCT", DOUBLE), 0.0, -0.0, self.NAN, self.NAN) == [1, 2, 3, 3]
        res = agg(registry, "COUNT_DISTINCT", Struct((("V", DOUBLE),)))
        assert run(res, {"V": 0.0}, {"V": -0.0}, {"V": self.NAN}, {"V": self.NAN}) == [1, 2, 3, 3]

    def test_topk_and_topkdistinct_order(self, registry: FunctionRegistry) -> None:
        topk = agg(registry, "TOPK", DOUBLE, literals=[3])
        assert _texts(run(topk, -0.0, self.NAN, 0.0, math.inf)[-1]) == ["nan", "inf", "0.0"]
        distinct = agg(registry, "TOPKDISTINCT", DOUBLE, literals=[3])
        assert _texts(run(distinct, self.NAN, -0.0, self.NAN, 0.0)[-1]) == ["nan", "0.0", "-0.0"]
        merged = distinct.merge(feed(distinct, self.NAN, 0.0), feed(distinct, self.NAN, -0.0))
        assert _texts(distinct.result(merged)) == ["nan", "0.0", "-0.0"]

    def test_attr_and_collect_list_undo(self, registry: FunctionRegistry) -> None:
        attr = agg(registry, "ATTR", DOUBLE)
        assert run(attr, 0.0, -0.0)[-1] is None
        assert math.isnan(run(attr, self.NAN, self.NAN)[-1])
        collect = agg(registry, "COLLECT_LIST", DOUBLE)
        assert collect.undo is not None
        acc = collect.undo(feed(collect, 0.0, -0.0, 0.0, self.NAN), -0.0)
        acc = collect.undo(acc, self.NAN)
        assert _texts(collect.result(acc)) == ["0.0", "0.0"]
