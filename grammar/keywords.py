"""The ksql vocabulary: which words are reserved and which name time units.

ksqlDB's grammar (SqlBase.g4) has many keywords but lets a good share of them ("nonReserved") be used
as identifiers, e.g. a column named ``TIMESTAMP``, ``KEY``, ``SOURCE`` or ``ID``. The tokenizer gives
only expression operators their own token type; every other word is a VAR token, and the parser
asks :func:`is_reserved` whether a VAR may be an identifier. Keeping the list here, in one place,
is what makes "is this word a name?" answerable the way ksqlDB answers it.
"""

from __future__ import annotations

# Every keyword of ksqlDB's lexer, in the lexer's order: the order of their token types, which is the order
# ANTLR lists them in an expected set (``{';', 'WITH', 'TIMEOUT'}``; the grammar's literals such as ';' come
# first).
KEYWORD_ORDER: tuple[str, ...] = tuple(
    """
    EMIT CHANGES FINAL SELECT FROM AS ALL DISTINCT WHERE WITHIN WINDOW GROUP BY HAVING LIMIT AT OR
    AND IN NOT EXISTS BETWEEN LIKE ESCAPE IS NULL TRUE FALSE INTEGER DATE TIME TIMESTAMP INTERVAL
    YEAR MONTH DAY HOUR MINUTE SECOND MILLISECOND YEARS MONTHS DAYS HOURS MINUTES SECONDS
    MILLISECONDS ZONE TUMBLING HOPPING SIZE ADVANCE RETENTION GRACE PERIOD CASE WHEN THEN ELSE END
    JOIN FULL OUTER INNER LEFT RIGHT ON PARTITION STRUCT WITH VALUES CREATE TABLE TOPIC STREAM
    STREAMS INSERT DESCRIBE EXTENDED LIST TABLES TOPICS QUERY QUERIES TERMINATE PAUSE RESUME LOAD
    COLUMNS COLUMN PARTITIONS FUNCTIONS FUNCTION DROP TO RENAME ARRAY MAP SET DEFINE UNDEFINE RESET
    SESSION SAMPLE EXPLAIN ANALYZE TYPE TYPES CAST SHOW DELETE INTO PRINT BEGINNING UNSET RUN
    SCRIPT DECIMAL KEY CONNECTOR CONNECTORS SINK SOURCE NAMESPACE MATERIALIZED VIEW PRIMARY REPLACE
    ASSERT ADD ALTER VARIABLES PLUGINS HEADERS HEADER SYSTEM IF TIMEOUT SCHEMA SUBJECT ID
    """.split()
)
KEYWORDS: frozenset[str] = frozenset(KEYWORD_ORDER)

# Keywords ksqlDB also accepts as identifiers (its ``nonReserved`` rule).
NON_RESERVED: frozenset[str] = frozenset(
    """
    SHOW TABLES COLUMNS COLUMN PARTITIONS FUNCTIONS FUNCTION SESSION STRUCT MAP ARRAY PARTITION
    INTEGER DATE TIME TIMESTAMP INTERVAL ZONE YEAR MONTH DAY HOUR MINUTE SECOND EXPLAIN ANALYZE
    TYPE TYPES SET RESET IF SOURCE SINK PRIMARY KEY EMIT CHANGES FINAL ESCAPE REPLACE ASSERT ALTER
    ADD HEADER HEADERS GRACE PERIOD DEFINE UNDEFINE VARIABLES PLUGINS SYSTEM TIMEOUT SCHEMA SUBJECT
    ID
    """.split()
)

RESERVED: frozenset[str] = KEYWORDS - NON_RESERVED

# Non-reserved words that still may not be an *implicit* alias (``FROM s EMIT CHANGES``), because
# they start the clause that follows a source or a select item.
CLAUSE_STARTS: frozenset[str] = frozenset(
    "WINDOW WHERE GROUP PARTITION HAVING EMIT LIMIT JOIN INNER LEFT RIGHT FULL WITHIN ON FROM".split()
)

# Units of WINDOW / WITHIN / GRACE PERIOD / RETENTION / TIMEOUT durations, in milliseconds.
WINDOW_UNITS_MS: dict[str, int] = {
    "MILLISECOND": 1,
    "MILLISECONDS": 1,
    "SECOND": 1_000,
    "SECONDS": 1_000,
    "MINUTE": 60_000,
    "MINUTES": 60_000,
    "HOUR": 3_600_000,
    "HOURS": 3_600_000,
    "DAY": 86_400_000,
    "DAYS": 86_400_000,
}

# The canonical (java.util.concurrent.TimeUnit) name of each window unit, used for unit arguments of
# functions such as TIMESTAMPADD(MILLISECONDS, 5, ts).
CANONICAL_UNIT: dict[str, str] = {
    word: (word if word.endswith("S") else word + "S") for word in WINDOW_UNITS_MS
}


def is_reserved(word: str) -> bool:
    """True if ``word`` (any case) can never be an unquoted identifier."""
    return word.upper() in RESERVED
