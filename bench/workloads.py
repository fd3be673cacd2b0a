"""The benchmark workloads: Nexmark queries in ksqlpy's SQL, and which peers implement each one.

Each workload is one persistent query over the ``bid`` stream, drained end to end. Differences from the
Nexmark SQL are forced by ksqlDB's dialect and are listed in ``note`` (shown in docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass

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
"""


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    sql: str  # {sink} is replaced by a fresh sink name per run
    peers: tuple[str, ...] = ()  # peer implementations that exist for it ("quix", "bytewax", "ceiling")
    note: str = ""
    # the same aggregation emitting one final result per window (EMIT FINAL, no grace): what Bytewax's
    # window operators emit, so the two are compared on the same output
    final_sql: str = ""


WORKLOADS: dict[str, Workload] = {w.name: w for w in [
    Workload("q0", "pass-through",
             "CREATE STREAM {sink} AS SELECT * FROM bid;", ("ceiling", "quix", "bytewax")),
    Workload("q1", "projection (currency conversion)",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price * 908 / 1000 AS price, date_time, extra "
             "FROM bid;", ("ceiling", "quix", "bytewax"),
             "integer arithmetic like Nexmark's `0.908 * price` cast back to BIGINT"),
    Workload("q2", "selection (filter)",
             "CREATE STREAM {sink} AS SELECT auction, price FROM bid WHERE auction % 123 = 0;",
             ("ceiling", "quix", "bytewax")),
    Workload("q5", "hopping count per auction",
             "CREATE TABLE {sink} AS SELECT auction, COUNT(*) AS num FROM bid "
             "WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS) GROUP BY auction EMIT CHANGES;",
             ("ceiling", "quix", "bytewax"),
             "the hot-items count of q5, without the max-per-window self-join",
             "CREATE TABLE {sink} AS SELECT auction, COUNT(*) AS num FROM bid WINDOW HOPPING (SIZE 10 SECONDS, "
             "ADVANCE BY 2 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY auction EMIT FINAL;"),
    Workload("q7", "tumbling max per auction",
             "CREATE TABLE {sink} AS SELECT auction, MAX(price) AS max_price FROM bid "
             "WINDOW TUMBLING (SIZE 10 SECONDS) GROUP BY auction EMIT CHANGES;",
             ("ceiling", "quix", "bytewax"),
             "the windowed MAX of q7 per auction, without the join back to the bids",
             "CREATE TABLE {sink} AS SELECT auction, MAX(price) AS max_price FROM bid "
             "WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY auction EMIT FINAL;"),
    Workload("q11", "session count per bidder",
             "CREATE TABLE {sink} AS SELECT bidder, COUNT(*) AS bid_count FROM bid "
             "WINDOW SESSION (10 SECONDS) GROUP BY bidder EMIT CHANGES;", (),
             "repartitions by bidder (the topic is keyed by auction)"),
    Workload("q14", "CASE and arithmetic",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price * 908 / 1000 AS price, "
             "CASE WHEN (date_time / 3600000) % 24 >= 8 AND (date_time / 3600000) % 24 <= 18 THEN 'dayTime' "
             "WHEN (date_time / 3600000) % 24 <= 6 OR (date_time / 3600000) % 24 >= 20 THEN 'nightTime' "
             "ELSE 'otherTime' END AS bid_time_type, date_time, extra, "
             "LEN(extra) - LEN(REPLACE(extra, 'c', '')) AS c_counts FROM bid "
             "WHERE price * 908 / 1000 > 1000000 AND price * 908 / 1000 < 50000000;", (),
             "HOUR(dateTime) as epoch arithmetic (UTC); count_char as LEN - LEN(REPLACE)"),
    Workload("q17", "unbounded group-by, several aggregates",
             "CREATE TABLE {sink} WITH (key_format='JSON') AS SELECT auction, TIMESTAMPTOSTRING(date_time, 'yyyy-MM-dd', 'UTC') AS day, "
             "COUNT(*) AS total_bids, SUM(CASE WHEN price < 10000 THEN 1 ELSE 0 END) AS rank1_bids, "
             "SUM(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 ELSE 0 END) AS rank2_bids, "
             "SUM(CASE WHEN price >= 1000000 THEN 1 ELSE 0 END) AS rank3_bids, "
             "MIN(price) AS min_price, MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price "
             "FROM bid GROUP BY auction, TIMESTAMPTOSTRING(date_time, 'yyyy-MM-dd', 'UTC') EMIT CHANGES;", (),
             "COUNT(*) FILTER (WHERE ..) as SUM(CASE ..)"),
    Workload("q21", "CASE + REGEXP_EXTRACT",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price, channel, "
             "CASE WHEN LCASE(channel) = 'apple' THEN '0' WHEN LCASE(channel) = 'google' THEN '1' "
             "WHEN LCASE(channel) = 'facebook' THEN '2' WHEN LCASE(channel) = 'baidu' THEN '3' "
             "ELSE REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2) END AS channel_id FROM bid "
             "WHERE REGEXP_EXTRACT('(&|^)channel_id=([^&]*)', url, 2) IS NOT NULL "
             "OR LCASE(channel) IN ('apple', 'google', 'facebook', 'baidu');", ()),
    Workload("q22", "SPLIT into URL directories",
             "CREATE STREAM {sink} AS SELECT auction, bidder, price, channel, "
             "SPLIT(url, '/')[4] AS dir1, SPLIT(url, '/')[5] AS dir2, SPLIT(url, '/')[6] AS dir3 FROM bid;", (),
             "SPLIT_INDEX(url, '/', 3) as SPLIT(url, '/')[4] (ksqlDB arrays are 1-based)"),
]}

QUICK = ("q0", "q1", "q2", "q5", "q7", "q11", "q14", "q17", "q21", "q22")
