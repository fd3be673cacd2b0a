"""Joins, the syntax reference, updating a running query, changelog to table."""

from __future__ import annotations

from docs_runner import Expect, Step, ok, refused, rows

from ._common import CS, EARLIEST_K, EARLIEST_Q, _has


def joins(p: str) -> list[Step]:
    """Stream-stream with WITHIN, stream-table, table-table and foreign-key joins."""
    o, sh, c, ac = f"{p}orders", f"{p}shipments", f"{p}customers", f"{p}accounts"
    return [
        Step(f"CREATE STREAM {o} (order_id INT KEY, customer_id INT, total DOUBLE) WITH (kafka_topic='{o}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {sh} (order_id INT KEY, warehouse VARCHAR) WITH (kafka_topic='{sh}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {c} (customer_id INT PRIMARY KEY, name VARCHAR, account_id INT) WITH "
             f"(kafka_topic='{c}', value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE TABLE {ac} (account_id INT PRIMARY KEY, tier VARCHAR) WITH (kafka_topic='{ac}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"INSERT INTO {c} (customer_id, name, account_id) VALUES (10, 'Ada', 100);\n"
             f"INSERT INTO {c} (customer_id, name, account_id) VALUES (11, 'Bo', 101);\n"
             f"INSERT INTO {ac} (account_id, tier) VALUES (100, 'gold');", ok()),
        Step(f"CREATE TABLE {p}cust_tier AS SELECT c.customer_id AS customer_id, c.name, a.tier\n"
             f"  FROM {c} c LEFT JOIN {ac} a ON c.account_id = a.account_id;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT c.customer_id AS customer_id, o.order_id, c.name AS customer, "
             "o.total\n"
             f"  FROM {o} o\n  INNER JOIN {c} c ON o.customer_id = c.customer_id\n  EMIT CHANGES;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}shipped AS\n  SELECT o.order_id AS order_id, o.total, s.warehouse\n"
             f"  FROM {o} o\n  INNER JOIN {sh} s WITHIN 1 HOUR ON o.order_id = s.order_id;",
             ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}late AS SELECT o.order_id AS order_id, s.warehouse FROM {o} AS o\n"
             f"  LEFT JOIN {sh} AS s WITHIN (1 MINUTE, 2 HOURS) GRACE PERIOD 10 MINUTES ON o.order_id = s.order_id;",
             ok(CS), body=EARLIEST_K),
        Step(f"INSERT INTO {o} (order_id, customer_id, total) VALUES (1, 10, 9.5);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (2, 11, 20.0);\n"
             f"INSERT INTO {sh} (order_id, warehouse) VALUES (1, 'north');", ok()),
        Step(f"SELECT * FROM {p}enriched;", rows(["CUSTOMER_ID", "ORDER_ID", "CUSTOMER", "TOTAL"],
                                                [[10, 1, "Ada", 9.5], [11, 2, "Bo", 20.0]]), wait=15),
        Step(f"SELECT * FROM {p}shipped;", rows(["ORDER_ID", "TOTAL", "WAREHOUSE"], [[1, 9.5, "north"]]), wait=15),
        Step(f"SELECT * FROM {p}cust_tier;", rows(["CUSTOMER_ID", "NAME", "TIER"],
                                                 [[10, "Ada", "gold"], [11, "Bo", None]]), wait=15),
        Step(f"SELECT * FROM {p}cust_tier WHERE customer_id = 10;",
             rows(["CUSTOMER_ID", "NAME", "TIER"], [[10, "Ada", "gold"]]), wait=10),
        # the table row and the stream rows that join it in one request, as a page's INSERT block does
        Step(f"CREATE STREAM {p}by_name AS SELECT c.customer_id AS customer_id, c.name, o.total FROM {o} o\n"
             f"  LEFT JOIN {c} c ON o.customer_id = c.customer_id;", ok(CS)),
        Step(f"INSERT INTO {c} (customer_id, name, account_id) VALUES (12, 'Cy', 100);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (3, 12, 1.0);\n"
             f"INSERT INTO {o} (order_id, customer_id, total) VALUES (4, 12, 2.0);", ok()),
        Step(f"SELECT * FROM {p}by_name;", rows(["CUSTOMER_ID", "NAME", "TOTAL"], [[12, "Cy", 1.0], [12, "Cy", 2.0]]),
             wait=15),
        Step(f"CREATE TABLE {p}fk AS SELECT c.customer_id, a.account_id AS account_id, a.tier, c.name FROM {c} c\n"
             f"  JOIN {ac} a ON c.account_id = a.account_id;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {o} o JOIN {c} c ON o.customer_id = c.customer_id;",
             refused(40001, "re:(?i)pull queries don't support JOIN")),
        Step(f"SELECT * FROM {o} RIGHT JOIN {c} ON {o}.customer_id = {c}.customer_id EMIT CHANGES;",
             refused(40001)),
    ]


