"""The device view copies the shown variant's call as code (its notes: tests/views/devices)."""

from __future__ import annotations

from tests.helpers.device_cases import traced


def test_copy_as_code_copies_the_shown_variant(qtbot):
    from PySide6.QtGui import QGuiApplication

    from jaxviz.ui.devices import DeviceView

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


def test_a_differing_variant_says_so_in_an_amber_band_under_the_caption(qapp):
    """The note is drawn apart from the caption, in the pane header's amber, whole."""
    from PySide6.QtGui import QColor

    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views import palette
    from jaxviz.views.devices import build_scene
    from jaxviz.views.devices.items import Box, Text

    result = traced("normalize", "pmap", batched_args="jnp.arange(16.)")
    [note] = [n for n in result.variant("pmap").notes if n.differs]
    scene = build_scene(result, "pmap")
    th = palette.theme("light").device_view
    for i, phase in enumerate(scene.phases):
        r = Renderer(scene, 1280, 720)
        image, items = r.image(i), r.items(i, 1.0)
        bands = [it for it in items if isinstance(it, Box) and it.fill == th.warning_bg]
        notes = [it for it in items if isinstance(it, Text) and note.text in it.text]
        if not phase.note:
            assert not bands and not notes, phase.kind
            continue
        [band], [text] = bands, notes
        assert text.colour == th.warning_fg
        x, y, w, h = band.rect
        assert QColor(image.pixel(int(x + 4), int(y + h / 2))) == QColor(th.warning_bg)
        # the caption above it no longer repeats the note
        assert not [it for it in items if isinstance(it, Text) and it is not text
                    and note.text in it.text]
        assert not r.painter.cut
