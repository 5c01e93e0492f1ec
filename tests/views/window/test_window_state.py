"""The window's state without a window: change callbacks and the request derived from it (no Qt)."""

from __future__ import annotations

import pytest

from jaxviz.model import Target, TraceRequest, TraceSettings
from jaxviz.views.window.window_state import WindowState, find_field_errors

SOURCE = "import jax.numpy as jnp\n\n\ndef f(x, w):\n    return jnp.dot(x, w)\n"


def state(**fields) -> WindowState:
    s = WindowState(source=SOURCE, filename="<editor:f.py>", function="f")
    s.set_setting("args", "f32[3], f32[3]")
    s.update(**fields)
    return s


def test_each_real_change_calls_the_callbacks_once_in_order():
    s = WindowState()
    seen: list[tuple[str, object]] = []
    s.events.function.connect(lambda v: seen.append(("first", v)))
    s.events.function.connect(lambda v: seen.append(("second", v)))
    s.events.devices.connect(lambda v: seen.append(("devices", v)))
    s.function = "f"
    s.function = "f"  # equal: nothing to say
    s.devices = 4
    s.update(function="g", devices=4)
    assert seen == [("first", "f"), ("second", "f"), ("devices", 4), ("first", "g"),
                    ("second", "g")]


def test_disconnected_callbacks_are_not_called_and_unknown_fields_are_refused():
    s = WindowState()
    seen: list[object] = []
    s.events.pane_layout.connect(seen.append)
    s.events.pane_layout.disconnect(seen.append)
    s.pane_layout = "tabs"
    assert seen == []
    with pytest.raises(AttributeError, match="colour"):
        s.events.colour.connect(seen.append)
    with pytest.raises(KeyError, match="args, batched_args"):
        s.set_setting("arguments", "f32[3]")


def test_settings_are_replaced_never_mutated():
    s = WindowState()
    seen: list[TraceSettings] = []
    s.events.settings.connect(seen.append)
    before = s.settings
    s.set_setting("mesh", "i=8")
    assert before.mesh is None and s.settings.mesh == "i=8" and seen == [s.settings]
    s.set_settings({"args": None, "axis_name": "", "batch": 4, "variants": ["vmap"]})
    assert s.settings == TraceSettings(args="", axis_name="i", batch=4)


def test_the_request_comes_from_the_state_alone():
    s = state(visible_variants=["vmap", "pmap"])
    s.set_setting("in_axes", "0, None")
    req = s.to_request()
    assert req == TraceRequest(target=Target(SOURCE, "<editor:f.py>", "f"),
                               args="f32[3], f32[3]", in_axes="0, None",
                               variants=["plain", "vmap", "pmap"])
    assert s.request_problem() is None


def test_compared_variants_are_traced_even_without_their_panes():
    s = state(visible_variants=["vmap"])
    seen = []
    s.events.compared.connect(seen.append)
    s.compared = ("plain", "sharded")
    assert s.to_request().variants == ["plain", "vmap", "sharded"]
    s.compared = None
    assert s.to_request().variants == ["plain", "vmap"]
    assert seen == [("plain", "sharded"), None]


@pytest.mark.parametrize("change, kind, where", [
    (dict(source="def f(x:\n    return x\n"), "syntax", 1),
    (dict(function=""), "function", None),
    (dict(devices=2), "fields", "mesh"),
])
def test_a_state_that_cannot_run_says_why(change, kind, where):
    s = state()
    s.set_setting("mesh", "i=8")
    s.update(**change)
    problem = s.request_problem()
    assert s.to_request() is None and problem.kind == kind
    assert where in (problem.line, problem.field)


def test_missing_arguments_are_asked_for_only_when_the_function_takes_some():
    s = state()
    s.set_setting("args", "")
    problem = s.request_problem()
    assert problem.kind == "args" and problem.field == "args" and "f32[5]" in problem.message
    s.source = "def f(x=1.0):\n    return x\n"
    assert s.to_request().args == ""


def test_panes_keep_their_order_and_one_is_always_shown():
    s = WindowState(visible_variants=["plain"])
    s.set_variant_visible("sharded", True)
    s.set_variant_visible("vmap", True)
    assert s.visible_variants == ["plain", "vmap", "sharded"]
    for v in ("plain", "vmap", "sharded"):
        s.set_variant_visible(v, False)
    assert s.visible_variants == ["plain"]


