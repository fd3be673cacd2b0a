-- a windowed table read as a source: its window bounds are columns
CREATE TABLE BUSY_PAGES AS SELECT PAGE, VIEWS, WINDOWSTART AS WS FROM VIEWS_PER_MINUTE WHERE VIEWS > 100;
