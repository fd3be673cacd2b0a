-- an aggregate only in HAVING: computed, filtered on, not selected (a push query: a table needs a value column)
SELECT ITEM FROM ORDERS GROUP BY ITEM HAVING COUNT(*) > 1 EMIT CHANGES;
