"""Reading QTT files leniently: ksqlDB's loader accepts ``//`` line comments, so we do too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ksqlpy.testing import exactjson


def strip_comments(text: str) -> str:
    """Remove ``//`` comments that are outside JSON strings (``"a//b"`` is kept)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\" and i + 1 < n:
                out.append(text[i : i + 2])
                i += 2
                continue
            if c == '"':
                in_string = False
            out.append(c)
            i += 1
        elif c == '"':
            in_string = True
            out.append(c)
            i += 1
        elif c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def load_text(text: str) -> Any:
    """Parse lenient JSON text (numbers exact, see ``exactjson``)."""
    return exactjson.loads(strip_comments(text))


def load_file(path: str | Path) -> dict[str, Any]:
    """Load a QTT file: ``{"tests": [...]}`` (a bare list of cases is accepted too)."""
    data = load_text(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, list):
        data = {"tests": data}
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        raise ValueError("not a QTT file: expected an object with a 'tests' list")
    return data
