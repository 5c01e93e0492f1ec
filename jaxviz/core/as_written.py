"""The ``as_written`` variant: the function called exactly as its module defines it.

Its own ``jax.jit`` (with its shardings), ``jax.shard_map``, ``jax.pmap``, the
mesh the module set with ``jax.set_mesh`` and the module-level arrays and
meshes the arguments name -- jaxviz adds nothing. What jaxviz may add is
where the arguments live: with ``--specs``, each argument is placed with
``jax.device_put`` (onto the module's mesh if it set one, else the request's),
as people place arrays before they call a sharded function. Its code is the
module's own source followed by the arguments and the call.
"""

from __future__ import annotations

from typing import Any

from jax.sharding import Mesh

from jaxviz.core import meshes
from jaxviz.core.call_code import partition_text, sharding_tree_text
from jaxviz.core.prepared import Prepared
from jaxviz.model.as_written import transformed_reason
from jaxviz.model.notes import VariantNote


def prepare(builder: Any) -> Prepared:
    """The function as written, on the arguments of one call (placed by ``--specs`` if given).

    Args:
        builder: the request's :class:`~jaxviz.core.variants.VariantBuilder` (its
            settings, arguments, call writer and meshes).
    """
    args = list(builder.single)
    extra: list[str] = []
    mesh_line = None
    mesh = None
    if builder.settings.specs is not None:
        mesh, name = placement_mesh(builder)
        specs = builder.partition_specs(mesh)
        builder.check_divisible(mesh, specs, args, "as_written")
        args = [meshes.place(arg, meshes.shardings(mesh, spec)) for arg, spec in zip(args, specs)]
        if name == "mesh" and mesh is builder.mesh():
            mesh_line = builder.mesh_text()
        for arg_name, spec in zip(builder.names, specs):
            where = partition_text(spec) if name is None else sharding_tree_text(spec, name)
            extra.append(f"{arg_name} = jax.device_put({arg_name}, {where})")
    call = builder.writer.direct_call(builder.name, False)
    code = builder.writer.code(call, False, mesh_line, extra=extra)
    return Prepared("as_written", builder.fn, args, code, mesh=mesh,
                    notes=[VariantNote("as_written", _words(builder, mesh))])


def placement_mesh(builder: Any) -> tuple[Mesh, str | None]:
    """The mesh ``--specs`` place the arguments on, and how the code names it.

    The mesh the module set (the code writes bare ``P(...)``, which
    ``jax.device_put`` reads in that mesh: name None); else, unless ``--mesh``
    was given, the module's one module-level mesh (by its name); else the
    request's mesh (``mesh``).
    """
    if builder.module_mesh is not None:
        return builder.module_mesh, None
    if not builder.mesh_given:
        found = [(k, v) for k, v in builder.namespace.items()
                 if isinstance(v, Mesh) and not k.startswith("_")]
        if len({id(v) for _, v in found}) == 1:
            return found[0][1], found[0][0]
    return builder.mesh(), "mesh"


def _words(builder: Any, mesh: Mesh | None) -> str:
    """The note: what the module does to the function, and the mesh it runs inside."""
    source = builder.source
    reason = transformed_reason(source, builder.name) if source else None
    parts = [f"{builder.name} as its module defines it"
             + (f": {reason}" if reason else ", a plain function")]
    if builder.module_mesh is not None:
        mesh = builder.module_mesh
        types = ", ".join(f"{n}: {str(t).rsplit('.', 1)[-1].lower()}"
                          for n, t in zip(mesh.axis_names, mesh.axis_types))
        sizes = ",".join(f"{n}={s}" for n, s in mesh.shape.items())
        parts.append(f"runs inside the mesh the module set ({sizes}; {types})")
    if builder.settings.specs is not None and mesh is not None:
        sizes = ",".join(f"{n}={s}" for n, s in mesh.shape.items())
        parts.append(f"the arguments are placed on the mesh {sizes} by the partition specs "
                     f"given (jax.device_put)")
    return "; ".join(parts)
