"""Generated source compiled once per text.

ksqlpy generates Python for a query's hot loops (pipelines, aggregation loops, combine folds, projectors,
join keys, serdes) and ``exec``s it into a namespace of its own per use. The code object depends on the
source text and file name alone, so equal texts share one: a query's tasks (one per partition and input)
build the same loops, a server re-creates queries of the same shape, and ``compile()`` costs more than
the rest of their set-up (q8 compiled its combine fold once per partition). The functions stay per
namespace; only the immutable code object is shared. A text that does not compile raises each time.
"""

from __future__ import annotations

from functools import lru_cache
from types import CodeType


@lru_cache(maxsize=1024)
def compiled(src: str, filename: str) -> CodeType:
    """``compile(src, filename, "exec")``, once per (text, file name)."""
    return compile(src, filename, "exec")


__all__ = ["compiled"]
