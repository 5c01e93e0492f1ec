"""What the values panel shows for a step, without Qt or JAX (hand-made steppings).

The same model on real steppings is read back from the window in
``tests/ui/test_stepper_window.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from jaxviz.model.devices import MeshInfo
from jaxviz.model.records import SourceSpan, VarInfo
from jaxviz.model.stepping import EvalStep, LaneValues, StepResult, Value, ValueSummary
from jaxviz.views.palette import DEVICE_COLOURS, device_colour_map
from jaxviz.views.stepper.panel import VECTOR_MAX, build_panel, cell, whole_note


def _value(array) -> Value:
    a = np.asarray(array)
    dtype = {"f": "f32", "i": "i32", "b": "bool"}[a.dtype.kind]
    return Value(list(a.shape), dtype, exact=a.tolist())


def _var(name: str, array) -> VarInfo:
    return VarInfo(name, list(np.shape(array)), _value(array).dtype)


def test_scalars_and_short_vectors_are_written_out():
    assert cell("in", _var("a", 28.0), _value(np.float32(28.0))).text == "28"
    vec = np.arange(VECTOR_MAX) * 0.5
    shown = cell("in", _var("v", vec), _value(vec))
    assert shown.kind == "numbers" and shown.text.split() == \
        ["[0", *[f"{x:g}" for x in vec[1:-1]], f"{vec[-1]:g}]"]
    row = np.array([[1, 2, 3]])  # one long axis: still a vector to read
    assert cell("in", _var("r", row), _value(row)).kind == "numbers"
    assert cell("in", _var("b", True), Value([], "bool", exact=True)).text == "true"


def test_matrices_are_heat_maps_and_larger_or_deeper_arrays_summaries():
    m = np.arange(40).reshape(8, 5)
    heat = cell("in", _var("m", m), _value(m))
    assert heat.kind == "heatmap" and heat.matrix == m.tolist()
    cube = np.linspace(-1, 3, 2 * 3 * 4).reshape(2, 3, 4)
    summary = cell("out", _var("c", cube), _value(cube))
    counts, edges = np.histogram(cube, bins=10)
    assert summary.kind == "summary"
    assert summary.histogram == counts.tolist()
    assert summary.edges == pytest.approx(edges.tolist())
    assert summary.text.split("\n") == ["min -1", "max 3", "mean 1"]
    long = np.arange(VECTOR_MAX + 1)
    assert cell("in", _var("l", long), _value(long)).kind == "summary"
    kept = Value([1000, 10], "f32", summary=ValueSummary(min=-2.0, max=5.0, mean=0.25,
                                                         nonfinite=3, histogram=[1, 2],
                                                         edges=[-2.0, 1.5, 5.0]))
    big = cell("in", VarInfo("w", [1000, 10], "f32"), kept)
    assert big.kind == "summary" and big.histogram == [1, 2]
    assert big.text.split("\n") == ["min -2", "max 5", "mean 0.25", "3 not finite"]


def _psum_result(devices=(0, 1, 2, 3), mesh_order=(2, 0, 3, 1)) -> StepResult:
    lanes = [LaneValues(d, [_value(np.float32(d))], [_value(np.float32(sum(devices)))])
             for d in devices]
    step = EvalStep("equation", "jit[0] > shard_map[0] > 1", 2, "psum",
                    inputs=[VarInfo("d", [], "f32")], outputs=[VarInfo("e", [], "f32")],
                    lanes=lanes, source=SourceSpan("n.py", 2, 11, 2, 30, "f"), text_start=1,
                    text_end=1, groups=[list(mesh_order)])
    mesh = MeshInfo(["p"], [len(mesh_order)], list(mesh_order))
    return StepResult("f", "n.py", "pmap", jaxpr_text="{ lambda ; a:f32[4]. let\n"
                      "  e:f32[] = psum[axes=('p',)] d\n}", devices=list(mesh_order),
                      mesh=mesh, steps=[step])


def test_per_device_columns_come_in_mesh_order_in_the_device_views_colours():
    panel = build_panel(_psum_result(), 0, ["def f(x):", "    return x / lax.psum(x, 'p')"])
    assert [c.device for c in panel.columns] == [2, 0, 3, 1]
    assert [c.colour for c in panel.columns] == list(DEVICE_COLOURS[:4])
    assert device_colour_map([4], [2, 0, 3, 1])[2] == DEVICE_COLOURS[0]
    assert [c.inputs[0].text for c in panel.columns] == ["2", "0", "3", "1"]
    assert {c.outputs[0].text for c in panel.columns} == {"6"}
    assert panel.per_device and panel.scale is None
    assert panel.source == "line 2: return x / lax.psum(x, 'p')" and panel.line == 2
    assert panel.equation == "e:f32[] = psum[axes=('p',)] d"
    assert panel.notes == ["psum combines the values of devices 2 0 3 1"]


def test_devices_that_do_not_run_a_step_are_named():
    result = _psum_result(devices=(0, 3))
    result.steps[0].groups = []
    panel = build_panel(result, 0)
    assert [c.device for c in panel.columns] == [0, 3]
    assert panel.notes == ["devices 2, 1 do not run this step"]


def test_heat_maps_share_one_scale_centred_on_zero_when_signs_mix():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[-0.5, 0.0], [0.5, 1.0]])
    step = EvalStep("equation", "0", 0, "sub", inputs=[_var("a", a), _var("b", b)],
                    outputs=[_var("c", a - b)],
                    lanes=[LaneValues(None, [_value(a), _value(b)], [_value(a - b)])])
    panel = build_panel(StepResult("f", "f.py", "sharded", steps=[step]), 0)
    assert [c.title for c in panel.columns] == ["host"]
    assert panel.scale == (-4.0, 4.0) and panel.diverging
    assert panel.notes == []  # the variant's name says nothing: the stepping does
    split = build_panel(StepResult("f", "f.py", "mine", steps=[step], whole_over=[0, 1, 2, 3]), 0)
    assert split.notes == [whole_note([0, 1, 2, 3])] and "devices 0-3" in split.notes[0]
    positive = build_panel(StepResult("f", "f.py", "plain", steps=[
        EvalStep("equation", "0", 0, "neg", inputs=[_var("a", a)], outputs=[],
                 lanes=[LaneValues(None, [_value(a)], [])])]), 0)
    assert positive.scale == (1.0, 4.0) and not positive.diverging