def syntax_reference(p: str) -> list[Step]:
    """The syntax reference's statements not shown elsewhere: an n-way join, PARTITION BY, INSERT INTO ...
    SELECT, CREATE SOURCE TABLE, the aggregate-function page's aggregates, PAUSE / RESUME / TERMINATE,
    ALTER ... ADD COLUMN, ASSERT TOPIC and DROP ... DELETE TOPIC."""
    o, c, i = f"{p}orders", f"{p}customers", f"{p}items"
    return [
        Step(f"CREATE STREAM {o} (order_id INT KEY, customer_id INT, item_id INT, qty INT)\n"
             f"  WITH (kafka_topic='{o.lower()}', value_format='protobuf', partitions=1);\n"
             f"CREATE TABLE {c} (id INT PRIMARY KEY, name VARCHAR)\n"
             f"  WITH (kafka_topic='{c.lower()}', value_format='protobuf', partitions=1);\n"
             f"CREATE TABLE {i} (id INT PRIMARY KEY, descr VARCHAR, price DOUBLE)\n"
             f"  WITH (kafka_topic='{i.lower()}', format='json', partitions=1);", ok(CS, CS, CS)),
        Step(f"CREATE SOURCE TABLE {p}items_src (id INT PRIMARY KEY, descr VARCHAR)\n"
             f"  WITH (kafka_topic='{i.lower()}', format='json');", ok(CS)),
        Step(f"INSERT INTO {c} (id, name) VALUES (1, 'ann');\nINSERT INTO {i} (id, descr, price) VALUES (10, 'pen', 1.5);",
             ok()),
        Step(f"INSERT INTO {o} (order_id, customer_id, item_id, qty) VALUES (100, 1, 10, 3);\n"
             f"INSERT INTO {o} (order_id, customer_id, item_id, qty) VALUES (101, 1, 10, 5);", ok()),
        Step(f"CREATE STREAM {p}enriched AS\n  SELECT i.id AS item_id, o.order_id, c.name, i.descr, "
             f"o.qty * i.price AS total\n  FROM {o} o\n    LEFT JOIN {c} c ON o.customer_id = c.id\n"
             f"    LEFT JOIN {i} i ON o.item_id = i.id\n  EMIT CHANGES;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {p}enriched_bad AS SELECT o.order_id, c.name FROM {o} o\n"
             f"  LEFT JOIN {c} c ON o.customer_id = c.id\n  LEFT JOIN {i} i ON o.item_id = i.id;",
             refused(40001, "Key missing from projection (ie, SELECT). See https://cnfl.io/2LV7ouS.\nThe query used to "
                            f"build `{p.upper()}ENRICHED_BAD` must include the join expressions O.ITEM_ID or I.ID in "
                            "its projection (eg, SELECT O.ITEM_ID...).")),
        Step(f"CREATE STREAM {p}by_customer AS SELECT * FROM {o} PARTITION BY customer_id;", ok(CS),
             body=EARLIEST_K),
        Step(f"CREATE STREAM {p}all_orders (order_id INT KEY, customer_id INT, item_id INT, qty INT)\n"
             f"  WITH (kafka_topic='{p.lower()}all_orders', value_format='json', partitions=1);\n"
             f"INSERT INTO {p}all_orders SELECT * FROM {o};", ok(CS, CS), body=EARLIEST_K),
        Step(f"CREATE TABLE {p}item_stats AS SELECT item_id, TOPK(qty, 2) AS top2,\n"
             "  HISTOGRAM(CAST(qty AS VARCHAR)) AS h, COLLECT_SET(customer_id) AS custs,\n"
             "  EARLIEST_BY_OFFSET(qty) AS first_qty, MIN(qty) AS mn, MAX(qty) AS mx, AVG(qty) AS av,\n"
             f"  SUM(qty) AS total FROM {o} GROUP BY item_id;", ok(CS), body=EARLIEST_K),
        Step(f"SELECT * FROM {p}enriched;", rows(["ITEM_ID", "ORDER_ID", "NAME", "DESCR", "TOTAL"],
                                                [[10, 100, "ann", "pen", 4.5], [10, 101, "ann", "pen", 7.5]]),
             wait=15),
        Step(f"SELECT * FROM {p}by_customer;", rows(["CUSTOMER_ID", "ITEM_ID", "QTY", "ORDER_ID"],
                                                   [[1, 10, 3, 100], [1, 10, 5, 101]]), wait=15),
        Step(f"SELECT * FROM {p}all_orders;", rows(["ORDER_ID", "CUSTOMER_ID", "ITEM_ID", "QTY"],
                                                  [[100, 1, 10, 3], [101, 1, 10, 5]]), wait=15),
        Step(f"SELECT * FROM {p}item_stats WHERE item_id = 10;",
             rows(["ITEM_ID", "TOP2", "H", "CUSTS", "FIRST_QTY", "MN", "MX", "AV", "TOTAL"],
                  [[10, [5, 3], {"3": 1, "5": 1}, [1], 3, 3, 5, 4.0, 8]]), wait=15),
        Step(f"SELECT * FROM {p}items_src WHERE id = 10;", rows(["ID", "DESCR"], [[10, "pen"]]), wait=15),
        Step(f"ALTER STREAM {p}all_orders ADD COLUMN note VARCHAR, ADD COLUMN tags ARRAY<VARCHAR>;", ok(CS)),
        Step(f"DESCRIBE {p}all_orders;", ok("sourceDescription", check=_has(
            [0, "sourceDescription", "fields"], lambda fs: [f["name"] for f in fs][-2:] == ["NOTE", "TAGS"]))),
        Step(f"ALTER TABLE {p}item_stats ADD COLUMN x INT;",
             refused(40001, "ALTER command is not supported for CREATE ... AS statements.")),
        Step(f"ASSERT TOPIC '{o.lower()}' WITH (PARTITIONS=1) TIMEOUT 3 SECONDS;", ok("assert_topic")),
        Step(f"ASSERT NOT EXISTS TOPIC '{p.lower()}nothing';", ok("assert_topic")),
        Step(f"ASSERT TOPIC '{p.lower()}nothing' TIMEOUT 1 SECONDS;",
             refused(41700, f"Topic {p.lower()}nothing does not exist", status=417)),
        Step(f"DROP STREAM {p}by_customer;", ok(CS)),  # its own query goes with it
        Step(f"DROP STREAM {o};", refused(40001, f"Cannot drop {o.upper()}.\nThe following queries read "
                                                 "from this source: [")),
        Step("SHOW QUERIES;", ok("queries")),
    ]


