"""Python user functions: scalar (``@udf``), aggregate (``@udaf``) and table (``@udtf``) functions, loaded from
``ksql.extension.dir`` and from the ``ksqlpy.functions`` entry points of installed packages
(docs/functions-python.md).

```python
from ksqlpy.udf import udf

@udf("MULTIPLY", description="The product of two numbers.")
def multiply(a: int, b: int) -> int:
    return a * b
```

Modules: ``declare`` (the decorators), ``type_mapping`` (annotations -> SQL types), ``values`` (value
conversion), ``build`` (declarations -> registry functions), ``loader`` (files, entry points, the per-engine
registry), ``ext`` (importable names for extension files).
"""

from __future__ import annotations

from ksqlpy.types import SqlType
from ksqlpy.udf import sql
from ksqlpy.udf.declare import Declaration, udaf, udf, udtf

__all__ = ["Declaration", "SqlType", "sql", "udaf", "udf", "udtf"]
