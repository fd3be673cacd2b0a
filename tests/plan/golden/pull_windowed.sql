-- a windowed table: the key looked up within a window-start range
SELECT * FROM VIEWS_PER_MINUTE WHERE PAGE = 'home' AND WINDOWSTART >= 60000 AND WINDOWSTART < 180000;
