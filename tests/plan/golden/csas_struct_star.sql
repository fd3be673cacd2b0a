-- s->*: a struct's fields as columns
CREATE STREAM ADDRESSES AS SELECT ID, ADDRESS->* FROM ORDERS;