def test_the_device_view_shows_the_pane_clicked_else_the_most_parallel():
    s = WindowState(visible_variants=["plain", "vmap", "sharded"])
    assert s.device_variant() == "sharded"
    s.focused_variant = "vmap"
    assert s.device_variant() == "vmap"
    s.visible_variants = ["plain", "jit"]  # the clicked pane was hidden
    assert s.device_variant() == "jit"


def test_field_errors_point_into_the_text_as_typed():
    errors = find_field_errors({"args": "f32[3]", "mesh": "data=2", "specs": "  P('model')"}, 8)
    message, position = errors["specs"]
    assert "'model' is not an axis of the mesh (data)" in message and position == 4
    assert set(find_field_errors({"args": "f32[3", "axis_name": "2x"}, 8)) == {
        "args", "axis_name"}
    assert find_field_errors({"args": "f32[3]", "mesh": "i=16"}, 8)["mesh"][0].startswith(
        "this mesh needs 16 devices but there are 8")


def test_two_panes_show_and_trace_their_pair_whatever_panes_are_visible():
    s = state(visible_variants=["plain", "vmap"])
    s.set_two_panes(left="pmap", right="shard_map")
    assert s.shown_variants() == ["plain", "vmap"]  # not the layout yet
    s.pane_layout = "two panes"
    assert s.shown_variants() == ["pmap", "shard_map"]
    assert s.to_request().variants == ["plain", "pmap", "shard_map"]
    assert s.device_variant() == "pmap"
    assert s.visible_variants == ["plain", "vmap"]  # kept for the layout before


def test_choosing_one_sides_variant_for_the_other_swaps_them():
    s = state()
    s.set_two_panes(left="plain", right="pmap")
    s.set_two_panes(left="pmap")
    assert s.two_panes == ("pmap", "plain")
    s.set_two_panes(right="pmap")
    assert s.two_panes == ("plain", "pmap")
    with pytest.raises(ValueError, match="'nope' is not a variant"):
        s.set_two_panes(left="nope")


def test_only_the_device_and_timing_views_maximize():
    s = state()
    seen = []
    s.events.maximized.connect(seen.append)
    s.set_maximized("devices")
    s.set_maximized("")
    assert seen == ["devices", ""]
    with pytest.raises(ValueError, match="'editor' cannot be maximized"):
        s.set_maximized("editor")

def test_a_new_document_starts_the_views_choices_over():
    s = WindowState(source="def f(x):\n    return x\n", function="f")
    seen = []
    s.events.document.connect(seen.append)
    s.set_pane_view("pmap", "HLO")
    s.set_pane_view("vmap", "jaxpr")  # the default is not kept
    s.device_phase, s.focused_variant = 4, "pmap"
    assert s.pane_views == {"pmap": "HLO"} and s.pane_view("vmap") == "jaxpr"
    s.open_document()
    assert seen == [1]
    assert (s.pane_views, s.device_phase, s.focused_variant) == ({}, 0, None)


def test_the_timing_note_names_the_measured_function_and_the_open_one():
    s = WindowState(function="convolve")
    assert s.timing_note() == ""
    s.timing_of = "convolve"
    assert s.timing_note() == ""
    s.function = "layer"
    assert s.timing_note() == "recording of convolve — Run to measure layer"
    s.open_document()  # the run stays (marked), it is not thrown away
    assert s.timing_of == "convolve"


def test_the_current_result_is_a_field_that_announces_every_new_result():
    """A new trace result is news even when it equals the last one (the panes were
    refilled); setting the same object again is not."""
    from jaxviz.model import TraceResult

    s = WindowState()
    seen: list[object] = []
    s.events.result.connect(seen.append)
    s.events.details.connect(seen.append)
    first, again = TraceResult("f", "<editor:f.py>"), TraceResult("f", "<editor:f.py>")
    s.result = first
    s.result = first
    s.result = again
    s.details = again
    assert seen == [first, again, again]
    assert seen[1] is again and s.result is again
