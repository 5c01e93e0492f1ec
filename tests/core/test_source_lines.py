"""Each equation knows the source line (and columns) it came from, and its lines in the text."""

from __future__ import annotations

import re

from jaxviz import core
from jaxviz.core.trace import walk
from tests.helpers.jax_requests import example_request


def _lines(path):
    return open(path, encoding="utf-8").read().splitlines()


def test_convolve_line_by_line():
    req = example_request("convolve", ["plain"])
    vr = core.trace_request(req).variant("plain")
    src = _lines(req.target.filename)
    loop_line = next(i for i, text in enumerate(src, 1) if "jnp.dot(x[i-1:i+2], w)" in text)
    return_line = next(i for i, text in enumerate(src, 1) if "return jnp.array(output)" in text)
    by_prim = {}
    for eq in vr.equations:
        by_prim.setdefault(eq.primitive, []).append(eq)
    # Three iterations of the loop: three slices and three dots, all on the loop line.
    assert len(by_prim["slice"]) == 3 and len(by_prim["dot_general"]) == 3
    text = src[loop_line - 1]
    for eq in by_prim["slice"]:
        assert eq.source.file == req.target.filename
        assert eq.source.line == loop_line
        assert text[eq.source.column - 1:eq.source.end_column - 1] == "x[i-1:i+2]"
    for eq in by_prim["dot_general"]:
        assert eq.source.line == loop_line
        assert text[eq.source.column - 1:eq.source.end_column - 1] == "jnp.dot(x[i-1:i+2], w)"
    for eq in by_prim["concatenate"] + by_prim["broadcast_in_dim"]:
        assert eq.source.line == return_line
    # Every equation in the plain jaxpr came from the user's function.
    assert all(eq.source is not None for eq in vr.equations)


def test_equation_lines_point_into_the_text():
    for variant in ("plain", "vmap", "pmap", "sharded", "shard_map"):
        vr = core.trace_request(example_request("convolve", [variant])).variant(variant)
        lines = vr.jaxpr_text.splitlines()
        seen = 0
        for eq in walk(vr.equations):
            if eq.text_start is None:
                continue
            seen += 1
            first = lines[eq.text_start]
            assert re.search(rf"(= |^\s*){re.escape(eq.primitive)}\b", first), (variant, first)
            assert eq.text_start <= eq.text_end < len(lines)
            outs = " ".join(o.name for o in eq.outputs)
            if outs:
                assert first.strip().startswith(eq.outputs[0].name + ":"), (variant, first)
        assert seen == sum(1 for _ in walk(vr.equations)), variant


def test_nested_equations_sit_inside_their_parent():
    vr = core.trace_request(example_request("convolve", ["pmap"])).variant("pmap")
    outer = vr.equations[0]
    for eq in walk(outer.subjaxprs[0].equations):
        if eq.primitive == "shard_map":
            assert outer.text_start < eq.text_start <= eq.text_end < outer.text_end
