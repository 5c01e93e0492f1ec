"""The device view says where a variant differs, and copies its call as code."""

from __future__ import annotations

from jaxviz.scene import build_scene

from .device_view_cases import traced


def test_the_collective_and_the_result_say_the_variant_differs():
    result = traced("normalize", "pmap", batched_args="jnp.arange(16.)")
    [note] = [n for n in result.variant("pmap").notes if n.differs]
    scene = build_scene(result, "pmap")
    noted = [p for p in scene.phases if p.note]
    assert [p.kind for p in noted] == ["collective", "assemble"]
    for phase in noted:
        assert note.text in phase.note and phase.caption.endswith(phase.note)
    assert not any(p.note for p in scene.phases if p.kind in ("host", "split", "compute"))
    # where the variants agree, no phase says otherwise
    same = build_scene(traced("normalize", "pmap"), "pmap")
    assert not any(p.note for p in same.phases)


def test_copy_as_code_copies_the_shown_variant(qtbot):
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui.device_view import DeviceView

    view = DeviceView()
    qtbot.addWidget(view)
    assert not view.controls.copy_button.isEnabled()
    result = traced("tensor_parallel", "sharded")
    view.set_result(result, "sharded")
    assert view.controls.copy_button.isEnabled()
    view.controls.copy_button.click()
    assert QGuiApplication.clipboard().text() == result.variant("sharded").code.snippet()
    assert "in_shardings=(NamedSharding(mesh, P('data', None))" in \
        QGuiApplication.clipboard().text()
