"""What a notebook's function becomes in the engine (jaxviz.notebook.shipping).

The shipped module is run here in a fresh namespace, as the engine runs it:
the function must give what the original gives on the same arguments, and each
argument must arrive bit for bit. What cannot travel is refused by name.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxviz.notebook.shipping import ShippingError, ship
from tests.helpers.notebook_cells import CONVOLVE, cell_function, run_cell


def _run_shipped(shipment):
    ns: dict = {"__name__": "shipped"}
    exec(compile(shipment.source, shipment.filename, "exec"), ns)
    args = eval(f"({shipment.args},)", ns)
    return ns[shipment.function], args


def test_a_cell_function_keeps_its_lines_and_computes_the_same():
    convolve = cell_function(CONVOLVE, "convolve")
    x, w = jnp.arange(5.), jnp.array([2., 3., 4.])
    shipment = ship(convolve, (x, w))
    lines = shipment.source.splitlines()
    assert lines[4] == "def convolve(x, w):"  # line 5, as in the cell
    assert lines[7].strip() == "output.append(jnp.dot(x[i-1:i+2], w))"
    f, args = _run_shipped(shipment)
    np.testing.assert_array_equal(f(*args), convolve(x, w))
    assert shipment.abstract_args == "f32[5], f32[3]"


@pytest.mark.parametrize("value", [
    jnp.arange(6, dtype=jnp.int32).reshape(2, 3),
    jnp.linspace(-1, 1, 7, dtype=jnp.bfloat16),
    np.array([[1.5, np.nan], [np.inf, -0.0]], dtype=np.float64),
    jnp.array([True, False]),
    jnp.array(3.25, dtype=jnp.float16),
])
def test_argument_values_arrive_bit_for_bit(value):
    def ident(a):
        return a

    _, (arrived,) = _run_shipped(ship(ident, (value,)))
    assert arrived.dtype == value.dtype and arrived.shape == value.shape
    assert np.asarray(arrived).tobytes() == np.asarray(value).tobytes()


def test_shape_dtype_structs_become_abstract_types():
    def f(a, b):
        return a

    shipment = ship(f, (jax.ShapeDtypeStruct((8, 5), jnp.float32),
                        jax.ShapeDtypeStruct((), jnp.int32)))
    assert shipment.args == "f32[8,5], i32[]"


def test_globals_travel_as_imports_helpers_and_values():
    ns = run_cell("import jax.numpy as jnp\nfrom jax import lax\nSCALE = 3.0\n"
                  "OFFSETS = (1, 2)\n\n\ndef helper(v):\n    return v * SCALE\n")
    f = cell_function("def f(x):\n    return lax.abs(helper(x)) + OFFSETS[1] + jnp.ones(3)\n",
                      "f", ns)
    shipment = ship(f, (jnp.array([-1., 2., -3.]),))
    assert "import jax.numpy as jnp" in shipment.source
    assert "def helper(v):" in shipment.source and "SCALE = 3.0" in shipment.source
    g, args = _run_shipped(shipment)
    np.testing.assert_array_equal(g(*args), f(*args))


def test_what_cannot_travel_is_refused_by_name():
    def outer():
        k = 2.0

        def inner(x):
            return x * k
        return inner

    with pytest.raises(ShippingError, match="closure over k"):
        ship(outer(), (jnp.ones(2),))
    with pytest.raises(ShippingError, match="lambda"):
        ship(lambda x: x, (jnp.ones(2),))
    mesh = jax.make_mesh((8,), ("i",))
    f = cell_function("def f(x):\n    return x + len(MESH.devices)\n", "f", {"MESH": mesh})
    with pytest.raises(ShippingError, match=r"uses the global MESH \(Mesh\)"):
        ship(f, (jnp.ones(2),))
    g = cell_function("def g(x):\n    return x + undefined_name\n", "g")
    with pytest.raises(ShippingError, match="undefined_name, which is not defined"):
        ship(g, (jnp.ones(2),))
    h = cell_function("def h(x):\n    return x\n", "h")
    with pytest.raises(ShippingError, match=r"argument 1 \(object\)"):
        ship(h, (object(),))


@pytest.mark.parametrize("options, message", [
    ({"devices": 0}, "devices=0: give a whole number from 1"),
    ({"devices": float("nan")}, "devices=nan"),
    ({"timeout": -1}, "timeout=-1"),
    ({"variant": "pmapp"}, "unknown variant 'pmapp'"),
    ({"in_axis": 0}, "unknown option 'in_axis'"),
])
def test_bad_options_are_refused_before_the_engine_starts(options, message):
    import jaxviz

    f = cell_function("def f(x):\n    return x\n", "f")
    with pytest.raises(ValueError, match=re.escape(message)):
        jaxviz.view(f, jnp.ones(8), **options)


def test_large_arrays_can_travel_as_their_type_only():
    f = cell_function("def f(x, y):\n    return x\n", "f")
    shipment = ship(f, (jnp.ones((64, 64)), jnp.arange(3)), value_limit=4096)
    assert shipment.args == "f32[64,64], _jaxviz_arg1"
    assert shipment.source.count("b64decode") == 1
