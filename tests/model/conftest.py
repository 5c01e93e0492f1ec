"""Fixtures for the model tests that need real traces (JAX runs in this process).

Most model tests need no JAX at all: the traces are made only when a test asks
for them, and once for the whole session.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def traced():
    """Every gallery example, all its declared variants, traced once (8 simulated devices)."""
    from jaxviz import core
    from jaxviz.model import list_examples
    from tests.core.conftest import example_request  # configures 8 devices before JAX starts

    return {ex.name: core.trace_request(example_request(ex.name)) for ex in list_examples()}
