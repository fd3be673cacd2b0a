"""Built-in functions whose call the code generator writes as the implementation's own Python text.

A call costs a Python frame (~60-100 ns) around work that is often one method of ``str`` - more than the
work itself for short strings, and the per-record loops of q14/q21/q22 make several per record. For the
implementations below, whose whole body is one such expression, ``Codegen`` pastes the expression in place
of the call: the results are the implementation's by construction (the same method on the same
operands). Keyed by the implementation object, so a function registered under the same name by someone
else is never inlined; only NULL-propagating calls (the operands are known non-NULL where the text runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ksqlpy.functions import string as S

# (is each operand a constant, its value) -> the body with {0}, {1}... for the operands and {impl} for the
# implementation's name, or None to call it as usual
Template = Callable[[Sequence[tuple[bool, Any]]], str | None]


def _split(args: Sequence[tuple[bool, Any]]) -> str | None:
    const, delim = args[1]
    # a non-empty literal delimiter: the implementation's own last line (an empty one splits characters)
    return "{0}.split({1})" if const and isinstance(delim, str | bytes) and delim else None


INLINE: dict[Callable[..., Any], Template] = {
    S._lcase: lambda _: "{0}.lower()",
    S._ucase: lambda _: "{0}.upper()",
    # String.replace by unit: ASCII text holds no half character; anything else goes to the implementation
    S._replace: lambda _: "({0}.replace({1}, {2}) if {0}.isascii() else {impl}({0}, {1}, {2}))",
    # String.length(): ASCII is one UTF-16 unit per character; anything else goes to the implementation
    S._len_str: lambda _: "(len({0}) if {0}.isascii() else {impl}({0}))",
    S._split: _split,
}


def inline_body(impl: Callable[..., Any], args: Sequence[tuple[bool, Any]]) -> str | None:
    """The inline body for a NULL-propagating call of ``impl`` on ``args`` (see ``Template``), if any."""
    try:
        template = INLINE.get(impl)
    except TypeError:  # an unhashable implementation object
        return None
    return template(args) if template is not None else None
