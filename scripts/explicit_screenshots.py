"""The README's pictures of explicit sharding, made by the real window and engine.

    .venv/bin/python scripts/explicit_screenshots.py [OUT_DIR]      # default docs/images

Writes, at 1920x1080 with the side panels shown:

* ``explicit_sharding.png``: the window on ``example:explicit_sharding``: the
  function as written (JAX's explicit-sharding guide: an explicit mesh set for
  the module, ``i32[4@X,1]`` types) beside the same function sharded by jaxviz
  under an Auto mesh of the same shape (types without sharding); the Console
  shows what ``jax.typeof`` printed in each;
* ``explicit_sharding_devices.png``: the device view of the as-written program
  at its last phase: the output ``4@X,8@Y`` on the 2 x 4 mesh, from the
  compiled program.

Runs offscreen unless a display is set (``xvfb-run -a`` gives a real one).
"""

from __future__ import annotations

import sys

from scripts.scripted import painted, private_environment, screenshots, settle

_HOME = private_environment("jaxviz-shots-")


def shoot(app, window, out_dir) -> None:
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    window.open_example("explicit_sharding")
    panes = window.area.panes
    settle(app, lambda: window.router.details is not None and not window.session.pending
           and all(panes[v].result is not None for v in ("as_written", "sharded")))
    window.tools.setCurrentWidget(window.tools.console)
    painted(app)
    image = window.grab()
    image.save(str(out_dir / "explicit_sharding.png"))
    print(f"{out_dir / 'explicit_sharding.png'}: {image.width()}x{image.height()}; "
          f"panes {window.state.visible_variants} ({window.area.effective_mode()})")

    scene = build_scene(window.router.details, "as_written")
    last = len(scene.phases) - 1  # the output, where the program leaves it
    Renderer(scene, 1920, 1080).image(last, 1.0).save(
        str(out_dir / "explicit_sharding_devices.png"))
    print(f"{out_dir / 'explicit_sharding_devices.png'}: phase {last + 1} of "
          f"{len(scene.phases)}, {scene.phases[last].title}")


if __name__ == "__main__":
    sys.exit(screenshots(_HOME, shoot, side_panels=True))
