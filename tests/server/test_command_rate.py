"""``ksql.server.command.topic.rate.limit`` (server/command_rate.py): each distributed statement takes a permit
before it is written to the command topic, waiting up to a second for one (Guava's tryAcquire(1, SECONDS)); a
statement that gets none is refused with 429 / 42900, the statements before it in the request having run.
Statements that write no command (SHOW, INSERT VALUES, IF NOT EXISTS on an existing source) take none."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")

from app_client import serving  # noqa: E402

from ksqlpy.server.app import create_app  # noqa: E402
from ksqlpy.server.command_rate import COMMAND_RATE_MESSAGE, command_rate_limiter  # noqa: E402
from ksqlpy.server.config import ConfigError, build_config  # noqa: E402
from ksqlpy.server.pull_limits import RateLimiter  # noqa: E402

REFUSED = {"@type": "generic_error", "error_code": 42900, "message": COMMAND_RATE_MESSAGE}


class Clock:
    def __init__(self) -> None:
        self.now = 50.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.slept.append(s)
        self.now += s


def test_try_acquire_waits_up_to_the_timeout() -> None:
    clock = Clock()
    r = RateLimiter(2, clock)
    assert r.try_acquire(1.0, clock.sleep) and clock.slept == []
    assert r.try_acquire(1.0, clock.sleep) and clock.slept == [0.5]  # due in half a second: waited for
    r = RateLimiter(0.5, clock)
    assert r.try_acquire(1.0, clock.sleep)
    assert not r.try_acquire(1.0, clock.sleep)  # due in two seconds: refused at once
    assert clock.slept == [0.5]


def test_setting_values(tmp_path: Any) -> None:
    def limiter(value: str) -> Any:
        return command_rate_limiter(build_config(data_dir=str(tmp_path),
                                                 overrides={"ksql.server.command.topic.rate.limit": value}))

    assert command_rate_limiter(build_config(data_dir=str(tmp_path))) is None
    assert limiter("1.7976931348623157E308") is None  # ksqlDB's default, Double.MAX_VALUE
    assert limiter("0.5").rate == 0.5
    with pytest.raises(ConfigError, match="ksql.server.command.topic.rate.limit"):
        limiter("fast")


@pytest.fixture
def client(tmp_path: Any) -> Iterator[Any]:
    config = build_config(data_dir=str(tmp_path), overrides={"ksql.logging.processing.stream.auto.create": "false",
                                                             "ksql.server.command.topic.rate.limit": "0.1"})
    with serving(create_app(config)) as c:
        yield c


def _create(name: str, extra: str = "") -> str:
    return (f"CREATE STREAM {extra}{name} (ID INT KEY, V STRING) WITH (kafka_topic='{name.lower()}', partitions=1, "
            "value_format='JSON');")


def test_statements_past_the_rate_are_refused(client: Any) -> None:
    r = client.post("/ksql", json={"ksql": _create("R1") + _create("R2")})
    assert r.status_code == 429 and r.json() == REFUSED, r.text
    names = [s["name"] for s in client.post("/ksql", json={"ksql": "SHOW STREAMS;"}).json()[0]["streams"]]
    assert "R1" in names and "R2" not in names  # the first ran, the second never did
    # no command written: IF NOT EXISTS on an existing stream, SHOW, INSERT VALUES
    r = client.post("/ksql", json={"ksql": _create("R1", "IF NOT EXISTS ") + "SHOW TOPICS;"
                                           "INSERT INTO R1 (ID, V) VALUES (1, 'a');"})
    assert r.status_code == 200, r.text
    assert client.post("/ksql", json={"ksql": "DROP STREAM R1;"}).json() == REFUSED  # due 10 s after R1
