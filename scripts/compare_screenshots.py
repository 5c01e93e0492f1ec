"""The README's compare-layout screenshots, taken from real screens.

    .venv/bin/python scripts/compare_screenshots.py [OUT_DIR]      # default docs/images

Each picture is a first run of ``jaxviz example:convolve`` (fresh settings) on its
own Xvfb screen with openbox managing the window (as ``scripts/window_screenshots.py``
does), maximized as a lecturer would; then View ▸ Compare Variants with the pair
below, one row clicked, and the whole screen captured:

* ``compare_convolve_vmap_1280x720.png``: a 1280x720 projector (the projector
  layout), plain -> vmap, the first dot_general clicked (its source line lit in
  the editor, what changed in words under the sides);
* ``compare_convolve_pmap_1920x1080.png``: 1920x1080 with the side panels put away
  (Ctrl+B, as the step-mode pictures), plain -> pmap: pmap's wrapper and squeezes
  added, the per-device body unchanged.

Needs Xvfb and openbox (``scripts/setup.sh --test`` installs them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripts.scripted import failed, report_from_screen, shoot_after_stages

#: (file name, screen size, side panels put away, example, left, right, the jaxpr text of
#: the row to click).
SHOTS = (
    ("compare_convolve_vmap_1280x720.png", (1280, 720), False, "convolve", "plain", "vmap",
     "dot_general"),
    ("compare_convolve_pmap_1920x1080.png", (1920, 1080), True, "convolve", "plain", "pmap",
     "squeeze"),
)


def shoot(out: str, put_away: str, example: str, left: str, right: str, needle: str) -> int:
    """In a process on the virtual screen: the window, the comparison, a row clicked, a shot."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    from jaxviz.ui import app

    def on_shown(window) -> None:
        window.showMaximized()
        if put_away == "yes" and window.docks["Gallery"].isVisible():
            window.toggle_side_panels()
        view = window.area.compare

        def compare() -> bool:
            window.state.compared = (left, right)
            return True

        def click_row() -> bool:
            if view.diff is None or window.session.pending:
                return False
            side = view.columns.right
            line = next(n for n, text in enumerate(side.toPlainText().split("\n"))
                        if needle in text)
            rect = side.line_rect(line)
            QTest.mouseClick(side.viewport(), Qt.MouseButton.LeftButton,
                             pos=QPoint(rect.width() // 2, rect.center().y()))
            return True

        shoot_after_stages(window, out, [compare, click_row], lambda: {
            "summary": view.summary.text(), "status": window.status_text.text(),
            "maximized": window.isMaximized()})

    return app.main([f"example:{example}"], on_shown=on_shown)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (width, height), put_away, example, left, right, needle in SHOTS:
        path = out_dir / name
        command = [sys.executable, __file__, "--shoot", str(path),
                   "yes" if put_away else "no", example, left, right, needle]
        report, stderr = report_from_screen(command, width, height)
        if failed(name, report, stderr):
            return 1
        print(f"{path}: {width}x{height} screen, maximized {report['maximized']}; "
              f"{report['summary']}; {report['status']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shoot"]:
        sys.exit(shoot(*sys.argv[2:8]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
