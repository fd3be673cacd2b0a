"""Conformance runner for ksqlDB query-validation tests (QTT): ``ksqlpy test``.

Layout, one idea per module:

- ``exactjson``  JSON with numbers kept exactly as written (so 1.10 and 1.1 stay distinguishable)
- ``loader``     lenient file loading (``//`` comments)
- ``model``      the case dataclasses
- ``expansion``  raw JSON case -> concrete cases (``format`` / ``config`` expansion)
- ``support``    static skip reasons (unsupported formats, schema registry, old versions...)
- ``schema``     ``post.sources`` schema strings, parsed and compared structurally
- ``specserde``  the harness's own serdes: test specs <-> bytes, independent of the engine's serdes
- ``compare``    value, record and topic comparison rules
- ``post``       ``post.sources`` / ``post.topics`` checks
- ``executor``   runs one case against an engine
- ``runner``     discovery, filtering, parallel jobs
- ``report``     results, reason grouping, JSON report and summary
- ``coerce``     expected field names resolved against the sink schema, as ksqlDB reads JSON
- ``mutation``   self-check: a mutated passing case must fail (``--mutate``)
- ``single``     ksql-test-runner style single-case mode
- ``extension/`` ksqlDB's test-only functions written with ``ksqlpy.udf``: the runner's ``ksql.extension.dir``
- ``cli``        ``main(argv)``
"""
