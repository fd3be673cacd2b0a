-- GROUP BY a value column over ONE partition: no repartition topic (all groups meet in one task)
CREATE TABLE PER_KIND AS SELECT KIND, COUNT(*) AS N FROM EVENTS GROUP BY KIND;
