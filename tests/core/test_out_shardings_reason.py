"""A collective XLA inserts to meet a jit's out_shardings is explained by them, not by the
equation whose result it re-tiles (issue 26: "the reason names what asked for it").

The oracle is JAX: compiled with the out_shardings the program has an all-to-all that the
same program compiled without them does not have.
"""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from jaxviz import core
from jaxviz.views.devices import build_scene
from tests.helpers.corpus import CORPUS, case_request

# Not in the fast tier: JAX traces and compiles the program.
pytestmark = pytest.mark.slow


def _all_to_alls(out_shardings) -> int:
    namespace: dict = {}
    path = CORPUS / "out_shardings.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - our corpus
    mesh = namespace["MESH"]
    kwargs = {} if out_shardings is None else {"out_shardings": tuple(
        NamedSharding(mesh, spec) for spec in out_shardings)}
    fn = jax.jit(namespace["both"], in_shardings=(NamedSharding(mesh, P("i", None)),), **kwargs)
    hlo = fn.lower(np.asarray(namespace["x"])).compile().as_text()
    return len(re.findall(r"\ball-to-all(?:-start)?\(", hlo))


def test_the_all_to_all_out_shardings_asked_for_names_them():
    assert _all_to_alls((P(None, "i"), P())) >= 1 and _all_to_alls(None) == 0  # by JAX
    req, variant = case_request("out_shardings.py", "sharded", want=("jaxpr", "story", "value"))
    phases = build_scene(core.trace_request(req), variant).phases
    [retile] = [ph for ph in phases if ph.kind == "collective" and "all-to-all" in ph.title]
    assert "out_shardings ask for the sin result as P(None, 'i')" in retile.caption
    # the all-reduce has its own reason (the reduced dimension is split), not out_shardings
    [reduce] = [ph for ph in phases if ph.kind == "collective" and "all-reduce" in ph.title]
    assert "reduced dimension 0 of x is split over 'i'" in reduce.caption
    assert "out_shardings" not in reduce.caption
