"""Functions "defined in a notebook cell": compiled under an IPython-like cell file name
and registered in linecache, exactly as IPython does, so inspect.getsource finds them."""

from __future__ import annotations

import itertools
import linecache
import types

_counter = itertools.count(1)


def run_cell(code: str, namespace: dict | None = None) -> dict:
    """Run ``code`` as a notebook cell would; returns the cell's namespace."""
    filename = f"/tmp/ipykernel_4242/{next(_counter):08d}.py"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    ns = {"__name__": "__main__"} if namespace is None else namespace
    exec(compile(code, filename, "exec"), ns)
    return ns


def cell_function(code: str, name: str, namespace: dict | None = None) -> types.FunctionType:
    return run_cell(code, namespace)[name]


CONVOLVE = """import jax
import jax.numpy as jnp


def convolve(x, w):
    output = []
    for i in range(1, len(x)-1):
        output.append(jnp.dot(x[i-1:i+2], w))
    return jnp.array(output)
"""
