-- a windowed stream read as a source: its window bounds are columns
CREATE STREAM BUSY_PAGES AS SELECT PAGE, VIEWS, WINDOWSTART AS WS FROM VIEW_COUNTS WHERE VIEWS > 100;
