"""Exactly-once refuses to start where it cannot hold: on a broker that shows aborted transactions to
read_committed readers (tansu, the test broker), an engine asked for ``exactly_once_v2`` is refused with
the broker's behaviour and the settings named, unless the operator accepts at-least-once
(``ksqlpy.processing.guarantee.accept.at.least.once``); the guarantee in force is logged and kept."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import pytest

pytest.importorskip("confluent_kafka")

from ksqlpy.engine import Engine  # noqa: E402
from ksqlpy.engine.guarantee import ACCEPT_AT_LEAST_ONCE, Guarantee, GuaranteeCannotHold  # noqa: E402


def _engine(tmp_path: Path, bootstrap: str, **props: str) -> Engine:
    return Engine(str(tmp_path / uuid.uuid4().hex[:8]), {"bootstrap.servers": bootstrap,
                                                       "ksql.service.id": f"g{uuid.uuid4().hex[:6]}_", **props})


def test_exactly_once_on_a_broker_showing_aborted_records_is_refused(tmp_path: Path, bootstrap: str) -> None:
    with pytest.raises(GuaranteeCannotHold) as caught:
        _engine(tmp_path, bootstrap, **{"processing.guarantee": "exactly_once_v2"})
    message = str(caught.value)
    assert "processing.guarantee=exactly_once_v2 cannot hold" in message
    assert "shows the records of aborted transactions to read_committed consumers" in message
    assert bootstrap in message
    assert f"{ACCEPT_AT_LEAST_ONCE}=true" in message and "processing.guarantee=at_least_once" in message
    # the refused engine released its data directory: another may open it
    _engine(tmp_path, bootstrap).close()


def test_the_prefixed_spelling_is_refused_too(tmp_path: Path, bootstrap: str) -> None:
    with pytest.raises(GuaranteeCannotHold):
        _engine(tmp_path, bootstrap, **{"ksql.streams.processing.guarantee": "exactly_once_v2"})


def test_accepted_at_least_once_starts_and_says_so(tmp_path: Path, bootstrap: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="ksqlpy.engine"):
        engine = _engine(tmp_path, bootstrap, **{"processing.guarantee": "exactly_once_v2",
                                                 ACCEPT_AT_LEAST_ONCE: "true"})
    try:
        assert engine.guarantee is not None and engine.guarantee.guarantee is Guarantee.AT_LEAST_ONCE
        said = [r for r in caplog.records if "processing guarantee in force" in r.getMessage()]
        assert said and said[0].levelno == logging.WARNING
        assert "at_least_once" in said[0].getMessage() and ACCEPT_AT_LEAST_ONCE in said[0].getMessage()
    finally:
        engine.close()


def test_at_least_once_is_what_it_says(tmp_path: Path, bootstrap: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="ksqlpy.engine"):
        engine = _engine(tmp_path, bootstrap)
    try:
        assert engine.guarantee is not None and engine.guarantee.guarantee is Guarantee.AT_LEAST_ONCE
        assert any("processing guarantee in force: at_least_once" in r.getMessage() for r in caplog.records)
    finally:
        engine.close()


def test_the_embedded_log_is_exactly_once(tmp_path: Path) -> None:
    engine = Engine(str(tmp_path / "e"), {"processing.guarantee": "exactly_once_v2"})
    try:
        assert engine.guarantee is not None and engine.guarantee.guarantee is Guarantee.EXACTLY_ONCE
    finally:
        engine.close()
