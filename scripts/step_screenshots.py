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

import sys
import time
from pathlib import Path

from scripts.scripted import close_window, open_window, private_environment, settle

_HOME = private_environment("jaxviz-shots-")

#: (file name, example, variant, the source text of the line to step to).
SHOTS = (
    ("step_convolve_vmap.png", "convolve", "vmap", "output.append(jnp.dot("),
    ("step_normalize_pmap.png", "normalize", "pmap", "return x / lax.psum("),
)


def main(out_dir: Path) -> int:
    app, window, engine = open_window(_HOME)
    controller = window.step_mode.controller
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        for name, example, variant, needle in SHOTS:
            window.open_example(example)
            settle(app, lambda: window.router.details is not None
                   and not window.session.pending
                   and window.state.function == window.router.result.function)
            window.step_mode.start(variant)
            settle(app, lambda: controller.result is not None and not controller.busy)
            lines = window.editor.toPlainText().split("\n")
            window.step_mode.run_to_line(next(n for n, text in enumerate(lines, 1)
                                              if needle in text))
            painted = time.monotonic() + 0.5
            settle(app, lambda t=painted: time.monotonic() > t)  # let every view paint
            image = window.grab()
            image.save(str(out_dir / name))
            print(f"{out_dir / name}: {image.width()}x{image.height()}, "
                  f"{window.status_text.text()}")
            controller.stop()
    finally:
        close_window(window, engine)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/images")))
