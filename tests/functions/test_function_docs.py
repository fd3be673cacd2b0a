"""docs/functions.md is generated from the registry; this keeps it from drifting."""

from pathlib import Path

from ksqlpy.functions import builtin_registry
from ksqlpy.functions.docs import render_markdown


def test_function_reference_matches_the_registry() -> None:
    page = Path(__file__).parents[2] / "docs" / "functions.md"
    assert page.read_text() == render_markdown(builtin_registry()), (
        "docs/functions.md is stale: run `python -m ksqlpy.functions.docs > docs/functions.md`")
