"""Is a function already parallel as written? (read from its source, without running it)

A function decorated with ``jax.jit`` (with its shardings), ``jax.shard_map``
or ``jax.pmap``, a module-level name bound to such a call (``f = jax.jit(g)``),
or a module that sets a mesh for everything after it (``jax.set_mesh(mesh)``
as a statement) is already transformed: what the engineer wants to see first
is the function *as written* -- the ``as_written`` variant, the window's
default pane and ``jaxviz``'s default variant for it. The core's tests check
this reading against the objects JAX builds for the same files.

Example:
    >>> transformed_reason("import jax\\n@jax.jit\\ndef f(x):\\n    return x\\n", "f")
    'f is decorated with jax.jit (line 2)'
    >>> transformed_reason("def f(x):\\n    return x\\n", "f") is None
    True
"""

from __future__ import annotations

import ast

from jaxviz.model.parse import parse_module

#: The last part of the names of JAX's transformations that make a function parallel
#: or compiled as written (``jax.jit``, ``jax.shard_map``, ``jax.experimental.shard_map.
#: shard_map``, ``jax.pmap``, ``jax.vmap``).
TRANSFORMS = frozenset({"jit", "pjit", "shard_map", "pmap", "vmap", "smap"})


def _dotted(node: ast.expr) -> str | None:
    """``jax.jit`` for the expression ``jax.jit`` (None for anything but names and attributes)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _transform(node: ast.expr) -> str | None:
    """The JAX transformation an expression applies, as written (``jax.jit``), if any.

    Understands ``jax.jit``, ``jax.jit(...)`` (a decorator factory, as
    ``@jax.shard_map(mesh=..., ...)`` is), and ``partial(jax.jit, ...)``.
    """
    if isinstance(node, ast.Call):
        head = _dotted(node.func)
        if head and head.rsplit(".", 1)[-1] == "partial" and node.args:
            return _transform(node.args[0])
        return _transform(node.func)
    name = _dotted(node)
    if name and name.rsplit(".", 1)[-1] in TRANSFORMS:
        return name
    return None


def transformed_call(node: ast.expr) -> str | None:
    """The transformation a call expression applies (``jax.jit(g)`` -> ``jax.jit``), or None."""
    return _transform(node) if isinstance(node, ast.Call) else None


def transformed_reason(source: str, function: str) -> str | None:
    """Why ``function`` runs transformed as its module defines it; None when it does not.

    Returns:
        A phrase such as ``"f is decorated with jax.jit (line 4)"``,
        ``"f = jax.shard_map(...) (line 9)"`` or ``"the module calls
        jax.set_mesh (line 6)"``; None for a plain function, or source that does
        not parse.
    """
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return None
    reason = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for deco in node.decorator_list:
                name = _transform(deco)
                if name:
                    reason = f"{function} is decorated with {name} (line {deco.lineno})"
                    break
            else:
                reason = None  # a later plain definition replaces an earlier one
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == function for t in node.targets):
            name = transformed_call(node.value)
            reason = f"{function} = {name}(...) (line {node.lineno})" if name else None
    if reason:
        return reason
    return _sets_mesh(tree)


def _sets_mesh(tree: ast.Module) -> str | None:
    """``the module calls jax.set_mesh (line N)`` for a top-level ``jax.set_mesh(m)`` call."""
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            name = _dotted(node.value.func)
            if name and name.rsplit(".", 1)[-1] == "set_mesh":
                return f"the module calls {name} (line {node.lineno})"
    return None
