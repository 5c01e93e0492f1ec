"""The arguments panel is made from the trace settings table: its rows, labels,
tooltips, placeholders and the values of an empty form are the table's."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLineEdit, QSpinBox

from jaxviz.model.limits import DEFAULT_DEVICES
from jaxviz.model.settings_table import TRACE_SETTINGS, settings_values
from jaxviz.ui.panels.args import ArgsPanel
from jaxviz.views.window.window_state import settings_from


def _rows(panel: ArgsPanel) -> list[tuple[str, object]]:
    form = panel.widget().layout()
    assert isinstance(form, QFormLayout)
    rows = []
    for row in range(form.rowCount()):
        label = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
        if label is not None and field is not None:
            rows.append((label.widget().text(), field.widget()))
    return rows


def test_the_panel_shows_the_tables_settings_in_its_order(qtbot):
    panel = ArgsPanel()
    qtbot.addWidget(panel)
    rows = _rows(panel)
    settings_rows = [(label, w) for label, w in rows if w.objectName() != "field_devices"]
    assert [w.objectName() for _l, w in settings_rows] == \
        [f"field_{s.name}" for s in TRACE_SETTINGS]
    for (label, widget), setting in zip(settings_rows, TRACE_SETTINGS, strict=True):
        assert label == setting.label
        assert widget.toolTip() == setting.tooltip
        if isinstance(widget, QLineEdit):
            assert widget.placeholderText() == setting.placeholder
        expected = {"count": QSpinBox, "flag": QCheckBox}.get(
            setting.kind, QComboBox if setting.name == "axis_types" else QLineEdit)
        assert isinstance(widget, expected), setting.name


def test_an_empty_panel_means_the_tables_defaults(qtbot):
    panel = ArgsPanel()
    qtbot.addWidget(panel)
    panel.set_values({"args": "f32[5]"})
    assert settings_from(panel.values()).settings() == settings_values({"args": "f32[5]"})
    defaults = settings_values({})
    assert panel.values()["axis_name"] == defaults["axis_name"]
    assert panel.check_vma.isChecked() == defaults["check_vma"]
    assert panel.device_count() == DEFAULT_DEVICES
