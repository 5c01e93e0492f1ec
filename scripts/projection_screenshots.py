"""Screenshots of the timing view's projection panel: measured above, projected below.

The real timing view on a real engine, offscreen: batched_matmul (numpy, jit-vmap, pmap,
sharded) measured, projected onto an H100, and the what-if up to 256 devices.

    PYTHONPATH=$PWD .venv/bin/python scripts/projection_screenshots.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.scripted import painted, private_environment, settle  # noqa: E402


def main(out: Path) -> int:
    private_environment("jaxviz-projection-")
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.qt_engine import QtEngine
    from jaxviz.ui.theme import style
    from jaxviz.ui.timing import TimingView
    from tests.helpers.timing_view import configure, example_request

    app = QApplication.instance() or QApplication(sys.argv[:1])
    style.apply_theme(app)
    engine = QtEngine(devices=8, timeout=300.0)
    engine.start()
    view = TimingView()
    view.set_engine(engine)
    view.resize(1920, 1080)
    view.show()
    view.set_target(example_request("batched_matmul"))
    configure(view, ["numpy", "jit-vmap", "pmap", "sharded"], runs=4, warmup=1, pipeline=2)
    view.controls.run_button.click()  # measures, then projects the same variants
    settle(app, lambda: not view.running and view.projection.timeline is not None
           and view.projection.timeline.variants, 600)
    out.mkdir(parents=True, exist_ok=True)
    view.projection.counts.setText("1,2,4,8,16,32,64,128,256")
    view.projection.run_what_if()
    for size in ((1920, 1080), (1280, 720)):
        view.resize(*size)
        view.projection.tabs.setCurrentIndex(0)
        painted(app, 1.0)
        view.grab().save(str(out / f"timing_projected_{size[0]}x{size[1]}.png"))
    settle(app, lambda: view.projection.what_if is not None, 600)
    for size in ((1920, 1080), (1280, 720)):
        view.resize(*size)
        view.projection.tabs.setCurrentIndex(1)
        painted(app, 1.0)
        view.grab().save(str(out / f"timing_what_if_{size[0]}x{size[1]}.png"))
    view.projection.export("projection", "png", out / "projected_export.png")
    view.projection.export("projection", "svg", out / "projected_export.svg")
    view.projection.export("projection", "json", out / "projected_export.json")
    view.projection.export("what-if", "png", out / "what_if_export.png")
    view.projection.stop(wait=True)
    engine.stop(wait=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/shots/costview2")))
