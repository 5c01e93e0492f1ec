"""Text from a timing recording is shown as plain text, never as HTML (issue 30).

A recording is data someone else may have written: its variant names and host
fields must not be rendered as HTML (Qt would try to load an ``<img>``'s
source). The oracle is Qt itself: a label showing such text must have the
``PlainText`` format, and a tooltip holding it must hold it escaped.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from jaxviz.model.resources import resources_dir

IMG = "<img src='file:///nonexistent/jaxviz-hostile.png'><b>bold</b>"


def hostile_recording(tmp_path: Path) -> Path:
    """The shipped convolve recording with HTML in a variant's name and in host fields."""
    path = resources_dir() / "lectures" / "recordings" / "convolve" / "timings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    record = data["record"]
    name = record["variants"][0]["variant"]
    hostile = f"{name}{IMG}"
    for item in record["variants"] + record["calls"] + record["first_calls"]:
        if item.get("variant") == name:
            item["variant"] = hostile
    record["request"]["variants"] = [hostile if v == name else v
                                     for v in record["request"]["variants"]]
    header = record["header"]
    for key in ("host_cpu", "os", "device_kind"):
        header[key] = f"{header[key]}{IMG}"
    out = tmp_path / "timings.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_a_recordings_text_is_plain_in_every_label_and_tooltip(qtbot, tmp_path, shared_engine):
    from tests.helpers.timing_view import make_view

    view = make_view(shared_engine)
    qtbot.addWidget(view)
    assert view.open_recording(str(hostile_recording(tmp_path)))
    view.plots.refresh(everything=True)
    for page in view.plots.pages.values():  # the hover numbers name the variant
        page.show_hover(f"loop{IMG}: 1.0 ms")
    qtbot.wait(50)
    showing = [label for label in view.findChildren(QLabel) if "<img" in label.text()]
    assert showing, "the recording's text is shown somewhere"
    rich = [(label.objectName() or type(label).__name__, label.text()[:60])
            for label in showing if label.textFormat() != Qt.TextFormat.PlainText]
    assert rich == []
    for widget in [view, *view.findChildren(QLabel)]:
        tip = widget.toolTip()
        assert "<img" not in tip, (widget.objectName(), tip[:80])
    assert any("&lt;img" in label.toolTip() for label in view.findChildren(QLabel))
