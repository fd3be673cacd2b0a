-- INSERT INTO with a DECIMAL the sink holds in a wider DECIMAL: the one implicit cast INSERT INTO ... SELECT
-- takes (any other type difference is refused: tests/cases/analysis/insert-select-types.json)
CREATE STREAM WIDE (ID INT KEY, TOTAL DECIMAL(6, 2)) WITH (KAFKA_TOPIC='wide', VALUE_FORMAT='JSON', PARTITIONS=4);
INSERT INTO WIDE SELECT ID, CAST(CUSTOMER AS DECIMAL(4, 1)) AS TOTAL FROM ORDERS;
