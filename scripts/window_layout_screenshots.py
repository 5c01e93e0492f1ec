"""The README's pictures of the window's layouts for a projector, taken from real screens.

    .venv/bin/python scripts/window_layout_screenshots.py [OUT_DIR]      # default docs/images

Each picture is a first run of ``jaxviz example:NAME`` (fresh settings) on its own
Xvfb screen with openbox managing the window (as ``scripts/compare_screenshots.py``
does), maximized as a lecturer would, then:

* ``two_panes_{W}x{H}.png``: View ▸ Two Panes (Ctrl+Shift+2) with convolve's vmap
  on the left and pmap on the right;
* ``maximized_devices_{W}x{H}.png``: data_parallel's device view maximized (F6),
  at the end of its fourth phase.

at 1280x720 and 1920x1080. Needs Xvfb and openbox (``scripts/setup.sh --test``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripts.scripted import failed, report_from_screen, shoot_after_stages

SIZES = ((1280, 720), (1920, 1080))
#: (file name stem, example, what to do).
SHOTS = (("two_panes", "convolve", "two"), ("maximized_devices", "data_parallel", "devices"))


def shoot(out: str, example: str, what: str) -> int:
    """In a process on the virtual screen: the window, the layout, a shot."""
    from jaxviz.ui import app

    def on_shown(window) -> None:
        window.showMaximized()

        def lay_out() -> bool:
            if what == "two":
                window.state.set_two_panes(left="vmap", right="pmap")
                window.actions_by_name["two_panes"].trigger()
            else:
                window.actions_by_name["max_devices"].trigger()
            return True

        def settled() -> bool:
            if window.session.pending:
                return False
            if what == "devices":
                view = window.tools.devices.view
                if view is None or not view.phases:
                    return False
                view.pause()
                view.seek(3, 1.0)  # the tiles arrived on their devices
            return True

        def report() -> dict:
            panes = window.area.shown_variants()
            return {"panes": panes, "widths": [window.area.panes[v].width() for v in panes],
                    "area": window.area.width(), "maximized": window.state.maximized,
                    "status": window.status_text.text()}

        shoot_after_stages(window, out, [lay_out, settled], report, settle=1.5)

    return app.main([f"example:{example}"], on_shown=on_shown)


def main(out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    for stem, example, what in SHOTS:
        for width, height in SIZES:
            path = out_dir / f"{stem}_{width}x{height}.png"
            report, stderr = report_from_screen(
                [sys.executable, __file__, "--shoot", str(path), example, what], width, height)
            if failed(path.name, report, stderr):
                return 1
            print(f"{path}: {report}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shoot"]:
        sys.exit(shoot(*sys.argv[2:5]))
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
