-- pseudo columns selected: the record's time, partition and offset
CREATE STREAM WITH_POSITIONS AS SELECT ID, ROWTIME AS TS, ROWPARTITION AS P, ROWOFFSET AS O FROM ORDERS;
