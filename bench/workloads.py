"""The benchmark workloads: Nexmark queries in ksqlpy's SQL, and which peers implement each one.

Each workload is one persistent query over the ``bid`` stream, drained end to end. Differences from the
Nexmark SQL are forced by ksqlDB's dialect and are listed in ``note`` (shown in docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SOURCES_SQL = """
CREATE STREAM bid (auction BIGINT KEY, bidder BIGINT, price BIGINT, channel STRING, url STRING,
                   date_time BIGINT, extra STRING)
  WITH (kafka_topic='bid', key_format='KAFKA', value_format='JSON', timestamp='date_time');
CREATE STREAM auction (id BIGINT KEY, item_name STRING, description STRING, initial_bid BIGINT,
                       reserve BIGINT, date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT,
                       extra STRING)
  WITH (kafka_topic='auction', key_format='KAFKA', value_format='JSON', timestamp='date_time');
CREATE STREAM person (id BIGINT KEY, name STRING, email_address STRING, credit_card STRING, city STRING,
                      state STRING, date_time BIGINT, extra STRING)
  WITH (kafka_topic='person', key_format='KAFKA', value_format='JSON', timestamp='date_time');
CREATE TABLE auction_t (id BIGINT PRIMARY KEY, item_name STRING, description STRING, initial_bid BIGINT,
                        reserve BIGINT, date_time BIGINT, expires BIGINT, seller BIGINT, category BIGINT,
                        extra STRING)
  WITH (kafka_topic='auction', key_format='KAFKA', value_format='JSON', timestamp='date_time');
CREATE TABLE person_t (id BIGINT PRIMARY KEY, name STRING, email_address STRING, credit_card STRING, city STRING,
                       state STRING, date_time BIGINT, extra STRING)
  WITH (kafka_topic='person', key_format='KAFKA', value_format='JSON', timestamp='date_time');
