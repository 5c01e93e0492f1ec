"""Code run in a fresh interpreter (offscreen Qt): for what a process does when it starts,
which this test process did long ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def run_fresh(code: str, timeout: float = 120) -> str:
    """What ``code`` printed, run by ``python -c`` with Qt offscreen (it must succeed)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=timeout, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert out.returncode == 0, out.stderr
    return out.stdout


def fresh_json(code: str) -> Any:
    """The JSON on the last line ``code`` printed in a fresh interpreter."""
    return json.loads(run_fresh(code).strip().splitlines()[-1])
