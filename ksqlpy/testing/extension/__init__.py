"""ksqlDB's test-only functions, written with the public Python function API (``ksqlpy.udf``).

``ksqlpy test`` points ``ksql.extension.dir`` at this directory, as ksqlDB's test runner puts its test jar on
the classpath: the functions load through the same loader as a user's extension directory, in every engine
the runner starts (and in worker processes, from the same property). Files starting with ``_`` (this one)
are not loaded as extensions.
"""

from __future__ import annotations

import os
from typing import Any

DIRECTORY = os.path.dirname(os.path.abspath(__file__))


def with_test_functions(properties: dict[str, Any]) -> dict[str, Any]:
    """``properties`` with ``ksql.extension.dir`` naming this directory (unless they name their own)."""
    return {"ksql.extension.dir": DIRECTORY, **properties}
