"""SQL types for annotations where a Python type says too little or too much.

```python
from ksqlpy.udf import sql, udf

@udf("HALF")
def half(x: sql.INT) -> sql.DECIMAL(12, 1): ...          # INT, not BIGINT; a DECIMAL with its scale

@udf("NAME_OF")
def name_of(p: sql.of("STRUCT<NAME STRING, AGE INT>")) -> str: ...
```

Each is ``typing.Annotated[<Python type>, SqlTypeHint(...)]``: type checkers see the Python value type, the
loader reads the SQL type. A bare string annotation (``x: "DECIMAL(10, 2)"``) means the same as ``sql.of``,
but linters take strings in annotations for Python names (pyflakes F821, pyupgrade UP037), so these are
the lint-safe spelling.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Annotated, Any

from ksqlpy import types as T
from ksqlpy.functions.patterns import ArrayOf, Exact, MapOf, Pattern
from ksqlpy.udf.type_mapping import SqlTypeHint, sql_pattern


def _exact(py: Any, t: T.SqlType) -> Any:
    return Annotated[py, SqlTypeHint(Exact(t))]


BOOLEAN = _exact(bool, T.BOOLEAN)
INT = _exact(int, T.INTEGER)
INTEGER = INT
BIGINT = _exact(int, T.BIGINT)
DOUBLE = _exact(float, T.DOUBLE)
STRING = _exact(str, T.STRING)
BYTES = _exact(bytes, T.BYTES)
DATE = _exact(dt.date, T.DATE)
TIME = _exact(dt.time, T.TIME)
TIMESTAMP = _exact(dt.datetime, T.TIMESTAMP)


def DECIMAL(precision: int, scale: int) -> Any:  # noqa: N802 - reads as the SQL type
    """``DECIMAL(precision, scale)``."""
    return _exact(decimal.Decimal, T.Decimal(precision, scale))


def of(text: str) -> Any:
    """Any SQL type written as in SQL (``"STRUCT<A INT>"``, ``"MAP<STRING, ARRAY<DOUBLE>>"``), or a pattern of
    the signature language (``"ARRAY<T>"`` with a generic ``T``, ``"DECIMAL"`` of any precision, ``"ANY"``)."""
    pattern = sql_pattern(text)
    return Annotated[_python_type(pattern), SqlTypeHint(pattern)]


def _python_type(p: Pattern) -> Any:
    """The Python type of a pattern's values, for type checkers (Any where it depends)."""
    if isinstance(p, ArrayOf):
        return list
    if isinstance(p, MapOf):
        return dict
    if isinstance(p, Exact):
        t = p.type
        if isinstance(t, T.Array):
            return list
        if isinstance(t, T.Map | T.Struct):
            return dict
        if isinstance(t, T.Decimal):
            return decimal.Decimal
        return _PRIMITIVES.get(t, Any)
    return Any


_PRIMITIVES = {T.BOOLEAN: bool, T.INTEGER: int, T.BIGINT: int, T.DOUBLE: float, T.STRING: str, T.BYTES: bytes,
               T.DATE: dt.date, T.TIME: dt.time, T.TIMESTAMP: dt.datetime}


__all__ = ["BIGINT", "BOOLEAN", "BYTES", "DATE", "DECIMAL", "DOUBLE", "INT", "INTEGER", "STRING", "SqlTypeHint",
           "TIME", "TIMESTAMP", "of"]
