"""The storyboard against JAX: collectives, tiles, holders and values, for every gallery example.

Each claim of the storyboard is checked against something jaxviz does not
compute: the collectives against the tests' own reader of the compiled HLO
text (tests/helpers/hlo_oracle.py), the tiles against ``devices_indices_map`` of
the real shardings, and the output tiles against the real run's per-device
shards.
"""

from __future__ import annotations

import pytest

from jaxviz.model import TraceRequest, list_examples
from tests.helpers.jax_requests import example_request
from tests.helpers.storyboard_oracle import check_variant

# Not in the fast tier: every gallery example (or the corpus) through JAX.
pytestmark = pytest.mark.slow

CASES = [(ex.name, v) for ex in list_examples() for v in ex.variants]


@pytest.mark.parametrize("name, variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_gallery_storyboard_equals_jax(name, variant):
    sb = check_variant(example_request(name, [variant], want=("jaxpr", "story")), variant)
    assert sb.variant == variant
    assert sb.steps, "every program has at least one step"


# --------------------------------------------------------------------------- #
# Generated cases: elementwise ops, reductions, matmuls with random specs
# --------------------------------------------------------------------------- #

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from jaxviz.model import Target  # noqa: E402

MESHES = {1: ["a=8"], 2: ["a=2,b=4", "a=4,b=2"], 3: ["a=2,b=2,c=2"]}

PROGRAMS = {
    # name: (source, arg shapes (rows, cols) symbolic)
    "elementwise": ("import jax.numpy as jnp\ndef f(x, y):\n    return jnp.sin(x) * y + 1.0\n",
                    ("m,n", "m,n")),
    "sum_rows": ("def f(x):\n    return x.sum(axis=0)\n", ("m,n",)),
    "max_cols": ("def f(x):\n    return x.max(axis=1)\n", ("m,n",)),
    "matmul": ("def f(x, w):\n    return x @ w\n", ("m,k", "k,n")),
    "matmul_tanh": ("import jax.numpy as jnp\n"
                    "def f(x, w):\n    return jnp.tanh(x @ w).sum(axis=1)\n",
                    ("m,k", "k,n")),
}


def _spec_entry(axes_left: list[str], draw) -> str | None:
    choice = draw(st.sampled_from(["none", "one", "two"] if len(axes_left) >= 2 else
                                  ["none", "one"] if axes_left else ["none"]))
    if choice == "none":
        return None
    picked = draw(st.permutations(axes_left))[:1 if choice == "one" else 2]
    for a in picked:
        axes_left.remove(a)
    return picked[0] if len(picked) == 1 else tuple(picked)


@st.composite
def sharded_case(draw):
    ndim = draw(st.sampled_from([1, 2, 3]))
    mesh = draw(st.sampled_from(MESHES[ndim]))
    names = [part.split("=")[0] for part in mesh.split(",")]
    program = draw(st.sampled_from(sorted(PROGRAMS)))
    source, shapes = PROGRAMS[program]
    sizes = {d: draw(st.sampled_from([8, 16])) for d in "mkn"}
    batch = draw(st.sampled_from([None, 8]))
    args, specs = [], []
    for shape in shapes:
        dims = [sizes[d] for d in shape.split(",")]
        args.append("f32[" + ",".join(map(str, dims)) + "]")
        left = list(names)
        entries = [_spec_entry(left, draw) for _ in range(len(dims) + (batch is not None))]
        specs.append("P(" + ", ".join(repr(e) for e in entries) + ")")
    variant = draw(st.sampled_from(["sharded", "sharded", "shard_map"]))
    if variant == "shard_map" and program == "elementwise":
        specs[1] = specs[0]  # per-shard operands must have the same shape
    return dict(source=source, args=", ".join(args), specs=", ".join(specs), mesh=mesh,
                batch=batch, in_axes=", ".join(["0"] * len(shapes)) if batch else
                ", ".join(["None"] * len(shapes)), variant=variant)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sharded_case())
def test_generated_storyboard_equals_jax(case):
    req = TraceRequest(target=Target(case["source"], "<generated:f.py>", "f"),
                       variants=[case["variant"]], want=["jaxpr", "story"], args=case["args"],
                       in_axes=case["in_axes"], batch=case["batch"], mesh=case["mesh"],
                       specs=case["specs"])
    check_variant(req, case["variant"], allow_user_error=case["variant"] == "shard_map")
