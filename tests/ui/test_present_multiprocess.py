"""The shipped lecture's multi-host section has a device slide from a real run of two JAX
processes (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

# Not in the fast tier: a real multi-process run.
pytestmark = pytest.mark.slow

SHIPPED = Path(__file__).resolve().parents[2] / "resources" / "lectures" / "parallel_jax.toml"


def test_the_multi_host_device_slide_is_a_two_process_run():
    from jaxviz import core
    from jaxviz.core.service import handle
    from jaxviz.ui.present.loading import multiprocess_runs
    from jaxviz.views.devices import build_scene
    from jaxviz.views.present.deck import build_slides, load_functions
    from jaxviz.views.present.lecture import Lecture, load_lecture

    core.configure_devices(8)
    shipped = load_lecture(SHIPPED)
    steps = [s for s in shipped.steps if s.target == "example:multi_host"]
    assert any(s.view == "device" for s in steps)  # the section shows the devices
    lecture = Lecture(title=shipped.title, devices=shipped.devices, steps=steps,
                      path=shipped.path)
    functions = load_functions(lecture, handle)
    multiprocess_runs(lecture, functions)
    device = [s for s in build_slides(lecture, functions) if s.view == "device"]
    assert device  # one slide per phase
    scene = build_scene(device[0].data.result, device[0].variant)
    assert scene.processes == [0, 1]
    assert scene.phases[0].kind == "placed"