def update_running_query(p: str) -> list[Step]:
    """How to update a running persistent query: CREATE OR REPLACE keeps the query id when the change
    is compatible (a filter, a column added at the end) and refuses one that changes the sink's schema."""
    pu, f, c = f"{p}purchases", f"{p}purchases_filtered", f"{p}purchase_count"
    qid = f"CSAS_{f.upper()}_"
    return [
        Step(f"CREATE STREAM {pu} (\n    product_id INT KEY,\n    name VARCHAR,\n    cost DOUBLE,\n    quantity INT\n"
             f") WITH (\n    kafka_topic = '{pu.lower()}',\n    format = 'json',\n    partitions = 1\n);", ok(CS)),
        Step(f"CREATE STREAM {f} AS\n  SELECT product_id, name, cost, quantity\n  FROM {pu}\n  WHERE quantity > 0;",
             ok(CS, check=_has([0, "commandStatus", "queryId"], lambda q: q.startswith(qid)))),
        Step(f"CREATE OR REPLACE STREAM {f} AS\n  SELECT product_id, name, cost, quantity\n  FROM {pu}\n"
             "  WHERE quantity > 0 AND cost > 1;",
             ok(CS, check=_has([0, "commandStatus", "queryId"], lambda q: q.startswith(qid)))),
        Step(f"CREATE OR REPLACE STREAM {f} AS\n  SELECT product_id, name, cost, quantity, cost * quantity AS total\n"
             f"  FROM {pu}\n  WHERE quantity > 0 AND cost > 1;", ok(CS)),
        Step(f"INSERT INTO {pu} (product_id, name, cost, quantity) VALUES (1, 'tea', 2.5, 2);\n"
             f"INSERT INTO {pu} (product_id, name, cost, quantity) VALUES (2, 'gum', 0.5, 4);", ok()),
        Step(f"SELECT * FROM {f} EMIT CHANGES LIMIT 1;",
             rows(["PRODUCT_ID", "NAME", "COST", "QUANTITY", "TOTAL"], [[1, "tea", 2.5, 2, 5.0]]), body=EARLIEST_Q),
        Step(f"CREATE OR REPLACE STREAM {f} AS SELECT product_id, name FROM {pu};",
             refused(40001, f"Cannot upgrade data source: DataSource '`{f.upper()}`' has schema = `PRODUCT_ID` "
                            "INTEGER KEY, `NAME` STRING, `COST` DOUBLE, `QUANTITY` INTEGER, `TOTAL` DOUBLE which is "
                            "not upgradeable to `PRODUCT_ID` INTEGER KEY, `NAME` STRING.")),
        Step(f"CREATE TABLE {c} AS SELECT product_id, COUNT(*) AS n FROM {pu} GROUP BY product_id;", ok(CS)),
        Step(f"CREATE OR REPLACE TABLE {c} AS SELECT product_id, SUM(quantity) AS n FROM {pu} GROUP BY product_id;",
             refused(40001, "re:Cannot upgrade data source: .*`N` BIGINT which is not upgradeable to .*`N` INTEGER")),
        Step("SHOW QUERIES;", ok("queries", check=_has([0, "queries"], lambda qs: sum(
            q["id"].startswith(qid) for q in qs) == 1))),
    ]


