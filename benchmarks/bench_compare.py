"""How long does the compare layout take to show a diff, as programs grow? (target: < 100 ms)

The diff runs in the GUI process (it is plain Python over the trace's records,
no JAX), when a comparison opens or a new result arrives, and for the vmap
pane's gutter marks on every result. Prints (never asserts; machines are
noisy), for convolve and for a chain of ``N`` layers (``x = tanh(x @ w) + x``,
three equations a layer) compared plain -> vmap and plain -> pmap, all measured
in one run, the median of 5 runs in ms:

* ``align``: the alignment alone (:func:`~jaxviz.views.compare.jaxpr_align.align` on the
  equations, as ``diff_variants`` calls it; target < 500 ms at 5,000 equations);
* ``diff``: :func:`~jaxviz.views.compare.jaxpr_diff.diff_variants` (the alignment,
  then every row's changed shapes, parameters and tokens);
* ``layout``: :func:`~jaxviz.views.compare.diff_layout.side_by_side`;
* ``view``: :meth:`~jaxviz.ui.compare.compare_view.CompareView.set_diff` on a
  shown 1280x600 view, until Qt has painted it (``diff`` and ``layout`` included);
* ``blocks``: how long :meth:`~jaxviz.ui.compare.compare_view.CompareView.show_result`
  holds the GUI thread (a big program is diffed in a thread: only the call).

The traces are made once, in this process (JAX on 8 simulated CPU devices),
before any timing.

    .venv/bin/python benchmarks/bench_compare.py
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TARGET_MS = 100.0
#: Issue 28: two 5,000-equation variants aligned in under 0.5 s.
ALIGN_TARGET_MS = 500.0
LAYERS = (10, 100, 400, 1667)
RUNS = 5
CHAIN = '''import jax.numpy as jnp


def chain(x, w):
    for _ in range({layers}):
        x = jnp.tanh(x @ w) + x
    return x
'''


def _median_ms(work, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _traces():
    from jaxviz import core
    from jaxviz.model import Target, TraceRequest
    from jaxviz.model.sources import resolve_target

    core.configure_devices(8)
    out = []
    target, declared = resolve_target("example:convolve")
    out.append(("convolve", core.trace_request(TraceRequest(
        target=target, variants=["plain", "vmap", "pmap"], args=declared["args"],
        batched_args=declared["batched_args"], in_axes=declared["in_axes"],
        axis_name=declared["axis_name"]))))
    folder = Path(tempfile.mkdtemp(prefix="jaxviz-bench-compare-"))
    for layers in LAYERS:
        path = folder / f"chain_{layers}.py"
        path.write_text(CHAIN.format(layers=layers))
        target = Target(path.read_text(), str(path), "chain")
        out.append((f"chain of {layers} ({3 * layers} eqns)", core.trace_request(TraceRequest(
            target=target, variants=["plain", "vmap", "pmap"], args="f32[16], f32[16,16]",
            in_axes="0, None"))))
    return out


def _align(left, right):
    """The alignment step of ``diff_variants`` alone."""
    from jaxviz.views.compare import jaxpr_diff
    from jaxviz.views.compare.jaxpr_align import align

    a, b = jaxpr_diff._items(left), jaxpr_diff._items(right)
    return align(a, b, key=lambda it: it.key, affinity=jaxpr_diff._signature_affinity(),
                 order=jaxpr_diff._Item.describe)


def main() -> int:
    traces = _traces()
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.compare.compare_view import CompareView
    from jaxviz.ui.theme import style
    from jaxviz.views.compare.diff_layout import side_by_side
    from jaxviz.views.compare.jaxpr_diff import diff_variants

    app = QApplication(sys.argv[:1])
    style.apply_theme(app)
    view = CompareView()
    view.resize(1280, 600)
    view.show()
    app.processEvents()
    print(f"load average {os.getloadavg()[0]:.2f}; median of {RUNS} runs, ms; "
          f"target < {TARGET_MS:.0f} ms for the view")
    print(f"{'program':34} {'pair':14} {'align':>8} {'diff':>8} {'layout':>8} {'view':>8} "
          f"{'blocks':>8}")
    for name, result in traces:
        for right in ("vmap", "pmap"):
            left_vr, right_vr = result.variant("plain"), result.variant(right)
            if not (left_vr.ok and right_vr.ok):
                print(f"{name:34} plain->{right:7} failed to trace")
                continue
            diff = diff_variants(left_vr, right_vr)
            t_align = _median_ms(lambda a=left_vr, b=right_vr: _align(a, b))
            t_diff = _median_ms(lambda a=left_vr, b=right_vr: diff_variants(a, b))
            t_layout = _median_ms(lambda d=diff: side_by_side(d))

            def show(a=left_vr, b=right_vr) -> None:
                view.set_diff(diff_variants(a, b))
                view.repaint()
                app.processEvents()

            t_view = _median_ms(show)

            def open_pair(pair=("plain", right), r=result) -> None:
                view.set_pair(*pair)
                view.show_result(r)

            t_blocks = _median_ms(open_pair, runs=1)
            while view.busy:
                app.processEvents()
                time.sleep(0.01)
            flag = "" if t_view < TARGET_MS else "  (view over target)"
            if t_align > ALIGN_TARGET_MS:
                flag += "  (align over target)"
            print(f"{name:34} plain->{right:7} {t_align:8.1f} {t_diff:8.1f} {t_layout:8.1f} "
                  f"{t_view:8.1f} {t_blocks:8.1f}{flag}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
