-- GROUP BY a value column over ONE partition: still through Aggregate-GroupBy-repartition (ksqlDB plans it whatever the partition count)
CREATE TABLE PER_KIND AS SELECT KIND, COUNT(*) AS N FROM EVENTS GROUP BY KIND;
