"""JSON whose non-integer numbers stay exact, with the text they were written as.

ksqlDB's harness reads expected values and actual JSON output as BigDecimal, so ``1.10`` and ``1.1``
are different decimals there. We parse such numbers as :class:`JsonNumber` (a ``Decimal`` that also
remembers its source text) so the comparison rules in ``compare`` can tell how a number was written.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


class JsonNumber(Decimal):
    """A JSON number with a fraction or an exponent, exact, plus the text it was written as."""

    text: str

    def __new__(cls, text: str) -> JsonNumber:
        self = super().__new__(cls, text)
        self.text = text
        return self

    @property
    def scientific(self) -> bool:
        """Written with an exponent (``1.0E7``): Java and Python disagree on when to do that."""
        return "e" in self.text or "E" in self.text


class JavaLong(int):
    """An integer read back where ksqlDB's harness holds a Long whatever its size (AVRO ``long``, KAFKA
    BIGINT); a plain int is what Jackson makes of a JSON integer (Integer, Long or BigInteger by size)."""


def loads(data: str | bytes) -> Any:
    """Parse standard JSON; integers as int, other numbers as JsonNumber. Bare NaN/Infinity tokens are
    rejected (Jackson rejects them too; ksqlDB writes such doubles as the strings "NaN", "Infinity")."""
    return json.loads(data, parse_float=JsonNumber, parse_constant=_reject_constant)


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


def dumps(value: Any) -> str:
    """Serialize a spec value as compact JSON, writing exact numbers exactly as they were read."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, JsonNumber):
        out.append(value.text)
    elif isinstance(value, Decimal):
        out.append(str(value))
    elif isinstance(value, int | float):
        out.append(json.dumps(value))
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, dict):
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(json.dumps(str(k), ensure_ascii=False))
            out.append(":")
            _write(v, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _write(v, out)
        out.append("]")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as JSON")
