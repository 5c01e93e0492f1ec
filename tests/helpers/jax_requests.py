"""Requests for the gallery examples as ``jaxviz jaxpr`` builds them, and importing a file
independently of jaxviz's loader. Importing this module sets 8 simulated CPU devices
(before JAX's backend starts)."""

from __future__ import annotations

import importlib.util
import sys

from jaxviz import core
from jaxviz.model import TraceRequest, TraceSettings
from jaxviz.model.sources import resolve_target

core.configure_devices(8)


def example_request(name: str, variants: list[str] | None = None,
                    want: tuple[str, ...] = ("jaxpr",), **overrides) -> TraceRequest:
    """A request for a gallery example with its own settings (as `jaxviz jaxpr` builds it)."""
    target, d = resolve_target(f"example:{name}")
    fields = {name: d[name] for name in TraceSettings.names()}
    fields.update(overrides)
    return TraceRequest(target=target, variants=variants or d["variants"], want=list(want),
                        **fields)



def import_file(path: str):
    """Import a file as its own module, independently of jaxviz's loader.

    A file that sets a mesh (``jax.set_mesh(mesh)`` as a statement) keeps it as the
    module's ``MODULE_MESH`` attribute; the test process's context is put back.
    """
    import jax

    name = f"reference_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    before = jax.sharding.get_mesh()
    try:
        spec.loader.exec_module(module)
    finally:
        after = jax.sharding.get_mesh()
        jax.set_mesh(None if before.empty else before)
    module.MODULE_MESH = None if after is before or after.empty else after
    return module
