"""The Collectives tab (issues 28.2 and 29.3) against the real engine and ``jaxviz collectives``.

The table's rows are the collectives ``jaxviz collectives --json`` prints for the same
example and variant (the CLI's JSON is checked against the compiled HLO by the core's
tests); its projected column is what :mod:`jaxviz.model.cost_model` projects for the
program's phases (summed over the storyboard steps a row stands for, a path of its own);
clicking a row moves the device view to that collective's phase and the editor to its
line; with a chip chosen the device view's caption gives the phase's projected time.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from jaxviz.model.chips import find_chip
from jaxviz.model.cost_model import project, seconds
from tests.helpers.window import JAX_MS, wait_for_panes

pytestmark = pytest.mark.slow  # the engine and CLI subprocesses

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cli_json(example: str, variant: str) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("QT_QPA_PLATFORM", None)
    out = subprocess.run([sys.executable, "-m", "jaxviz", "collectives", f"example:{example}",
                          "--variant", variant, "--devices", "8", "--json"],
                         capture_output=True, text=True, env=env, timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _collectives_tab(qtbot, win, example: str):
    win.resize(1280, 720)
    win.open_example(example)
    wait_for_panes(qtbot, win, lambda: win.state.details is not None)
    win.tools.setCurrentWidget(win.tools.collectives)
    qtbot.waitUntil(lambda: win.tools.collectives.view is not None
                    and win.tools.collectives.view.costs is not None, timeout=JAX_MS)
    return win.tools.collectives.view


def _column(view, name: str) -> int:
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    return headers.index(name)


def _cell(view, row: int, name: str) -> str:
    return view.table.item(row, _column(view, name)).text()


#: data_parallel: the user's psum; tensor_parallel: none at all (each device multiplies
#: its own columns); explicit_sharding: an all-reduce XLA's partitioner inserted.
@pytest.mark.parametrize("example", ["data_parallel", "tensor_parallel", "explicit_sharding"])
def test_the_rows_are_what_jaxviz_collectives_prints(qtbot, window, example):
    view = _collectives_tab(qtbot, window, example)
    variant = window.state.device_variant()
    assert view.variant == variant
    cli = _cli_json(example, variant)
    assert bool(cli["collectives"]) == (example != "tensor_parallel"), cli["collectives"]
    if not cli["collectives"]:
        assert view.table.isHidden() and "No collectives" in view.empty.text()
    assert view.costs.devices == cli["devices"]
    assert view.table.rowCount() == len(cli["collectives"])
    for row, want in enumerate(cli["collectives"]):
        got = view.costs.collectives[row]
        assert (got.kind, got.reduction, got.mesh_axes, got.groups, got.pairs, got.count,
                got.sent_bytes, got.received_bytes, got.source_lines, got.steps, got.why) == (
            want["kind"], want["reduction"], want["mesh_axes"], want["groups"], want["pairs"],
            want["count"], want["sent_bytes"], want["received_bytes"], want["source_lines"],
            want["steps"], want["why"]), row
        assert _cell(view, row, "collective").startswith(want["kind"])
        assert _cell(view, row, "axes") == (",".join(want["mesh_axes"]) or "-")
        assert _cell(view, row, "count").split()[0] == str(want["count"])
        assert _cell(view, row, "origin") == {"user": "you", "xla": "XLA"}[want["origin"]]
        assert _cell(view, row, "line") == (",".join(map(str, want["source_lines"][:3]))
                                            or "-")
        assert _cell(view, row, "why") == (want["why"] or "-")
    mem = cli["memory"]
    assert mem is not None
    text = view.memory.text()
    assert "arguments" in text and "outputs" in text and "temporaries" in text
    assert view.costs.memory.argument_bytes == mem["argument_bytes"]
    assert view.costs.memory.temp_bytes == mem["temp_bytes"]


def test_a_chip_adds_the_projected_column_of_the_cost_model(qtbot, window):
    view = _collectives_tab(qtbot, window, "data_parallel")
    assert view.costs.collectives
    index = view.chip.findData("h100")
    assert index > 0
    view.chip.setCurrentIndex(index)
    view.chip.activated.emit(index)
    assert window.state.chip == "h100"
    label = f"projected: {len(view.costs.devices)}x {find_chip('h100').name}"
    column = _column(view, label)
    projection = project(view.costs, find_chip("h100"))
    by_step = {p.step: p for p in projection.phases}
    for row, use in enumerate(view.costs.collectives):
        # the cost model's own phases, summed over the steps this row stands for
        want = sum(by_step[s].t_comm.value for s in use.steps)
        assert math.isclose(view.rows[row].projected, want, rel_tol=1e-9), row
        item = view.table.item(row, column)
        assert item.text().startswith("about ")
        tip = item.toolTip()
        assert label in tip and view.rows[row].formula in tip, tip
        assert f"= {seconds(want)}" in tip, tip  # the formula ends in the model's number
        assert item.text() == f"about {seconds(want)}"
    # no chip: no projected column
    view.chip.setCurrentIndex(0)
    view.chip.activated.emit(0)
    assert window.state.chip == ""
    headers = [view.table.horizontalHeaderItem(c).text()
               for c in range(view.table.columnCount())]
    assert not any(h.startswith("projected") for h in headers)


def test_clicking_a_row_moves_the_device_view_and_the_editor(qtbot, window):
    view = _collectives_tab(qtbot, window, "data_parallel")
    row = 0
    use = view.costs.collectives[row]
    rect = view.table.visualItemRect(view.table.item(row, 1))
    QTest.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    devices = window.tools.devices.view
    assert devices is not None
    qtbot.waitUntil(lambda: bool(devices.phases)
                    and devices.phases[devices.current_phase].step_index in use.steps,
                    timeout=JAX_MS)
    assert devices.phases[devices.current_phase].kind == "collective"
    assert window.state.device_phase == devices.current_phase
    if use.source_lines:
        assert window.linking.selected_line == use.source_lines[0]
        assert "psum" in window.state.source.split("\n")[use.source_lines[0] - 1] or \
            use.primitives


def test_a_chip_chosen_puts_each_phase_s_projected_time_in_the_device_view_caption(
        qtbot, window):
    view = _collectives_tab(qtbot, window, "data_parallel")
    devices = window.tools.ensure_view(window.tools.devices)
    qtbot.waitUntil(lambda: bool(devices.phases), timeout=JAX_MS)
    assert not any("Projected" in p.caption for p in devices.phases)  # no chip yet
    index = view.chip.findData("tpu-v5e")
    view.chip.setCurrentIndex(index)
    view.chip.activated.emit(index)
    chip = find_chip("tpu-v5e")
    costs = view.costs
    projection = project(costs, chip)
    bound_words = {"compute": "compute-bound", "memory": "HBM-bound",
                   "communication": "link-bound"}
    shown = [p for p in devices.phases if p.step_index is not None]
    assert any(p.kind == "collective" for p in shown) and any(p.kind == "compute"
                                                               for p in shown)
    for phase in shown:
        ph = next(x for x in projection.phases if x.step == phase.step_index)
        bound = bound_words[ph.bound]
        if ph.t_comm.formula.endswith("latency-bound") and ph.bound == "communication":
            bound = "latency-bound"
        assert f"on {chip.name}: about {seconds(ph.t_lower.value)}, {bound}" \
            in phase.caption, phase.caption
        assert phase.caption.startswith("Projected for 8 chips")
        if phase.kind == "collective":
            use = costs.collectives[next(s.collective for s in costs.steps
                                         if s.step == phase.step_index)]
            assert f"{use.kind} of " in phase.caption
            assert all(f"'{a}'" in phase.caption for a in use.mesh_axes)
        assert phase.caption.endswith(phase.note)  # the note stays last
    # the caption the view emits (and draws) is the projected one
    devices.seek(devices.phases.index(shown[-1]))
    assert "Projected" in devices.phases[devices.current_phase].caption_without_note
    view.chip.setCurrentIndex(0)
    view.chip.activated.emit(0)
    assert not any("Projected" in p.caption for p in devices.phases)
