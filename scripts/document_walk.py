"""Issue 27's walk on a real screen: one document at a time, nothing off the screen.

    .venv/bin/python -m scripts.document_walk [OUT_DIR]        # default /tmp/jaxviz-walk

On its own Xvfb screen with openbox (1280x720, then 1920x1080), fresh settings, the
window maximized as a lecturer would: open an example, open a user file (shown, not
run, then traced), open a second user file, show a third pane, zoom +3, open a psum
example's Timing tab, present from the window (Shift+F5). After each step the whole
screen is saved as ``NN_step_WxH.png`` and the report line says what each view shows
(the function of the panes' and the device view's result, the timing view's ticks)
and where the window is by Qt and by the X server (xwininfo).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scripts.scripted import failed, report_from_screen

SIZES = ((1280, 720), (1920, 1080))
FILE_A = '''import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


def train_step(w, x):
    return w - 0.1 * jax.grad(loss)(w, x)


JAXVIZ = {"function": "train_step", "args": "f32[16,4], f32[8,16]"}
'''
FILE_B = '''import jax.numpy as jnp


def layer(x: "f32[8,32]", w: "f32[32,16]"):
    return jnp.maximum(x @ w, 0.0)
'''


def x_frame(window_id: int) -> list[int]:
    out = subprocess.run(["xwininfo", "-frame", "-id", str(window_id)], capture_output=True,
                         text=True, check=True, timeout=30).stdout
    return [int(re.search(rf"{key}:\s+(-?\d+)", out).group(1)) for key in  # type: ignore[union-attr]
            ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")]


def walk(out_dir: str, size: str, folder: str) -> int:
    """In a process on the virtual screen: the walk, a shot and a record per step."""
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui import app

    files = Path(folder)
    (files / "training.py").write_text(FILE_A)
    (files / "layer.py").write_text(FILE_B)
    records: list[dict[str, Any]] = []

    def on_shown(window) -> None:
        window.showMaximized()

        def traced() -> bool:
            r, d = window.state.result, window.state.details
            return (r is not None and d is not None and r.function == window.state.function
                    and d.function == window.state.function and not window.session.pending)

        def open_file(name: str) -> Callable[[], None]:
            def act() -> None:
                window.open_target(f"{files / name}")
            return act

        def trace() -> None:
            window.retrace()

        def third_pane() -> None:
            window.open_example("batched_matmul")

        def show_three() -> None:
            window.state.visible_variants = ["plain", "vmap", "pmap"]

        def devices() -> None:
            window.show_tool(window.tools.devices)

        def timing() -> None:
            window.open_example("psum_ones")

        def timing_tab() -> None:
            window.show_tool(window.tools.timing)

        def present() -> None:
            window.actions_by_name["present"].trigger()

        always = lambda: True  # noqa: E731
        steps: list[tuple[str, Callable[[], None], Callable[[], bool]]] = [
            ("example", lambda: window.open_example("convolve"), traced),
            ("example_devices", devices, lambda: bool(window.tools.devices.view
                                                      and window.tools.devices.view.phases)),
            ("file_not_run", open_file("training.py"), always),
            ("file_traced", trace, traced),
            ("second_file_traced", lambda: (open_file("layer.py")(), trace()), traced),
            ("third_pane", third_pane, traced),
            ("three_panes", show_three, traced),
            ("zoom_plus_3", lambda: window.set_zoom(3), always),
            ("psum_timing", lambda: (window.set_zoom(0), timing()), traced),
            ("psum_timing_tab", timing_tab, lambda: window.tools.timing.view is not None),
            ("present", present, lambda: window.presentation.presentation is not None),
        ]
        state = {"step": -1, "since": 0.0, "ready": False}

        def record(name: str) -> dict[str, Any]:
            view = window.tools.devices.view
            timing_view = window.tools.timing.view
            frame = window.frameGeometry().getRect()
            screen = window.screen().availableGeometry().getRect()
            result = window.state.result
            return {
                "step": name, "title": window.windowTitle(), "function": window.state.function,
                "panes_result_of": result.function if result is not None else None,
                "panes": window.state.shown_variants(), "pane_mode": window.area.effective_mode(),
                "pane_texts": {v: window.area.panes[v].jaxpr_view.toPlainText()[:60]
                               for v in window.state.shown_variants()},
                "devices_of": (view.result.function if view is not None and view.result
                               else None),
                "timing_ticked": (timing_view.controls.checked_variants()
                                  if timing_view is not None else None),
                "timing_banner": timing_view.banner.text() if timing_view is not None else None,
                "status": window.status_text.text(), "qt_frame": list(frame),
                "screen": list(screen), "x_frame": x_frame(int(window.winId())),
                "zoom": window.state.zoom,
            }

        def poll() -> None:
            now = time.monotonic()
            if state["step"] == -1:
                if traced() and now > state["since"] + 2:
                    state["step"], state["since"], state["ready"] = 0, now, False
                    steps[0][1]()
            elif state["step"] < len(steps):
                name, _act, ready = steps[state["step"]]
                if not state["ready"]:
                    if ready():
                        state["ready"], state["since"] = True, now
                elif now - state["since"] > 1.5:  # every view painted
                    n = state["step"]
                    path = Path(out_dir) / f"{n + 1:02d}_{name}_{size}.png"
                    QGuiApplication.primaryScreen().grabWindow(0).save(str(path))
                    records.append(record(name))
                    state["step"] += 1
                    if state["step"] < len(steps):
                        state["ready"] = False
                        steps[state["step"]][1]()
                    else:
                        print(json.dumps({"records": records}), flush=True)
                        presentation = window.presentation.presentation
                        if presentation is not None:
                            presentation.close()
                        window.close()
                        return
            QTimer.singleShot(100, poll)

        state["since"] = time.monotonic()
        QTimer.singleShot(100, poll)

    return app.main(["example:normalize"], on_shown=on_shown)


def main(out_dir: Path) -> int:
    import tempfile

    out_dir.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        folder = tempfile.mkdtemp(prefix="jaxviz-walk-files-")
        report, stderr = report_from_screen(
            [sys.executable, "-m", "scripts.document_walk", "--walk", str(out_dir),
             f"{width}x{height}", folder], width, height, timeout=900)
        if failed(f"{width}x{height}", report, stderr):
            return 1
        (out_dir / f"walk_{width}x{height}.json").write_text(json.dumps(report, indent=1))
        for r in report["records"]:
            x, y, w, h = r["x_frame"]
            on = x >= 0 and y >= 0 and x + w <= width and y + h <= height
            print(f"{width}x{height} {r['step']:<20} on screen: {on}  x {r['x_frame']} "
                  f"fn {r['function']} panes of {r['panes_result_of']} devices of "
                  f"{r['devices_of']} mode {r['pane_mode']} ticked {r['timing_ticked']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--walk"]:
        sys.exit(walk(*sys.argv[2:5]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/jaxviz-walk")))
