"""Suite-wide settings: 8 simulated CPU devices for in-process JAX, no display for Qt.

Both are environment variables, so nothing here imports JAX or Qt: each test
module imports what it needs.
"""

import os

# jax reads JAX_NUM_CPU_DEVICES when its backend starts (engine processes
# override it with their own --devices).
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def traced():
    """Every gallery example, all its declared variants, traced once (8 simulated devices).

    JAX runs in this process, and only when a test asks for the traces.
    """
    from jaxviz import core
    from jaxviz.model import list_examples
    from tests.helpers.jax_requests import example_request  # configures 8 devices before JAX starts

    return {ex.name: core.trace_request(example_request(ex.name)) for ex in list_examples()}
