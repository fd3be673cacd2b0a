-- a single-partition source: its groups need not move
CREATE TABLE KINDS AS SELECT KIND, COUNT(*) AS N FROM EVENTS GROUP BY KIND;