def changelog_to_table(p: str) -> list[Step]:
    """How to convert a changelog to a table: LATEST_BY_OFFSET per key over an Avro stream, read back by
    pull query and by PRINT of the table's topic (Avro values the query wrote)."""
    s1, t1 = f"{p}s1", f"{p}t1"
    ins = "\n".join(f"INSERT INTO {s1} (k, v1, v2) VALUES ('{k}', {v1}, '{v2}');"
                    for k, v1, v2 in (("k1", 0, "a"), ("k2", 1, "b"), ("k1", 2, "c"), ("k3", 3, "d"), ("k2", 4, "e")))
    return [
        Step(f"CREATE STREAM {s1} (\n    k VARCHAR KEY,\n    v1 INT,\n    v2 VARCHAR\n) WITH (\n"
             f"    kafka_topic = '{s1.lower()}',\n    partitions = 1,\n    value_format = 'avro'\n);", ok(CS)),
        Step(f"SET 'auto.offset.reset' = 'earliest';\nCREATE TABLE {t1} AS\n    SELECT k,\n"
             "           LATEST_BY_OFFSET(v1) AS v1,\n           LATEST_BY_OFFSET(v2) AS v2\n"
             f"    FROM {s1}\n    GROUP BY k\n    EMIT CHANGES;", ok(CS)),
        Step(ins, ok()),
        Step(f"SELECT * FROM {t1} WHERE k = 'k2';", rows(["K", "V1", "V2"], [["k2", 4, "e"]]), wait=15),
        Step(f"SELECT * FROM {t1};", rows(["K", "V1", "V2"], [["k1", 2, "c"], ["k2", 4, "e"], ["k3", 3, "d"]]),
             wait=15),
        Step(f"PRINT '{t1.upper()}' FROM BEGINNING LIMIT 1;",
             Expect(text=["Key format: KAFKA_STRING", "Value format: AVRO", 're:key: k\\d, value: \\{"V1": \\d, '
                                                                            '"V2": "\\w"\\}, partition: 0']),
             endpoint="/query", http2_expect=refused(40500, "The /query endpoint is not available using HTTP2")),
    ]


