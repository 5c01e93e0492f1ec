"""Engine tests: real engine processes (no display), shared where a test does not need its own.

Every wait is bounded; the bounds are generous because the machine is small
and shared.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jaxviz.engine import EngineClient
from tests.helpers.engine import READY_S, Events


@pytest.fixture(scope="module")
def events() -> Events:
    return Events()


@pytest.fixture(scope="module")
def client(events: Events) -> Iterator[EngineClient]:
    """A 4-device engine shared by a module's tests (with a standby for fast restarts)."""
    c = EngineClient(devices=4, timeout=60.0, on_event=events)
    c.start()
    c.wait_ready(READY_S)
    yield c
    c.stop()
