"""Doc-style scenarios (the docs_scenarios package, one module per page family) against a real server, each answer right / different / failing."""

from __future__ import annotations

import pytest
from docs_runner import Runner, report, tally
from docs_scenarios import SCENARIOS

from ksqlpy.testing.server_process import ServerProcess

pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize("http2", [False, True], ids=["http1", "http2"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_doc_scenario(docs_server: ServerProcess, name: str, http2: bool) -> None:
    runner = Runner(docs_server.url, http2=http2)
    try:
        for step in SCENARIOS[name](f"{name[:4].upper()}{'H2' if http2 else 'H1'}_"):
            runner.run(step)
        print(f"\n{name}: {report(runner.results)}")
        assert tally(runner.results)["right"] == len(runner.results), report(runner.results)
    finally:
        runner.close()


def test_scenario_prefixes_are_distinct() -> None:
    """Scenarios share one server and name their objects after their first four letters."""
    prefixes = [name[:4].upper() for name in SCENARIOS]
    assert len(set(prefixes)) == len(prefixes), sorted(prefixes)
