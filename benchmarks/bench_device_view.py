"""Frames per second of the device-view animation at 8, 64 and 256 devices, offscreen.

Draws the animation the way the widget does -- each phase's static layer once
into a pixmap, then every frame the pixmap plus the moving parts -- into a
1280x720 image, through every phase at 24 time steps. Layouts are those of
the tensor-parallel example on a square-ish mesh (x split by rows over
``data``, w by columns over ``model``, out over both) with a ``psum`` over
``model`` added, built as valid records without starting JAX, so the
256-device case costs no 256-device backend.

Run: python benchmarks/bench_device_view.py [--size 1280x720] [--steps 24]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from jaxviz.model import (  # noqa: E402
    ArrayLayout,
    DeviceInfo,
    Equation,
    MeshInfo,
    ShardInfo,
    SubJaxpr,
    TraceResult,
    VariantResult,
    VarInfo,
)


def fake_result(rows: int, cols: int) -> TraceResult:
    """A sharded matmul on a rows x cols mesh, with a psum over the column axis."""
    n = rows * cols
    mesh = MeshInfo(["data", "model"], [rows, cols], list(range(n)))
    m, k, o = 4 * rows, 64, 4 * cols

    def layout(name, role, shape, split_rows, split_cols, spec):
        shards = []
        for d in range(n):
            r, c = divmod(d, cols)
            a = [r * shape[0] // rows, (r + 1) * shape[0] // rows] if split_rows else [0, shape[0]]
            b = [c * shape[1] // cols, (c + 1) * shape[1] // cols] if split_cols else [0, shape[1]]
            shards.append(ShardInfo(d, [a, b]))
        local = [a[1] - a[0] for a in (shards[0].index[0],)] + [shards[0].index[1][1] -
                                                                 shards[0].index[1][0]]
        return ArrayLayout(name, role, list(shape), "f32", "NamedSharding", spec, False, local,
                           shards)

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
    vr = VariantResult(
        variant="shard_map", call=f"shard_map(layer) on mesh data={rows},model={cols}",
        jaxpr_text="\n".join(f"line {i}" for i in range(9)), equations=[shard_map], mesh=mesh,
        arrays=[layout("x", "input", (m, k), True, False, "P('data', None)"),
                layout("w", "input", (k, o), False, True, "P(None, 'model')"),
                layout("out", "output", (m, o), True, True, "P('data', 'model')")],
        collectives=["psum"])
    return TraceResult(function="layer", filename="<bench>", simulated=True, variants=[vr],
                       devices=[DeviceInfo(d, "cpu", "cpu", 0) for d in range(n)])


def measure(result: TraceResult, width: int, height: int, steps: int) -> tuple[float, float, int]:
    """(animated fps with cached static layers, fps drawing every layer, phases)."""
    from PySide6.QtGui import QImage, QPainter, QPixmap

    from jaxviz.scene import build_scene
    from jaxviz.ui.device_view.export import Renderer

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--steps", type=int, default=24, help="frames per phase")
    ns = parser.parse_args()
    width, height = (int(v) for v in ns.size.split("x"))
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])  # noqa: F841 - fonts need it
    print(f"device view, {width}x{height} offscreen, {ns.steps} frames per phase")
    print(f"{'devices':>8} {'mesh':>7} {'phases':>6} {'animated fps':>13} {'full-frame fps':>15}")
    for rows, cols in ((4, 2), (8, 8), (16, 16)):
        cached, full, phases = measure(fake_result(rows, cols), width, height, ns.steps)
        print(f"{rows * cols:>8} {f'{rows}x{cols}':>7} {phases:>6} {cached:>13.1f} {full:>15.1f}")


if __name__ == "__main__":
    main()