def asymmetric_join_windows(p: str) -> list[Step]:
    """The joins page's join windows on event time: ``WITHIN (before, after)`` takes a right record from
    ``before`` earlier to ``after`` later than the left one, both bounds included; a joined row's ROWTIME
    is the later of the two; a LEFT JOIN with ``GRACE PERIOD 0`` writes a left record that met nothing,
    NULL-padded at its own time, once stream time passes its window's end, and the record that met a
    match gets no NULL row."""
    left, right, inner, outer = f"{p}views", f"{p}clicks", f"{p}matched", f"{p}left_pad"
    h = 3_600_000
    return [
        Step(f"CREATE STREAM {left} (id INT KEY, v VARCHAR) WITH (kafka_topic='{left.lower()}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {right} (id INT KEY, w VARCHAR) WITH (kafka_topic='{right.lower()}', "
             "value_format='JSON', partitions=1);", ok(CS)),
        Step(f"CREATE STREAM {inner} AS SELECT l.id AS id, l.v, r.w\n  FROM {left} l\n"
             f"  JOIN {right} r WITHIN (1 HOUR, 2 HOURS) ON l.id = r.id;", ok(CS), body=EARLIEST_K),
        Step(f"CREATE STREAM {outer} AS SELECT l.id AS id, l.v, r.w\n  FROM {left} l\n"
             f"  LEFT JOIN {right} r WITHIN 1 HOUR GRACE PERIOD 0 SECONDS ON l.id = r.id;", ok(CS),
             body=EARLIEST_K),
        Step(f"INSERT INTO {left} (ROWTIME, id, v) VALUES ({10 * h}, 1, 'first');\n"
             f"INSERT INTO {right} (ROWTIME, id, w) VALUES ({9 * h}, 1, 'hour_before');\n"
             f"INSERT INTO {right} (ROWTIME, id, w) VALUES ({9 * h - 1}, 1, 'too_early');\n"
             f"INSERT INTO {right} (ROWTIME, id, w) VALUES ({12 * h}, 1, 'two_hours_after');\n"
             f"INSERT INTO {right} (ROWTIME, id, w) VALUES ({12 * h + 1}, 1, 'too_late');\n"
             f"INSERT INTO {left} (ROWTIME, id, v) VALUES ({20 * h}, 2, 'alone');\n"
             f"INSERT INTO {left} (ROWTIME, id, v) VALUES ({30 * h}, 3, 'open');", ok()),
        Step(f"SELECT id, v, w, ROWTIME FROM {inner};",
             rows(["ID", "V", "W", "ROWTIME"], [[1, "first", "hour_before", 10 * h],
                                                [1, "first", "two_hours_after", 12 * h]]), wait=15),
        # 'alone' is written when 'open' moves stream time past 21:00; 'open' is still in its window
        Step(f"SELECT id, v, w, ROWTIME FROM {outer};",
             rows(["ID", "V", "W", "ROWTIME"], [[1, "first", "hour_before", 10 * h], [2, "alone", None, 20 * h]]),
             wait=15),
        Step(f"SELECT id, w FROM {inner} EMIT CHANGES LIMIT 2;",
             rows(["ID", "W"], [[1, "hour_before"], [1, "two_hours_after"]]), body=EARLIEST_Q),
        Step(f"DROP STREAM {outer} DELETE TOPIC;", ok(CS)),
        Step(f"DROP STREAM {inner} DELETE TOPIC;", ok(CS)),
    ]
