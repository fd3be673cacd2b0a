"""Text forms of values the way ksqlDB (Java) writes them: CAST(x AS STRING), DELIMITED fields,
string concatenation. Python's own str() differs for doubles, booleans and containers."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any


def double_str(v: float) -> str:
    """Java's Double.toString: plain notation for 1e-3 <= |v| < 1e7, else computerized scientific."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    a = abs(v)
    if 1e-3 <= a < 1e7:
        return repr(v)  # Python's repr is plain with a '.' in this range
    d = Decimal(repr(a)).normalize()
    digits = "".join(map(str, d.as_tuple().digits))
    sign = "-" if v < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{d.adjusted()}"


def decimal_str(v: Decimal) -> str:
    """BigDecimal.toPlainString-like for the scales ksqlDB uses."""
    return format(v, "f")


def value_str(v: Any) -> str:
    """Java String.valueOf of a SQL value (used for CAST to STRING of complex values)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return double_str(v)
    if isinstance(v, Decimal):
        return decimal_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(value_str(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{value_str(k)}={value_str(x)}" for k, x in v.items()) + "}"
    if isinstance(v, bytes):
        import base64

        return base64.b64encode(v).decode()
    return str(v)


def struct_str(v: dict) -> str:
    """Kafka Connect Struct.toString, which ksqlDB shows for CAST(struct AS STRING)."""
    return "Struct{" + ",".join(f"{k}={value_str(x)}" for k, x in v.items() if x is not None) + "}"
