"""How much does `jaxviz jaxpr` cost over printing make_jaxpr in a plain script?

Prints the median wall time of ``jaxviz jaxpr example:convolve`` and of a
plain ``python -c`` script that imports jax and prints ``make_jaxpr`` of the
same function, measured alternately in one run, and their ratio (target <= 1.3).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 7
ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "convolve.py"

PLAIN = f"""
import importlib.util, jax
spec = importlib.util.spec_from_file_location("convolve", {str(EXAMPLE)!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(jax.make_jaxpr(m.convolve)(m.x, m.w))
"""


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    jaxviz_cmd = [sys.executable, "-m", "jaxviz", "jaxpr", "example:convolve"]
    plain_cmd = [sys.executable, "-c", PLAIN]
    a = subprocess.run(jaxviz_cmd, capture_output=True, text=True, check=True).stdout
    b = subprocess.run(plain_cmd, capture_output=True, text=True, check=True).stdout
    assert a == b, "jaxviz printed something else than make_jaxpr"
    jv, pl = [], []
    for _ in range(RUNS):
        jv.append(wall(jaxviz_cmd))
        pl.append(wall(plain_cmd))
    mj, mp = statistics.median(jv), statistics.median(pl)
    print(f"jaxviz jaxpr example:convolve   median {mj * 1000:7.0f} ms  (runs: {RUNS})")
    print(f"plain python make_jaxpr script  median {mp * 1000:7.0f} ms")
    print(f"ratio {mj / mp:.2f}  (target <= 1.3)")


if __name__ == "__main__":
    main()
