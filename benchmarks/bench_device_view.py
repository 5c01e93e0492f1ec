"""Frames per second of the device-view animation at 8, 64 and 256 devices, offscreen.

Draws the animation the way the widget does -- each phase's static layer once
into a pixmap, then every frame the pixmap plus the moving parts -- into a
1280x720 image, through every phase at 24 time steps. Storyboards are those of
the tensor-parallel example on a square-ish mesh (x split by rows over
``data`` and shared along ``model``, w by columns over ``model`` and shared
along ``data``, out over both) with a ``psum`` over ``model`` added, built as
valid records without starting JAX, so the 256-device case costs no
256-device backend.

Run: python benchmarks/bench_device_view.py [--size 1280x720] [--steps 24]

With ``--result result.json`` (a traced result in the model codec's form, such as
``bench_big_program.py --keep`` writes: a 12-layer train step) it measures the widget
itself instead, offscreen: ``DeviceView.set_result`` of the result's ``--variant``
until the view is no longer busy (its scene built and its first layer drawn, in steps),
then playing from the first phase and from the middle, ``--play`` seconds each. It
prints the frames per second the canvas painted, and the GUI thread's CPU time of the
most expensive event of each kind (a paint, the turn of a job in steps, a timer) --
the time the event loop could not turn, whatever the load on the machine -- against one
frame (17 ms); and the load average.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from jaxviz.model import (  # noqa: E402
    ArrayTiles,
    CollectiveOp,
    DeviceInfo,
    Equation,
    MeshInfo,
    Step,
    Storyboard,
    SubJaxpr,
    Tile,
    TraceResult,
    VariantResult,
    VarInfo,
)


def fake_result(rows: int, cols: int) -> TraceResult:
    """A shard_map matmul on a rows x cols mesh with a psum over ``model``, as a storyboard."""
    n = rows * cols
    mesh = MeshInfo(["data", "model"], [rows, cols], list(range(n)))
    m, k, o = 4 * rows, 64, 4 * cols

    def array(name, role, shape, split_rows, split_cols, spec):
        holders: dict[tuple, list[int]] = {}
        for d in range(n):
            r, c = divmod(d, cols)
            a = (r * shape[0] // rows, (r + 1) * shape[0] // rows) if split_rows else (0, shape[0])
            b = (c * shape[1] // cols, (c + 1) * shape[1] // cols) if split_cols else (0, shape[1])
            holders.setdefault((a, b), []).append(d)
        tiles = [Tile([list(a), list(b)], devs) for (a, b), devs in sorted(holders.items())]
        first = tiles[0].index
        return ArrayTiles(name, role, list(shape), "f32", spec, [b - a for a, b in first], tiles,
                          list(range(n)), False, [["data"] if split_rows else [],
                                                  ["model"] if split_cols else []])

    def var(shape):
        return VarInfo("a", list(shape), "f32")

    body = [Equation("dot_general", {}, [var([4, k]), var([k, 4])], [var([4, 4])],
                     text_start=3, text_end=3),
            Equation("psum", {"axes": "('model',)"}, [var([4, 4])], [var([4, 4])],
                     text_start=4, text_end=4),
            Equation("tanh", {}, [var([4, 4])], [var([4, 4])], text_start=5, text_end=5)]
    shard_map = Equation("shard_map", {}, [var([m, k]), var([k, o])], [var([m, o])],
                         text_start=1, text_end=7,
                         subjaxprs=[SubJaxpr("jaxpr", [var([4, k]), var([k, 4])],
                                             [var([4, 4])], body)])
    groups = [list(range(r * cols, (r + 1) * cols)) for r in range(rows)]
    story = Storyboard(
        variant="shard_map", one_program=True, mesh=mesh, devices=list(range(n)),
        processes=[0] * n,
        arrays=[array("x", "input", (m, k), True, False, "P('data', None)"),
                array("w", "input", (k, o), False, True, "P(None, 'model')"),
                array("out", "output", (m, o), True, True, "P('data', 'model')")],
        steps=[Step("compute", [1], ["dot_general"], [16], ["f32[4,64]", "f32[64,4]"],
                    ["f32[4,4]"]),
               Step("collective", [2], ["psum"], [16], ["f32[4,4]"], ["f32[4,4]"],
                    collective=CollectiveOp("all-reduce", "sum", groups,
                                            mesh_axes=["model"])),
               Step("compute", [3], ["tanh"], [16], ["f32[4,4]"], ["f32[4,4]"])])
    vr = VariantResult(
        variant="shard_map", call=f"shard_map(layer) on mesh data={rows},model={cols}",
        jaxpr_text="\n".join(f"line {i}" for i in range(9)), equations=[shard_map], mesh=mesh,
        storyboard=story)
    return TraceResult(function="layer", filename="<bench>", simulated=True, variants=[vr],
                       devices=[DeviceInfo(d, "cpu", "cpu", 0) for d in range(n)])


def measure(result: TraceResult, width: int, height: int, steps: int) -> tuple[float, float, int]:
    """(animated fps with cached static layers, fps drawing every layer, phases)."""
    from PySide6.QtGui import QImage, QPainter, QPixmap

    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    renderer = Renderer(build_scene(result, result.variants[0].variant), width, height)
    phases = renderer.phase_count
    target = QImage(width, height, QImage.Format.Format_RGB32)
    fb, painter = renderer.builder, renderer.painter
    frames = 0
    start = time.perf_counter()
    for i in range(phases):
        pix = QPixmap(width, height)
        p = QPainter(pix)
        painter.draw(p, fb.static(i))
        p.end()
        for s in range(steps):
            p = QPainter(target)
            p.drawPixmap(0, 0, pix)
            painter.draw(p, fb.dynamic(i, s / (steps - 1)))
            p.end()
            frames += 1
    cached = frames / (time.perf_counter() - start)
    start = time.perf_counter()
    full = 0
    for i in range(phases):
        for t in (0.25, 0.75):
            renderer.image(i, t)
            full += 1
    uncached = full / (time.perf_counter() - start)
    return cached, uncached, phases


FRAME_MS = 17.0


def widget(path: str, variant: str, width: int, height: int, play_s: float) -> None:
    """The ``DeviceView`` widget on a traced result: its loading and playing, event by
    event (see the module's docstring)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from heartbeat import StallLog

    from jaxviz.model import from_plain
    from jaxviz.ui.devices.view import DeviceView
    from jaxviz.ui.theme import style

    log = StallLog(0.0)  # every event, with its CPU time
    app = log.application(sys.argv[:1])
    style.apply_theme(app)
    result = from_plain(json.loads(Path(path).read_text()))
    view = DeviceView()
    view.resize(width, height)
    view.show()
    app.processEvents()

    def run_for(seconds: float, until=lambda: True) -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end or not until():
            app.processEvents()
            time.sleep(0.001)

    def worst(title: str) -> None:
        by_name: dict[str, list[float]] = {}
        for _ms, name, cpu in log.stalls:
            by_name.setdefault(name, []).append(cpu)
        ranked = sorted(by_name.items(), key=lambda kv: -max(kv[1]))[:5]
        print(f"  {title}: the GUI thread's CPU ms of the most expensive events "
              f"(target <= {FRAME_MS:.0f} each)")
        for name, cpus in ranked:
            flag = "" if max(cpus) <= FRAME_MS else "  OVER"
            print(f"    {max(cpus):7.1f}  {name} (x{len(cpus)}){flag}")
        log.clear()

    log.clear()
    start, cpu = time.perf_counter(), time.thread_time()
    log.timed("DeviceView.set_result", view.set_result, result, variant)
    run_for(0.3, until=lambda: not view.busy and bool(view.phases))
    run_for(0.2)  # (and the paints that follow)
    print(f"DeviceView at {width}x{height} (canvas {view.canvas.width()}x"
          f"{view.canvas.height()}), {len(view.phases)} phases of {variant}: loaded in "
          f"{time.perf_counter() - start:.2f} s ({(time.thread_time() - cpu):.2f} s of CPU)")
    worst("loading")
    frames = [0]
    painted = view.canvas.paintEvent

    def counted(event) -> None:
        frames[0] += 1
        painted(event)

    view.canvas.paintEvent = counted  # type: ignore[method-assign]
    for first in (0, len(view.phases) // 2):
        view.seek(first, 0.0)
        run_for(0.3, until=lambda: not view.busy)  # (the jump there: not playing)
        log.clear()
        frames[0] = 0
        view.play()
        t0 = time.perf_counter()
        run_for(play_s)
        played = time.perf_counter() - t0
        view.pause()
        print(f"playing from phase {first}: {frames[0] / played:.1f} frames/s (target >= 30),"
              f" phases {first}->{view.current_phase}")
        worst("playing")
    import os

    print(f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--steps", type=int, default=24, help="frames per phase")
    parser.add_argument("--result", help="a traced result (JSON): measure the widget on it")
    parser.add_argument("--variant", default="sharded", help="with --result: the variant")
    parser.add_argument("--play", type=float, default=4.0,
                        help="with --result: seconds of playing, from the start and the middle")
    ns = parser.parse_args()
    width, height = (int(v) for v in ns.size.split("x"))
    if ns.result:
        widget(ns.result, ns.variant, width, height, ns.play)
        return
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841 - fonts need it
    print(f"device view, {width}x{height} offscreen, {ns.steps} frames per phase")
    print(f"{'devices':>8} {'mesh':>7} {'phases':>6} {'animated fps':>13} {'full-frame fps':>15}")
    for rows, cols in ((4, 2), (8, 8), (16, 16)):
        cached, full, phases = measure(fake_result(rows, cols), width, height, ns.steps)
        print(f"{rows * cols:>8} {f'{rows}x{cols}':>7} {phases:>6} {cached:>13.1f} {full:>15.1f}")


if __name__ == "__main__":
    main()
