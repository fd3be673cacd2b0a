"""The batch form of a vectorized scalar function: one column per argument in, one column of results out.

Three forms, chosen by ``@udf(vectorized=...)``:

* ``True`` - Python lists; a NULL argument is ``None`` in its list (a nullable parameter, as a boxed Java
  parameter of a ksqlDB UDF receives ``null``).
* ``"numpy"`` - NumPy arrays: DOUBLE, BIGINT, INT and BOOLEAN arguments as ``float64``, ``int64``,
  ``int32`` and ``bool`` arrays, any other type as an ``object`` array of the list form's values. A typed
  array cannot hold NULL, so a NULL there is ksqlDB's NULL passed to a primitive Java parameter: that
  record's invocation fails (NULL and a processing-log entry); the batch call gets the other records.
* ``"arrow"`` - ``pyarrow`` arrays (Arrow has its own NULLs).

The generated code gathers a typed column straight into its array (``Struct.pack_into`` over the row
tuples, ``ksqlpy.plan.batch_calls.gather``). Everything per element happens in C (packing, ``tolist``,
``map(type, ...)``) unless a type needs converting (TIMESTAMP, DATE, TIME, DECIMAL, STRUCT...), so the per-record cost of the call is that of the
user's own batch code. Records the batch does not compute come back as ``RETRY_RECORD``; the generated
code calls the one-record form for them (``ksqlpy.plan.batch_calls``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from ksqlpy import types as T
from ksqlpy.functions.registry import RETRY_RECORD, PartialBatch
from ksqlpy.udf.values import Convert

Mode = Literal[True, "numpy", "arrow"]

_NUMPY_DTYPES: dict[T.SqlType, str] = {T.DOUBLE: "float64", T.BIGINT: "int64", T.INTEGER: "int32",
                                       T.BOOLEAN: "bool"}
_FLOAT_OR_NULL = frozenset({float, type(None)})


class NullArgumentError(ValueError):
    """A NULL for a parameter whose NumPy array cannot hold it (ksqlDB: NULL for a primitive parameter)."""


def batch_adapter(fn: Callable[..., Any], name: str, mode: Mode, types: Sequence[T.SqlType],
                  names: Sequence[str], args: Sequence[Convert | None], result: Convert | None,
                  ) -> tuple[Callable[..., list[Any]], Callable[..., Any]]:
    """``(batch, row)``: the batch form (one list per argument -> one list of results, some possibly
    ``RETRY_RECORD``) and the one-record form built on it (raises where the batch form retries)."""
    double = getattr(result, "to_double", False)
    typed: list[str | None] = [None] * len(types)
    if mode == "numpy":
        import numpy as np  # the "numpy" form needs it; the others do not

        typed = [_NUMPY_DTYPES.get(t) for t in types]
    elif mode == "arrow":
        import pyarrow as pa

    def batch(*cols: list[Any]) -> list[Any]:
        n = len(cols[0]) if cols else 1
        given: list[Any] = [col if c is None else [c(v) for v in col] for c, col in zip(args, cols, strict=True)]
        keep: list[int] | None = None  # the records the call computes, if not all
        if mode == "numpy":
            given, keep = _numpy_columns(np, given, typed, n)
        elif mode == "arrow":
            given = [pa.array(col) for col in given]
        got = fn(*given)
        values = _as_list(got, double)
        want = n if keep is None else len(keep)
        if len(values) != want:
            raise ValueError(f"vectorized function {name} returned {len(values)} values for {want} rows")
        if result is not None and not (double and _floats(got, values)):
            values = [result(v) for v in values]
        if keep is None:
            return values
        out = PartialBatch([RETRY_RECORD] * n)
        for i, v in zip(keep, values, strict=True):
            out[i] = v
        return out

    def row(*values: Any) -> Any:
        for v, dtype, t, pname in zip(values, typed, types, names, strict=True):
            if v is None and dtype is not None:
                raise NullArgumentError(f"Failed to invoke function {name}: NULL for parameter {pname} ({t}), "
                                        f"which is a NumPy {dtype} array")
        return batch(*[[v] for v in values])[0]

    batch.dtypes = typed  # type: ignore[attr-defined] # the generated code gathers such columns into arrays
    return batch, row


def _numpy_columns(np: Any, cols: list[list[Any]], typed: list[str | None], n: int,
                   ) -> tuple[list[Any], list[int] | None]:
    """The arguments as NumPy arrays, and the records they hold if some had a NULL in a typed column."""
    arrays: list[Any] = []
    nulls: set[int] = set()
    for col, dtype in zip(cols, typed, strict=True):
        if not isinstance(col, list):  # gathered as an array already (``ksqlpy.plan.batch_calls.gather``)
            arrays.append(col)
            continue
        if dtype is None:
            arrays.append(np.fromiter(col, dtype=object, count=n))
            continue
        arr, missing = _typed(np, col, dtype)
        arrays.append(arr)
        nulls.update(missing)
    if not nulls:
        return arrays, None
    keep = [i for i in range(n) if i not in nulls]
    out = []
    for arr, col, dtype in zip(arrays, cols, typed, strict=True):
        if arr is None:  # a column with NULLs that does not convert: the kept values only
            arr = np.array([col[i] for i in keep], dtype=dtype)
        else:
            arr = arr[keep]
        out.append(arr)
    return out, keep


def _typed(np: Any, col: list[Any], dtype: str) -> tuple[Any, list[int]]:
    """``(array or None, rows holding NULL)``: one C pass when there is no NULL."""
    if dtype == "float64":
        arr = np.array(col, dtype=dtype)  # a None becomes NaN: only NaN positions can be NULLs
        nan = np.isnan(arr)
        if not nan.any():
            return arr, []
        return arr, [i for i in np.flatnonzero(nan).tolist() if col[i] is None]
    if dtype == "bool":  # bool(None) is False: look for NULLs first
        if None in col:
            return None, [i for i, v in enumerate(col) if v is None]
        return np.array(col, dtype=dtype), []
    try:
        return np.array(col, dtype=dtype), []
    except TypeError:  # int(None)
        return None, [i for i, v in enumerate(col) if v is None]


def _as_list(got: Any, double: bool) -> list[Any]:
    if isinstance(got, list):
        return got
    if hasattr(got, "to_pylist"):  # pyarrow
        return got.to_pylist()  # type: ignore[no-any-return]
    if hasattr(got, "tolist"):  # numpy
        if double and getattr(got.dtype, "kind", "") in "iub":  # integers for a DOUBLE: as floats, in C
            got = got.astype("float64")
        return got.tolist()  # type: ignore[no-any-return]
    return list(got)


def _floats(got: Any, values: list[Any]) -> bool:
    """True when every value is already a float or None (a DOUBLE result needs no converting)."""
    dtype = getattr(got, "dtype", None)  # NumPy
    if dtype is not None:
        return getattr(dtype, "kind", "") in "fiub"  # ``_as_list`` made them floats
    kind = str(getattr(got, "type", ""))  # Arrow
    if kind:
        return kind in ("double", "float", "halffloat")
    return set(map(type, values)) <= _FLOAT_OR_NULL


__all__ = ["Mode", "NullArgumentError", "batch_adapter"]
