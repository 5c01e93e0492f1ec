"""The names a batched call passes read as English and never clash: ``xs`` for a batched
``x``, ``params_batch`` for a batched ``params`` (not ``paramss``); an unbatched argument
keeps its name (fast tier, no JAX)."""

from __future__ import annotations

from jaxviz.core.call_code import CallWriter


def _writer(names, in_axes):
    return CallWriter("train_step", names, in_axes, single_specs=[], batched_specs=None,
                      single_values=[], batch=8, simulated=True, device_count=8)


def test_a_name_ending_in_s_is_not_pluralised_again():
    names = _writer(["params", "x", "y", "lr"], [0, 0, 0, None]).arg_names(batched=True)
    assert names == ["params_batch", "xs", "ys", "lr"]


def test_batched_names_never_clash_with_the_functions_own():
    names = _writer(["x", "xs"], [0, 0]).arg_names(batched=True)
    assert len(set(names) | {"x"}) == 3 and all(n.isidentifier() for n in names)
    assert names[1] == "xs_batch"
