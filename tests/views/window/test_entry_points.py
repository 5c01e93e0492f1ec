"""Which function a file opens on, and the argument spec its signature gives (no JAX, no Qt)."""

from __future__ import annotations

import re

import pytest

from jaxviz.model.gallery import examples_dir
from jaxviz.model.specs import parse_args
from jaxviz.views.window.entry_points import (
    FunctionChoice,
    argument_hint,
    choose_function,
    entry_points,
)
from tests.helpers.sources import TRAINING


def test_the_training_file_opens_on_the_step_nothing_else_calls():
    assert entry_points(TRAINING) == ["make_params", "train_step"]
    choice = choose_function(TRAINING)
    assert choice.name == "train_step"
    assert choice.reason == "no other function of the file calls it"


def test_jaxviz_names_the_function_first_then_the_one_chosen_last_time():
    declared = TRAINING + '\nJAXVIZ = {"function": "forward", "args": "x"}\n'
    assert choose_function(declared, remembered="loss_fn").name == "forward"
    assert choose_function(declared).reason == "named in JAXVIZ"
    assert choose_function(TRAINING, remembered="loss_fn") == FunctionChoice(
        "loss_fn", "chosen last time")
    # A remembered or declared function the file no longer defines is passed over.
    assert choose_function(TRAINING, remembered="gone").name == "train_step"
    renamed = TRAINING + '\nJAXVIZ = {"function": "old_step"}\n'
    assert choose_function(renamed).name == "train_step"


def test_a_function_passed_by_name_counts_as_called():
    source = ("import jax\n\ndef f(x):\n    return x * 2\n\n"
              "def batched(xs):\n    return jax.vmap(f)(xs)\n\n"
              "def helper_after(y):\n    return y\n\n"
              "def g(y):\n    return helper_after(y) + 1\n")
    # f is named by batched, helper_after called by g: batched and g are entry points.
    assert entry_points(source) == ["batched", "g"]
    assert choose_function(source).name == "g"


def test_when_every_function_is_called_the_last_defined_is_chosen():
    source = ("def is_even(n):\n    return n == 0 or is_odd(n - 1)\n\n"
              "def is_odd(n):\n    return n != 0 and is_even(n - 1)\n")
    assert entry_points(source) == []
    assert choose_function(source).name == "is_odd"
    assert choose_function(source).reason == "defined last"


def test_recursion_lambdas_redefinitions_and_broken_files():
    recursive = "def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\n"
    assert choose_function(recursive).name == "fact"  # calling itself does not count
    lambdas = "square = lambda x: x * x\ntotal = lambda xs: sum(square(x) for x in xs)\n"
    assert entry_points(lambdas) == ["total"]
    twice = "def f(x):\n    return x\n\ndef g(x):\n    return f(x)\n\ndef f(x):\n    return -x\n"
    assert entry_points(twice) == ["g"]  # f's last definition comes after g; g still calls it
    assert choose_function("def f(:\n").name == ""
    assert choose_function("x = 1\n").reason == "the file defines no function"


@pytest.mark.parametrize("name", ["data_parallel", "mlp_predict", "convolve", "normalize"])
def test_gallery_examples_without_their_jaxviz_open_on_the_declared_function(name):
    source = (examples_dir() / f"{name}.py").read_text(encoding="utf-8")
    declared = re.search(r'"function":\s*"(\w+)"', source)
    assert declared is not None
    stripped = re.sub(r"(?ms)^JAXVIZ = \{.*?^\}", "", source)
    assert "JAXVIZ" not in stripped
    assert choose_function(stripped).name == declared.group(1)


def test_annotations_give_the_argument_spec():
    source = '''
from jaxtyping import Array, Float, Int

def step(w: f32[4, 3], b: "f32[3]", x: Float[Array, "32 4"], n: Int[Array, ""],
         lr: float, debug=False):
    return w
'''
    hint = argument_hint(source, "step")
    assert hint.params == ("w", "b", "x", "n", "lr")  # debug has a default
    assert hint.spec == "f32[4,3], f32[3], f32[32,4], i32[], f32[]"
    assert [str(a) for a in parse_args(hint.spec)] == ["f32[4,3]", "f32[3]", "f32[32,4]",
                                                       "i32[]", "f32[]"]


def test_missing_or_symbolic_annotations_give_no_spec_but_name_the_parameters():
    source = '''
import jax
from jaxtyping import Array, Float

def step(params, x: Float[Array, "batch 4"], y: jax.Array, z: f32[8]):
    return x
'''
    hint = argument_hint(source, "step")
    assert hint.specs == (None, None, None, "f32[8]")
    assert hint.spec is None
    assert hint.placeholder == "params, x, y, z: f32[8]"
    assert argument_hint(TRAINING, "train_step").placeholder == "params, x, y"
    assert argument_hint(TRAINING, "nothing").params == ()
    assert argument_hint("def f():\n    return 1\n", "f").spec is None


def test_opening_a_file_parses_its_text_once(monkeypatch):
    """What opening a file reads without running it -- its JAXVIZ, its functions, the one
    to open, that function's arguments, whether it is already transformed, whether the
    document can be traced -- comes from one parse of the text (each parse of a long
    file is milliseconds of the window's thread), and the answers are those of fresh
    parses."""
    import ast

    from jaxviz.model import parse
    from jaxviz.model.as_written import transformed_reason
    from jaxviz.model.gallery import declared_problem, declared_settings, list_functions
    from jaxviz.views.window.entry_points import argument_hint, choose_function, entry_points
    from jaxviz.views.window.window_state import WindowState

    source = ("import jax\nimport jax.numpy as jnp\n\n\ndef loss(w, x):\n"
              "    return jnp.sum(jnp.sin(x @ w))\n\n\nstep = jax.jit(jax.grad(loss))\n\n"
              'JAXVIZ = {"function": "loss", "args": "f32[3,2], f32[4,3]"}\n')

    def answers():
        return (declared_settings(source), declared_problem(source), list_functions(source),
                choose_function(source), entry_points(source), argument_hint(source, "loss"),
                transformed_reason(source, "step"),
                WindowState(source=source, function="loss").request_problem())

    parse.parse_module.cache_clear()
    real = ast.parse
    calls: list[str] = []

    def counting(text, *args, **kwargs):
        if text == source:
            calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    settings, problem, functions, choice, entries, hint, transformed, blocked = answers()
    assert len(calls) == 1
    assert settings == {"function": "loss", "args": "f32[3,2], f32[4,3]"} and problem is None
    assert functions == ["loss", "step"] and choice.name == "loss" and entries == ["loss"]
    assert hint.params == ("w", "x") and transformed and blocked.kind == "args"  # parsed
