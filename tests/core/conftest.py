"""Shared fixtures for tests that run JAX in this process (8 simulated CPU devices)."""

from __future__ import annotations

import pytest

from jaxviz import core

core.configure_devices(8)


@pytest.fixture
def user_file(tmp_path):
    """Write source to a file and return a target string for it."""

    def make(source: str, function: str) -> str:
        path = tmp_path / "user_code.py"
        path.write_text(source)
        return f"{path}:{function}"

    return make
