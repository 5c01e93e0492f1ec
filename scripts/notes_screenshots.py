"""The README's screenshots of a variant that differs, made by the real window and engine.

    .venv/bin/python scripts/notes_screenshots.py [OUT_DIR]      # default docs/images

Writes, at 1920x1080:

* ``variant_notes.png``: the window on ``normalize`` with 16 examples (batched
  arguments ``jnp.arange(16.)``): the pmap and shard_map pane headers say in
  amber that they differ, each with its Copy as code button; the arguments
  panel shows the check_vma box;
* ``device_view_differs.png``: the device view of that pmap variant at its
  psum, the note in the amber band under the caption.

Runs offscreen unless a display is set (``xvfb-run -a`` gives a real one).
"""

from __future__ import annotations

import sys

from scripts.scripted import painted, private_environment, screenshots, settle

_HOME = private_environment("jaxviz-shots-")


def shoot(app, window, out_dir) -> None:
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    window.open_example("normalize")
    settle(app, lambda: window.router.result is not None)
    window.state.visible_variants = ["vmap", "pmap", "shard_map"]
    window.state.set_setting("batched_args", "jnp.arange(16.)")
    window.retrace()
    panes = window.area.panes
    settle(app, lambda: window.router.details is not None
           and not window.session.pending
           and all(panes[v].result is not None for v in ("vmap", "pmap", "shard_map"))
           and "16" in panes["pmap"].notes_text())
    painted(app)  # let every view paint
    image = window.grab()
    image.save(str(out_dir / "variant_notes.png"))
    print(f"{out_dir / 'variant_notes.png'}: {image.width()}x{image.height()}; "
          f"pmap says: {panes['pmap'].differs.text()}")

    scene = build_scene(window.router.details, "pmap")
    phase = next(i for i, p in enumerate(scene.phases) if p.kind == "collective")
    picture = Renderer(scene, 1920, 1080).image(phase, 1.0)
    picture.save(str(out_dir / "device_view_differs.png"))
    print(f"{out_dir / 'device_view_differs.png'}: phase {phase + 1} of "
          f"{len(scene.phases)}, {scene.phases[phase].title}")


if __name__ == "__main__":
    sys.exit(screenshots(_HOME, shoot, side_panels=True))
