"""The README's compare-layout screenshots, made by the real window on a real engine.

    .venv/bin/python scripts/compare_screenshots.py [OUT_DIR]      # default docs/images

Writes:

* ``compare_convolve_vmap_1280x720.png``: convolve, plain -> vmap, at 1280x720
  from the first-run layout (gallery and arguments shown: the comparison hides
  them while it needs their room), the first dot_general row clicked (its
  source line lit in the editor, what changed in words under the sides);
* ``compare_convolve_pmap_1920x1080.png``: convolve, plain -> pmap, at
  1920x1080 with the side panels hidden (Ctrl+B, as on a projector): pmap's
  wrapper and squeezes added, the per-device body unchanged.

Runs offscreen unless a display is set (``xvfb-run -a`` gives a real one).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from jaxviz.ui.window.scripted import close_window, open_window, private_environment, settle

_HOME = private_environment("jaxviz-shots-")

#: (file name, window size, side panels, example, left, right, the text of the row to click).
SHOTS = (
    ("compare_convolve_vmap_1280x720.png", (1280, 720), True, "convolve", "plain", "vmap",
     "dot_general"),
    ("compare_convolve_pmap_1920x1080.png", (1920, 1080), False, "convolve", "plain", "pmap",
     "squeeze"),
)


def shoot(out: Path, size: tuple[int, int], side_panels: bool, example: str, left: str,
          right: str, needle: str) -> None:
    """One screenshot: a fresh window (the first-run layout), the comparison, a row clicked."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    home = tempfile.mkdtemp(dir=_HOME)
    app, window, engine = open_window(home, size=size, side_panels=side_panels)
    try:
        window.open_example(example)
        settle(app, lambda: window.presenter.result is not None
               and not window.session.pending
               and window.state.function == window.presenter.result.function)
        window.state.compared = (left, right)
        view = window.area.compare
        settle(app, lambda: view.diff is not None and not window.session.pending)
        laid_out = time.monotonic() + 0.3
        settle(app, lambda: time.monotonic() > laid_out)
        window.resize(*size)  # four panes can hold the window wider; the comparison does not
        side = view.columns.right
        line = next(n for n, text in enumerate(side.toPlainText().split("\n"))
                    if needle in text)
        rect = side.line_rect(line)
        QTest.mouseClick(side.viewport(), Qt.MouseButton.LeftButton,
                         pos=QPoint(rect.width() // 2, rect.center().y()))
        painted = time.monotonic() + 0.5
        settle(app, lambda: time.monotonic() > painted)  # let every view paint
        image = window.grab()
        image.save(str(out))
        print(f"{out}: {image.width()}x{image.height()}, {view.summary.text()}")
    finally:
        close_window(window, engine)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, *shot in SHOTS:
        shoot(out_dir / name, *shot)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
