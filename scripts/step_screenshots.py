"""The README's step-mode screenshots, made by the real window on a real engine.

    .venv/bin/python scripts/step_screenshots.py [OUT_DIR]      # default docs/images

Writes, at 1920x1080 with the side panels hidden (Ctrl+B, as on a projector):

* ``step_convolve_vmap.png``: convolve's vmap variant at its first dot_general
  (two matrices as heat maps on one scale, the batch of dot products);
* ``step_normalize_pmap.png``: normalize's pmap variant at the psum, one panel
  per device: eight different inputs, one sum.

Runs offscreen unless a display is set (``xvfb-run -a`` gives a real one).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_HOME = tempfile.mkdtemp(prefix="jaxviz-shots-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")

#: (file name, example, variant, the source text of the line to step to).
SHOTS = (
    ("step_convolve_vmap.png", "convolve", "vmap", "output.append(jnp.dot("),
    ("step_normalize_pmap.png", "normalize", "pmap", "return x / lax.psum("),
)


def main(out_dir: Path) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.theme import style
    from jaxviz.ui.window.main_window import MainWindow
    from jaxviz.ui.window.qt_engine import QtEngine
    from jaxviz.ui.window.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    style.apply_theme(app)
    engine = QtEngine(devices=8, timeout=180.0)
    engine.start()
    settings = Settings(QSettings(os.path.join(_HOME, "jaxviz.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings=settings, engine=engine)
    window.resize(1920, 1080)
    window.show()
    window.start_engine()
    window.toggle_side_panels()

    def settle(condition, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the window did not get there")
            app.processEvents()
            time.sleep(0.01)

    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        for name, example, variant, needle in SHOTS:
            window.open_example(example)
            settle(lambda: window.presenter.details is not None and not window.session.pending
                   and window.state.function == window.presenter.result.function)
            controller = window.step_mode.controller
            window.step_mode.start(variant)
            settle(lambda: controller.result is not None and not controller.busy)
            lines = window.editor.toPlainText().split("\n")
            window.step_mode.run_to_line(next(n for n, text in enumerate(lines, 1)
                                              if needle in text))
            deadline = time.monotonic() + 0.5
            settle(lambda: time.monotonic() > deadline)  # let every view paint
            image = window.grab()
            image.save(str(out_dir / name))
            print(f"{out_dir / name}: {image.width()}x{image.height()}, "
                  f"{window.status_text.text()}")
            controller.stop()
    finally:
        window.session.stop()
        engine.stop(wait=True)
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
