"""/inserts-stream's ack body for every count of rows, none included: a request of only the header line
writes nothing (delimited) or ``[]`` (application/json) and ends, as ksqlDB's InsertsStreamEndpoint answers
a client that ends its request at once (from memory of its InsertsSubscriber/AcksSubscriber)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from ksqlpy.log.base import ProducerRecord
from ksqlpy.server.inserts import acks


class _Inserter:
    """Rows are JSON objects with an integer ``ID``; anything else is the row's own fault (40000)."""

    class source:  # noqa: N801 - the attributes acks reads of a source
        name = "S"
        topic = "s"

    def __init__(self) -> None:
        self.written: list[ProducerRecord] = []

    def parse(self, line: bytes) -> ProducerRecord:
        row = orjson.loads(line)
        if not isinstance(row.get("ID"), int):
            raise ValueError("Key field must be specified: ID")
        return ProducerRecord("s", None, line, 0)

    def write(self, records: list[ProducerRecord]) -> None:
        self.written.extend(records)


async def _batches(*groups: list[bytes]) -> AsyncIterator[list[bytes]]:
    for g in groups:
        yield g


def _body(first: list[bytes], groups: list[list[bytes]], json_array: bool) -> tuple[bytes, _Inserter]:
    inserter = _Inserter()

    async def run() -> bytes:
        return b"".join([c async for c in acks(inserter, first, _batches(*groups), json_array)])  # type: ignore[arg-type]

    return asyncio.run(run()), inserter


@pytest.mark.parametrize("json_array, expected", [(True, b"[]"), (False, b"")])
def test_no_rows_after_the_header_end_the_body_at_once(json_array: bool, expected: bytes) -> None:
    body, inserter = _body([], [], json_array)
    assert body == expected and inserter.written == []


@pytest.mark.parametrize("json_array", [True, False])
def test_acks_number_rows_across_batches_from_zero(json_array: bool) -> None:
    body, inserter = _body([b'{"ID":1}'], [[b'{"ID":2}', b'{"ID":3}'], [b'{"ID":4}']], json_array)
    items: list[Any] = (orjson.loads(body) if json_array
                        else [orjson.loads(line) for line in body.splitlines()])
    assert items == [{"status": "ok", "seq": n} for n in range(4)]
    assert len(inserter.written) == 4


@pytest.mark.parametrize("json_array", [True, False])
def test_the_first_failing_row_is_the_last_ack(json_array: bool) -> None:
    body, inserter = _body([], [[b'{"ID":1}', b'{"V":2}', b'{"ID":3}'], [b'{"ID":4}']], json_array)
    items: list[Any] = (orjson.loads(body) if json_array
                        else [orjson.loads(line) for line in body.splitlines()])
    assert items[0] == {"status": "ok", "seq": 0}
    assert items[1]["status"] == "error" and items[1]["seq"] == 1 and items[1]["error_code"] == 40000
    assert len(items) == 2 and len(inserter.written) == 1