"""

BID_COLUMNS = ("auction", "bidder", "price", "channel", "url", "date_time", "extra")


@dataclass(frozen=True)
class ResultSpec:
    """What a workload's final result is, for the cross-engine check (``bench.final_results``):
    ``rows`` - the multiset of output rows; ``final`` - the last row per ``key`` (windowed keys
    include ``window_start``/``window_end``)."""

    kind: Literal["rows", "final"]
    columns: tuple[str, ...]
    key: tuple[str, ...] = ()


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    sql: str  # {sink} is replaced by a fresh sink name per run
    # peer implementations that exist for it ("ceiling", "quix", "bytewax", "flink", "pathway")
    peers: tuple[str, ...] = ()
    note: str = ""
    # the same aggregation emitting one final result per window (EMIT FINAL, no grace): what Bytewax's
    # window operators emit, so the two are compared on the same output
    final_sql: str = ""
    result: ResultSpec = field(default_factory=lambda: ResultSpec("rows", BID_COLUMNS))
    inputs: tuple[str, ...] = ("bid",)  # the topics it reads


def _rows(*columns: str) -> ResultSpec:
    return ResultSpec("rows", columns)


def _final(key: tuple[str, ...], *values: str) -> ResultSpec:
    return ResultSpec("final", key + values, key)


WINDOW = ("window_start", "window_end")

WORKLOADS: dict[str, Workload] = {w.name: w for w in [
    Workload("q0", "pass-through",
             "CREATE STREAM {sink} AS SELECT * FROM bid;", ("ceiling", "quix", "bytewax", "flink", "pathway")),
    Workload("q1", "projection (currency conversion)",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price * 908 / 1000 AS price, date_time, extra "
             "FROM bid;", ("ceiling", "quix", "bytewax", "flink", "pathway"),
             "integer arithmetic like Nexmark's `0.908 * price` cast back to BIGINT",
             result=_rows("auction", "bidder", "price", "date_time", "extra")),
    Workload("q2", "selection (filter)",
             "CREATE STREAM {sink} AS SELECT auction, price FROM bid WHERE auction % 123 = 0;",
             ("ceiling", "quix", "bytewax", "flink", "pathway"), result=_rows("auction", "price")),
    Workload("q5", "hopping count per auction",
             "CREATE TABLE {sink} AS SELECT auction, COUNT(*) AS num FROM bid "
             "WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS) GROUP BY auction EMIT CHANGES;",
             ("ceiling", "quix", "bytewax", "flink", "pathway"),
             "the hot-items count of q5, without the max-per-window self-join",
             "CREATE TABLE {sink} AS SELECT auction, COUNT(*) AS num FROM bid WINDOW HOPPING (SIZE 10 SECONDS, "
             "ADVANCE BY 2 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY auction EMIT FINAL;",
             result=_final(("auction", *WINDOW), "num")),
    Workload("q7", "tumbling max per auction",
             "CREATE TABLE {sink} AS SELECT auction, MAX(price) AS max_price FROM bid "
             "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY auction EMIT CHANGES;",
             ("ceiling", "quix", "bytewax", "flink", "pathway"),
             "the windowed MAX of q7 per auction, without the join back to the bids",
             "CREATE TABLE {sink} AS SELECT auction, MAX(price) AS max_price FROM bid "
             "WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY auction EMIT FINAL;",
             result=_final(("auction", *WINDOW), "max_price")),
    Workload("q11", "session count per bidder",
             "CREATE TABLE {sink} AS SELECT bidder, COUNT(*) AS bid_count FROM bid "
             "WINDOW SESSION (10 SECONDS) GROUP BY bidder EMIT CHANGES;", ("flink", "pathway"),
             "repartitions by bidder (the topic is keyed by auction)",
             result=_final(("bidder", *WINDOW), "bid_count")),
    Workload("q14", "CASE and arithmetic",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price * 908 / 1000 AS price, "
             "CASE WHEN (date_time / 3600000) % 24 >= 8 AND (date_time / 3600000) % 24 <= 18 THEN 'dayTime' "
             "WHEN (date_time / 3600000) % 24 <= 6 OR (date_time / 3600000) % 24 >= 20 THEN 'nightTime' "
             "ELSE 'otherTime' END AS bid_time_type, date_time, extra, "
             "LEN(extra) - LEN(REPLACE(extra, 'c', '')) AS c_counts FROM bid "
             "WHERE price * 908 / 1000 > 1000000 AND price * 908 / 1000 < 50000000;", ("flink", "pathway"),
             "HOUR(dateTime) as epoch arithmetic (UTC); count_char as LEN - LEN(REPLACE)",
             result=_rows("auction", "bidder", "price", "bid_time_type", "date_time", "extra", "c_counts")),
    Workload("q17", "unbounded group-by, several aggregates",
             "CREATE TABLE {sink} WITH (key_format='JSON') AS SELECT auction, TIMESTAMPTOSTRING(date_time, 'yyyy-MM-dd', 'UTC') AS day, "
             "COUNT(*) AS total_bids, SUM(CASE WHEN price < 10000 THEN 1 ELSE 0 END) AS rank1_bids, "
             "SUM(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 ELSE 0 END) AS rank2_bids, "
             "SUM(CASE WHEN price >= 1000000 THEN 1 ELSE 0 END) AS rank3_bids, "
             "MIN(price) AS min_price, MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price "
             "FROM bid GROUP BY auction, TIMESTAMPTOSTRING(date_time, 'yyyy-MM-dd', 'UTC') EMIT CHANGES;", ("flink", "pathway"),
             "COUNT(*) FILTER (WHERE ..) as SUM(CASE ..)",
             result=_final(("auction", "day"), "total_bids", "rank1_bids", "rank2_bids", "rank3_bids",
                           "min_price", "max_price", "avg_price", "sum_price")),
    Workload("q21", "CASE + REGEXP_EXTRACT",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price, channel, "
             "CASE WHEN LCASE(channel) = 'apple' THEN '0' WHEN LCASE(channel) = 'google' THEN '1' "
             "WHEN LCASE(channel) = 'facebook' THEN '2' WHEN LCASE(channel) = 'baidu' THEN '3' "
             "ELSE REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2) END AS channel_id FROM bid "
             "WHERE REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2) IS NOT NULL "
             "OR LCASE(channel) IN ('apple', 'google', 'facebook', 'baidu');", ("flink", "pathway"),
             result=_rows("auction", "bidder", "price", "channel", "channel_id")),
    Workload("q22", "SPLIT into URL directories",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price, channel, "
             "SPLIT(url, '/')[4] AS dir1, SPLIT(url, '/')[5] AS dir2, SPLIT(url, '/')[6] AS dir3 FROM bid;", ("flink", "pathway"),
             "SPLIT_INDEX(url, '/', 3) as SPLIT(url, '/')[4] (ksqlDB arrays are 1-based)",
             result=_rows("auction", "bidder", "price", "channel", "dir1", "dir2", "dir3")),
    # the joins (persons and auctions are tables of their own topics: each id is written once)
    Workload("q3", "person-auction join with filters",
             "CREATE STREAM {sink} AS SELECT A.seller AS seller, P.name AS name, P.city AS city, P.state AS state, "
             "A.id AS id FROM auction A JOIN person_t P ON A.seller = P.id "
             "WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');", ("flink", "pathway"),
             "persons as a table (stream-table join; auctions repartitioned by seller); the seller is selected "
             "as ksqlDB requires the join key in the projection",
             result=_rows("seller", "name", "city", "state", "id"), inputs=("auction", "person")),
    Workload("q8", "windowed person-auction join",
             "CREATE TABLE {sink} WITH (key_format='JSON') AS SELECT P.id AS id, P.name AS name, "
             "(P.date_time / 10000) * 10000 AS starttime, COUNT(*) AS auctions "
             "FROM person P JOIN auction A WITHIN 10 SECONDS ON P.id = A.seller "
             "WHERE P.date_time / 10000 = A.date_time / 10000 "
             "GROUP BY P.id, P.name, (P.date_time / 10000) * 10000 EMIT CHANGES;", ("flink", "pathway"),
             "new persons who opened an auction in the same 10 s tumbling window: a stream-stream join "
             "WITHIN 10 SECONDS, both sides in one window, grouped by person and window (ksqlDB joins no "
             "windowed tables)", result=_final(("id", "name", "starttime")), inputs=("auction", "person")),
    Workload("q20", "bid-auction join",
             "CREATE STREAM {sink} AS SELECT B.auction AS auction, B.bidder AS bidder, B.price AS price, "
             "B.channel AS channel, B.url AS url, B.date_time AS date_time, B.extra AS extra, "
             "A.item_name AS item_name, A.description AS description, A.initial_bid AS initial_bid, "
             "A.reserve AS reserve, A.date_time AS a_date_time, A.expires AS expires, A.seller AS seller, "
             "A.category AS category, A.extra AS a_extra "
             "FROM bid B JOIN auction_t A ON B.auction = A.id WHERE A.category = 10;", ("flink", "pathway"),
             "auctions as a table: each bid meets its auction as of the bid's time (a bid for an auction "
             "not yet opened finds none; Nexmark's regular join would match it later)",
             result=_rows("auction", "bidder", "price", "channel", "url", "date_time", "extra", "item_name",
                          "description", "initial_bid", "reserve", "a_date_time", "expires", "seller",
                          "category", "a_extra"), inputs=("bid", "auction")),
]}

QUICK = ("q0", "q1", "q2", "q5", "q7", "q11", "q14", "q17", "q21", "q22", "q3", "q8", "q20")
