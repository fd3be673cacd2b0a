"""A batch of input rows held as its decoded parts, read column by column.

A stage without a per-record loop (``ksqlpy.plan.codegen._columnar``) only reads whole columns: the key
column for the output, the arguments of a vectorized call. Building a row tuple per record for it (the
value decoded into a struct, the struct into a tuple, the key tuple prepended: ~95 ns a record) is work it
throws away. ``ColumnRows`` keeps the key tuples and the value structs the reader decoded
(``ksqlpy.serde.json_fast``) - or the value columns the DELIMITED reader split the batch into - and builds
a column the first time the stage asks for it, in C (``map(itemgetter)`` over the keys, ``map(attrgetter)``
over the structs); columns nobody reads are never built.

Anything that reads it as rows - a stage that loops, a processing-log entry, a wrapper - gets the same
tuples the row reader would have built (``materialize``, once). So the reader may hand it to any consumer;
it does so only to a stage that gains from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter, itemgetter
from typing import Any, overload

import msgspec


class ColumnRows(Sequence[tuple]):
    """The rows ``keys[i] + values[i]`` of a batch, by column on demand. The values are either one struct
    per record (``values``, field ``f<j>`` is value column j) or already columns (``value_columns``, as
    the DELIMITED reader splits a batch)."""

    __slots__ = ("_columns", "_rows", "keys", "n", "n_keys", "value_columns", "values")

    def __init__(self, keys: list[tuple] | None, n_keys: int, values: list[msgspec.Struct] | None = None,
                 value_columns: list[list[Any]] | None = None) -> None:
        self.keys = keys  # the key tuples (None: the source has no key columns)
        self.n_keys = n_keys
        self.values = values
        self.value_columns = value_columns
        self.n = len(values) if values is not None else len(value_columns[0]) if value_columns else 0
        self._columns: dict[int, list[Any]] = {}
        self._rows: list[tuple] | None = None

    def column(self, pos: int) -> list[Any]:
        """Column ``pos`` of the row layout (key columns, then value columns), built once."""
        col = self._columns.get(pos)
        if col is None:
            if self._rows is not None:
                col = list(map(itemgetter(pos), self._rows))
            elif pos < self.n_keys:
                assert self.keys is not None
                col = list(map(itemgetter(pos), self.keys))
            elif self.value_columns is not None:
                return self.value_columns[pos - self.n_keys]
            else:
                assert self.values is not None
                col = list(map(attrgetter(f"f{pos - self.n_keys}"), self.values))
            self._columns[pos] = col
        return col

    def group(self, positions: tuple[int, ...]) -> Iterable[tuple]:
        """The tuples of columns ``positions`` record by record (an output group made only of columns).
        All value columns in order are the structs as tuples (``astuple``: one C call a record, cheaper
        than gathering them column by column)."""
        if self._rows is not None:
            if len(positions) == 1:
                return zip(map(itemgetter(positions[0]), self._rows))
            return map(itemgetter(*positions), self._rows)
        if self.values and positions == tuple(range(self.n_keys, self.n_keys + len(self.values[0].__struct_fields__))):
            return map(msgspec.structs.astuple, self.values)
        return zip(*map(self.column, positions), strict=True)

    def materialize(self) -> list[tuple]:
        """The row tuples, as the row reader builds them."""
        if self._rows is None:
            values: list[tuple] = (list(zip(*self.value_columns, strict=True)) if self.value_columns is not None
                                   else list(map(msgspec.structs.astuple, self.values or ())))
            if self.keys is not None and self.n_keys:
                try:
                    self._rows = list(map(tuple.__add__, self.keys, values))
                except TypeError:  # a key serde's key that is not a tuple (the row reader's tuple(key))
                    self._rows = [tuple(k) + v for k, v in zip(self.keys, values, strict=True)]
            else:
                self._rows = values
        return self._rows

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> tuple: ...

    @overload
    def __getitem__(self, i: slice) -> list[tuple]: ...

    def __getitem__(self, i: int | slice) -> tuple | list[tuple]:
        return self.materialize()[i]

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.materialize())


def rows_of(rows: Sequence[tuple]) -> Sequence[tuple]:
    """``rows`` as a list of tuples (a per-record loop indexes them)."""
    return rows.materialize() if rows.__class__ is ColumnRows else rows  # type: ignore[attr-defined]


def column_of(rows: Sequence[tuple], pos: int) -> list[Any]:
    """Column ``pos`` of ``rows`` as a new list (a vectorized function may change the list it is given;
    the batch's own column may also be an output)."""
    if rows.__class__ is ColumnRows:
        return list(rows.column(pos))  # type: ignore[attr-defined]
    return list(map(itemgetter(pos), rows))


__all__ = ["ColumnRows", "column_of", "rows_of"]
