"""ksqlpy's REST server: ksqlDB's HTTP API over one engine (``ksqlpy server``; see docs/server.md).

Modules, one idea each: ``config`` (properties), ``main`` (CLI + Hypercorn), ``app`` (routes), ``context``
(engine lifecycle, command topic, push queries), ``ksql`` (/ksql statements), ``entities`` (results as
ksqlDB entities), ``queries``/``streaming``/``printing`` (SELECT and PRINT responses), ``inserts``
(/inserts-stream), ``websocket`` (/ws/query), ``auth``/``gate`` (middleware), ``plog`` (processing log),
``properties`` (overridable properties), ``values`` (SQL values as JSON), ``errors`` (error envelope).
"""
