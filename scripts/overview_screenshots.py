"""Screenshots of the device view's overview on a whole train step (issue 28, item 1).

Draws the device view (canvas, folded group tree, program strip) of the sharded
12-layer GPT-style train step of ``tests/programs`` at 1280x720 and 1920x1080,
offscreen, with one repeated group unfolded and a phase in the middle of a layer
shown, and saves ``docs/images/overview_train_step_WxH.png``.

    PYTHONPATH=$PWD .venv/bin/python scripts/overview_screenshots.py [RESULT.json]

RESULT.json is a traced result written with ``to_plain`` (the trace takes
minutes on two cores); without it the script traces the program itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = ((1280, 720), (1920, 1080))


def traced_result(path: str | None):
    from jaxviz.model import from_plain

    if path:
        return from_plain(json.loads(Path(path).read_text()))
    from jaxviz import core
    from jaxviz.model import Target, TraceRequest
    from tests.programs import gpt_mesh, gpt_source, gpt_specs

    core.configure_devices(8)
    req = TraceRequest(target=Target(gpt_source(12), "<editor:gpt_train.py>", "train_step"),
                       variants=["sharded"], want=["jaxpr", "story"],
                       args="params, tokens, targets", in_axes="None, None, None",
                       mesh=gpt_mesh(), specs=gpt_specs(12))
    return core.trace_request(req)


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    result = traced_result(argv[1] if len(argv) > 1 else None)
    from PySide6.QtWidgets import QApplication

    from jaxviz.ui.devices import DeviceView
    from jaxviz.ui.theme.style import apply_theme
    from jaxviz.views.devices.overview import find_rows

    app = QApplication.instance() or QApplication([])
    apply_theme(app)
    out = ROOT / "docs" / "images"
    for w, h in SIZES:
        view = DeviceView()
        view.resize(w, h)
        view.show()
        app.processEvents()
        view.set_result(result, "sharded")
        while view.busy or not view.phases:  # (a big program's scene is built in steps)
            app.processEvents()
        # the forward pass's layers: the biggest repeated 'block' group
        block = max(find_rows(view.overview, "block"), key=lambda k: view.overview[k].repeat)
        row = view.overview[block]
        parent = row.parent
        while parent is not None:
            view.tree.items[parent].setExpanded(True)
            parent = view.overview[parent].parent
        view.tree.items[block].setExpanded(True)
        seventh = view.overview[row.children[min(6, len(row.children) - 1)]]
        view.seek(seventh.first + 5, 1.0)
        view.tree.show_phase(view.current_phase)
        for _ in range(5):
            app.processEvents()
        while view.busy:  # (and its pictures drawn in steps: the last stays meanwhile)
            app.processEvents()
        path = out / f"overview_train_step_{w}x{h}.png"
        view.grab().save(str(path))
        print(f"wrote {path}: phase {view.current_phase + 1} of {len(view.phases)}, "
              f"{len(view.overview)} groups")
        view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
