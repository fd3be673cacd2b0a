-- a stream without a key: no key columns, none in the result
CREATE STREAM HOT AS SELECT SENSOR, VAL FROM READINGS WHERE VAL > 30;
