"""Engines never outlive their client, even when the client dies mid-request."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.engine import READY_S, alive

# Not in the fast tier: real engine processes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def test_engines_exit_when_the_client_process_dies(tmp_path):
    marker = tmp_path / "running"
    code = f"""
import os, time
from jaxviz.engine import EngineClient
from tests.helpers.engine import trace, wait_for_file
from pathlib import Path
c = EngineClient(devices=1, standby=True)
c.start(wait=True)
c.submit(trace("open({str(marker)!r}, 'w').close()\\nwhile True:\\n    pass"))
wait_for_file(Path({str(marker)!r}))
deadline = time.monotonic() + {READY_S}
while (c._pool.spare is None or not c._pool.spare.ready) and time.monotonic() < deadline:
    time.sleep(0.05)
print(c.info.pid, c._pool.spare.pid, flush=True)
os._exit(0)  # no stop(): the client just dies, with a request running
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=2 * READY_S)
    assert out.returncode == 0, out.stderr
    busy, spare = map(int, out.stdout.split())
    deadline = time.monotonic() + 30
    while (alive(busy) or alive(spare)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(busy), "the engine running user code outlived its client"
    assert not alive(spare), "the standby engine outlived its client"
