"""The command-line sweep's values typed (or pasted) into every field of the window.

Empty, zero, negative, nan, inf, huge, non-ASCII and shell-metacharacter
values go into each Arguments field, the device and batch spin boxes, the
timing view's settings and its export size: each is refused under its field
(or by the spin box) or accepted where it is a valid value; nothing raises,
nothing bad reaches the engine, and the window still traces afterwards.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog

from jaxviz.model.limits import BATCH, DEVICES, PIPELINE, RUNS, WARMUP
from tests.helpers.hostile_values import VALUES
from tests.helpers.window import wait_for_panes

# Not in the fast tier: the window on the real engine.
pytestmark = pytest.mark.slow

#: Which values each Arguments field takes for a one-argument function (example:normalize);
#: the others are refused under the field. Python expressions are arguments (the engine
#: then evaluates them), identifiers are axis names, an empty field means its default.
EXPRESSIONS = {"0", "-1", "nan", "inf", "-inf", "1e309", "99999999999", "ünïcødé"}
VALID = {
    "args": EXPRESSIONS,
    "batched_args": EXPRESSIONS | {""},
    "in_axes": {"", "0", "-1", "99999999999"},
    "axis_name": {"", "nan", "inf", "ünïcødé"},
    "mesh": {""},
    "specs": {""},
    "out_specs": {""},
    "out_axes": {"", "0", "-1", "99999999999"},  # the engine checks the range (the output's)
    "static": {""},  # a static argument is name=value
    "devices_order": {"", "0"},  # device 0 alone is an order; 8 devices have no 99999999999
}


def paste(qtbot, edit, text: str) -> None:
    """Replace a line edit's text as a user pasting would (``textEdited`` fires)."""
    edit.selectAll()
    if text:
        edit.insert(text)
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Delete)
    assert edit.text() == text


@pytest.mark.parametrize("name", list(VALID))
def test_every_arguments_field_refuses_or_takes_each_value(qtbot, window, name, monkeypatch):
    window.open_example("normalize")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    sent: list = []  # what would go to the engine
    monkeypatch.setattr(window.session, "trace", sent.append)
    monkeypatch.setattr(window.session, "schedule", lambda: None)  # traced below, at once
    edit = window.args_panel.edits[name]
    good = edit.text()
    for value in VALUES:
        sent.clear()
        paste(qtbot, edit, value)
        window.session.trace_now()  # as the debounce (or F5) would
        error = window.args_panel.field_error(name)
        if value in VALID[name]:
            assert len(sent) == 1 and not error, (name, value, error)
            assert getattr(sent[0], name) == (value or None if name != "axis_name" else
                                              value or "i")
        else:
            assert error.startswith("✖ "), (name, value, error)
            assert not sent, f"{name}={value!r} was sent to the engine"
    paste(qtbot, edit, good)
    monkeypatch.undo()
    window.retrace()
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    assert window.router.result.error is None
    assert window.router.result.function == "normalize"


@pytest.mark.parametrize("value, reason", [
    ("nan", "NameError: name 'nan' is not defined"),
    ("ünïcødé", "NameError: name 'ünïcødé' is not defined"),
    ("99999999999", "Python int 99999999999 too large to convert to int32"),
    ("0, 1", "normalize takes 1 argument (x), but the arguments give 2")])
def test_arguments_that_cannot_run_are_marked_under_the_field(qtbot, window, value, reason):
    window.open_example("normalize")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    paste(qtbot, window.args_panel.edits["args"], value)
    window.retrace()
    wait_for_panes(qtbot, window, lambda: bool(window.args_panel.field_error("args")))
    assert reason in window.args_panel.field_error("args")
    pane = window.area.panes[window.state.visible_variants[0]]
    assert "Not traced" in pane.banner.text()  # the last result is kept, dimmed


def type_into(box, text: str) -> None:
    """Type ``text`` into a spin box as pasted (its validator decides), then press Return."""
    box.lineEdit().selectAll()
    box.lineEdit().insert(text)
    box.interpretText()


@pytest.mark.parametrize("spin, limit", [("devices", DEVICES), ("batch", BATCH)])
def test_spin_boxes_keep_their_range(qtbot, window, spin, limit):
    box = getattr(window.args_panel, spin)
    before = box.value()
    low = 0 if spin == "batch" else limit.low  # batch 0 reads "= devices"
    for value in VALUES:
        type_into(box, value)
        assert low <= box.value() <= limit.high, (spin, value, box.value())
    box.setValue(before)  # the shared engine keeps its device count
    qtbot.waitUntil(lambda: not window.args_panel._devices_timer.isActive())  # debounced
    wait_for_panes(qtbot, window)
    assert window.engine.devices == window.state.devices == 8 or spin == "batch"


def test_timing_settings_refuse_bad_values(qtbot, window):
    window.open_example("async_dispatch")
    wait_for_panes(qtbot, window, lambda: window.router.result is not None)
    window.tools.setCurrentWidget(window.tools.timing)
    view = window.tools.timing.view
    c = view.controls
    for box, limit in ((c.runs, RUNS), (c.warmup, WARMUP), (c.pipeline, PIPELINE)):
        for value in VALUES:
            type_into(box, value)
            assert limit.low <= box.value() <= limit.high, (value, box.value())
    c.runs.setValue(2)
    c.sweep_on.setChecked(True)
    for value in VALUES:
        paste(qtbot, c.sweep, value)
        assert not view.run_timing(), value
        assert not view.running and view.banner.text().startswith("Not run: "), value


def test_the_export_size_dialog_asks_again_until_a_size_fits(qtbot, window, monkeypatch):
    window.tools.setCurrentWidget(window.tools.timing)
    bar = window.tools.timing.view.export_bar
    answers = [(v, True) for v in VALUES] + [("1280x720", True)]
    prompts = []

    def answer(_parent, _title, prompt, text=""):
        prompts.append(prompt)
        return answers.pop(0)

    monkeypatch.setattr(QInputDialog, "getText", answer)
    bar.ask_size()
    assert bar.size_text == "1280x720" and not answers
    assert all("WIDTHxHEIGHT" in p or "out of range" in p for p in prompts[1:])
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("nan", False))
    bar.ask_size()  # cancelled: unchanged
    assert bar.size_text == "1280x720"
