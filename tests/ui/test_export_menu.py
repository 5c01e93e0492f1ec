"""Every view's Export menu is the one ExportMenu, made from the export registry."""

from __future__ import annotations

from jaxviz.ui.devices.controls import ControlBar
from jaxviz.ui.timing.export import ALL_PLOTS, ExportBar
from jaxviz.views import exports
from jaxviz.views.exports import Exporter


def _entries(menu) -> list[tuple[str, str]]:
    return list(menu.actions_by_format)


def _registry(*subjects: str) -> list[tuple[str, str]]:
    return [(s, e.name) for s in subjects for e in exports.exporters(s)]


def test_a_format_registered_once_is_offered_by_every_view_of_its_subject(qtbot, monkeypatch):
    for subject in ("frame", "plot"):
        fake = Exporter(subject, "webp", ".webp", f"{subject} as WebP", "WebP images",
                        "x.webp", lambda *a, **k: None)
        monkeypatch.setitem(exports._EXPORTERS, (subject, "webp"), fake)
    devices, timing = ControlBar(), ExportBar()
    qtbot.addWidget(devices)
    qtbot.addWidget(timing)
    assert _entries(devices.export_menu) == _registry("frame", "animation")
    timing_entries = _entries(timing.menu)
    assert [e for e in timing_entries if e[0] != ALL_PLOTS] == _registry("plot", "run")
    assert ("frame", "webp") in _entries(devices.export_menu)
    assert ("plot", "webp") in timing_entries
    assert devices.export_menu.actions_by_format["frame", "webp"].text() == "frame as WebP…"


def test_choosing_an_entry_asks_the_view_for_that_format(qtbot):
    devices, timing = ControlBar(), ExportBar()
    qtbot.addWidget(devices)
    qtbot.addWidget(timing)
    with qtbot.waitSignal(devices.exportRequested) as asked:
        devices.export_menu.actions_by_format["animation", "gif"].trigger()
    assert asked.args == ["animation", "gif"]
    with qtbot.waitSignal(timing.exportRequested) as asked:
        timing.actions_by_kind["csv"].trigger()
    assert asked.args == ["csv"]
