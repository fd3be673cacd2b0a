-- a push query on a table: its changes
SELECT * FROM CUSTOMERS EMIT CHANGES;
