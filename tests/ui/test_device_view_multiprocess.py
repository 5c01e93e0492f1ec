"""The window's device view of the multi_host example is a real run of two JAX processes
(issue 26), grouped by process, each holding only its own blocks."""

from __future__ import annotations

import pytest

from tests.helpers.device_cases import traced

# Not in the fast tier: a real multi-process run.
pytestmark = pytest.mark.slow


def test_the_multi_host_example_is_drawn_from_a_real_two_process_run(qtbot):
    from jaxviz.model.gallery import get_example
    from jaxviz.ui.devices import DeviceView
    from jaxviz.views.devices import geometry

    example = get_example("multi_host")
    assert example.processes == 2
    result = traced("multi_host", "shard_map")  # the window's one engine process
    assert {d.process_index for d in result.devices} == {0}
    view = DeviceView()
    qtbot.addWidget(view)
    view.set_result(result, "shard_map")
    assert "2 JAX processes" in (view.scene.error or "")  # not the one-process picture
    qtbot.waitUntil(lambda: view.scene.story is not None, timeout=240_000)
    scene = view.scene
    story = scene.story
    # from the run itself: every device with the process that owns it
    assert scene.processes == [0, 1]
    by_process = {p: [d for d, q in zip(story.devices, story.processes) if q == p]
                  for p in (0, 1)}
    assert len(by_process[0]) == len(by_process[1]) == 4
    assert set(by_process[0]).isdisjoint(by_process[1])
    lay = geometry.canvas_geometry(scene, 1280, 720, geometry.default_unit(1280, 720))
    assert [label for _, label in lay.frames] == ["process 0: 4 simulated CPU devices",
                                                  "process 1: 4 simulated CPU devices"]
    # the input starts placed on the processes' devices: no host array, no transfer
    assert scene.phases[0].kind == "placed"
    assert "each process holding only its own blocks" in scene.phases[0].caption
    x = story.claims.array("x")
    assert x.starts == "placed" and x.processes == 2
    # a second showing uses the run already made
    view.set_result(result, "shard_map")
    assert view.scene.story is story or view.scene.processes == [0, 1]
