"""Build real arguments from spec trees, and batch them for vmap / pmap / sharding."""

from __future__ import annotations

import inspect
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxviz.core.call_code import sample
from jaxviz.model import ErrorInfo, TraceSettings
from jaxviz.model.call_options import check_static_values, parse_static
from jaxviz.model.errors import UserError, from_exception, spec_error
from jaxviz.model.notes import VariantNote
from jaxviz.model.specs import (
    DTYPES,
    Aval,
    Dict,
    Expr,
    Seq,
    Spec,
    SpecError,
    StaticArg,
    format_spec,
    leaves,
    parse_args,
    parse_call_args,
)

#: The variants that call the function on batched arguments.
BATCHED_VARIANTS = ("vmap", "pmap", "sharded", "shard_map")


def parse(text: str, field: str = "args") -> list[Spec]:
    try:
        return parse_args(text)
    except SpecError as exc:
        raise spec_error(exc, field, "argument spec" if field == "args"
                         else "batched argument spec") from None


def parse_with_static(text: str, static_text: str | None
                      ) -> tuple[list[Spec], list[tuple[StaticArg, str]]]:
    """The positional argument specs, and the static arguments with the field each was
    typed in: keywords of ``text`` (``f32[8], n=3``: ``args``) and the ``static``
    setting's (``n=3``: ``static``).

    Raises:
        UserError: a spec that does not parse, a static argument given twice or
            given as a type, at its position in its field.
    """
    try:
        positional, keywords = parse_call_args(text)
        check_static_values(keywords, text)
    except SpecError as exc:
        raise spec_error(exc, "args", "argument spec") from None
    try:
        extra = parse_static(static_text)
    except SpecError as exc:
        raise spec_error(exc, "static", "static arguments") from None
    for arg in extra:
        if any(k.name == arg.name for k in keywords):
            raise UserError(ErrorInfo(
                kind="spec", field="static", position=arg.position,
                message=f"static argument {arg.name!r} is given both in the arguments and "
                        f"in the static arguments: give it once"))
    return positional, [(k, "args") for k in keywords] + [(k, "static") for k in extra]


def build_static(static: list[tuple[StaticArg, str]], namespace: dict[str, Any],
                 texts: dict[str, str], filename: str) -> dict[str, Any]:
    """Evaluate the static arguments in the file's namespace, by name.

    Args:
        static: each static argument and the field it was typed in.
        texts: each field's text (for the position of an error).
    """
    return {arg.name: _build(arg.spec, namespace, texts.get(field) or "", filename, field,
                             traced=False)
            for arg, field in static}


def leading_static(fn: Any, static: dict[str, Any] | list[str]) -> list[str]:
    """The static arguments that are the function's first positional parameters, in order.

    They are passed by position, before the arguments (``pairwise(dist, xs)`` for
    ``pairwise(f, xs)`` with ``f`` static): by name they would collide with the
    first positional argument.
    """
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []
    out = []
    for p in params:
        if p.kind != p.POSITIONAL_OR_KEYWORD or p.name not in static:
            break
        out.append(p.name)
    return out


def check_static_params(fn: Any, name: str, static: dict[str, Any], nargs: int) -> None:
    """Static arguments must name parameters that come after the positional arguments.

    Raises:
        UserError: naming the parameter and what the function takes.
    """
    if not static:
        return
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    kinds = inspect.Parameter
    keyword_ok = any(p.kind == kinds.VAR_KEYWORD for p in params.values())
    positional = [p.name for p in params.values()
                  if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
    lead = leading_static(fn, static)
    positional = positional[len(lead):]  # the arguments fill the parameters after them
    for key in static:
        if key in lead:
            continue
        param = params.get(key)
        if param is None and not keyword_ok:
            raise UserError(ErrorInfo(
                kind="spec", field="static",
                message=f"{name} has no parameter {key!r} for a static argument; its "
                        f"parameters are {', '.join(params) or 'none'}"))
        if param is not None and param.kind == kinds.POSITIONAL_ONLY:
            raise UserError(ErrorInfo(
                kind="spec", field="static",
                message=f"{key!r} is a positional-only parameter of {name}: it cannot be "
                        f"passed by name as a static argument"))
        if key in positional[:nargs]:
            raise UserError(ErrorInfo(
                kind="spec", field="static",
                message=f"{key!r} is parameter {positional.index(key) + 1} of {name}, but "
                        f"{nargs} arguments are given by position before the static ones: "
                        f"give fewer positional arguments, or give {key!r} by position"))


def check_traceable(single: list[Any], names: list[str], text: str, specs: list[Spec]) -> None:
    """Every positional argument is made of arrays (or numbers): JAX traces nothing else.

    Raises:
        UserError: naming the argument, what it is, and how to pass it instead
            (as a static argument, by name).
    """
    for i, (arg, name) in enumerate(zip(single, names)):
        for leaf in jax.tree.leaves(arg):
            if _traceable(leaf):
                continue
            source = format_spec(specs[i]) if i < len(specs) else name
            raise UserError(ErrorInfo(
                kind="spec", field="args", position=max(text.find(source), 0),
                message=f"argument {i + 1} ({name}) is a {type(leaf).__name__}, not an array: "
                        f"JAX traces arrays only. Pass it as a static argument, by name: "
                        f"{name}={source} in the arguments, or --static \"{name}={source}\""))


def _traceable(leaf: Any) -> bool:
    if isinstance(leaf, (jax.ShapeDtypeStruct, jax.Array, np.ndarray, np.generic,
                         bool, int, float, complex)):
        return True
    return hasattr(leaf, "__jax_array__") or hasattr(leaf, "aval")


def stacked_notes(single: list[Any], names: list[str], in_axes: list[int | None], batch: int,
                  specs: list[Spec]) -> list[VariantNote]:
    """What the batch is made of when no batched arguments were given (never silent).

    Arguments given as values are repeated: ``8 copies of x stacked along a new
    axis 0``; arguments given as types get random values of the batched shape.
    """
    parts = []
    for name, axis, spec in zip(names, in_axes, specs):
        if axis is None:
            continue
        kinds = {type(leaf) for leaf in leaves(spec)}
        if kinds == {Aval}:
            parts.append(f"{name}: {batch} random examples of {_spec_types(spec)} along a new "
                         f"axis {axis}")
        else:
            parts.append(f"{batch} copies of {name} stacked along a new axis {axis}")
    if not parts:
        return []
    return [VariantNote("stacked_copies", "no batched arguments given: " + "; ".join(parts))]


def _spec_types(spec: Spec) -> str:
    found = leaves(spec)
    return str(found[0]) if len(found) == 1 else f"({', '.join(map(str, found))})"


def build(specs: list[Spec], namespace: dict[str, Any], text: str, filename: str,
          field: str = "args") -> list[Any]:
    """Turn spec trees into call arguments.

    Abstract types become :class:`jax.ShapeDtypeStruct` (enough to trace and
    lower; :func:`concrete` turns them into sample arrays for real calls);
    expressions are evaluated in the user's namespace.
    """
    return [_build(s, namespace, text, filename, field) for s in specs]


def _build(spec: Spec, ns: dict[str, Any], text: str, filename: str, field: str,
           traced: bool = True) -> Any:
    if isinstance(spec, Aval):
        return jax.ShapeDtypeStruct(spec.shape, jnp.dtype(DTYPES[spec.dtype]))
    if isinstance(spec, Seq):
        items = [_build(s, ns, text, filename, field, traced) for s in spec.items]
        return items if spec.kind == "list" else tuple(items)
    if isinstance(spec, Dict):
        return {k: _build(v, ns, text, filename, field, traced) for k, v in spec.items}
    assert isinstance(spec, Expr)
    try:
        value = eval(compile(spec.source, f"<{field}>", "eval"), ns)  # noqa: S307 - user's own code
    except Exception as exc:  # noqa: BLE001
        info = from_exception(exc, filename, kind="spec")
        info.field = field
        info.position = max(text.find(spec.source), 0)
        info.message = f"evaluating {spec.source!r} in the {field} spec failed: {info.message}"
        raise UserError(info) from None
    if traced:
        _check_traceable(value, spec.source, text, field)
    return value


def _check_traceable(value: Any, source: str, text: str, field: str) -> None:
    """Refuse a value JAX cannot take as an argument (a string, an int beyond int32...).

    Raises:
        UserError: (``kind="spec"``) naming the expression and why, at its position.
    """
    for leaf in jax.tree.leaves(value):
        if isinstance(leaf, (jax.Array, np.ndarray, jax.ShapeDtypeStruct)):
            continue
        if field == "args" and not _traceable(leaf):
            continue  # a mesh, a function...: check_traceable says to pass it as static
        try:
            jnp.asarray(leaf)
        except (TypeError, ValueError, OverflowError) as exc:
            raise UserError(ErrorInfo(
                kind="spec", field=field, position=max(text.find(source), 0),
                message=f"{source!r} in the {field} spec is not a value JAX can trace: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0]}")) from None


def check_count(fn: Any, name: str, count: int, static: dict[str, Any] | None = None) -> None:
    """Refuse an argument spec that gives ``fn`` the wrong number of arguments
    (``count`` by position, ``static`` by name).

    Raises:
        UserError: (``kind="spec"``, field ``args``) saying what ``fn`` takes.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or C function: JAX will say
        return
    lead = leading_static(fn, static or {})
    rest = {k: v for k, v in (static or {}).items() if k not in lead}
    try:
        signature.bind(*lead, *range(count), **rest)
    except TypeError:
        params = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p.name for p in params if p.default is p.empty]
        takes = (f"{len(required)} argument{'s' if len(required) != 1 else ''}"
                 if len(required) == len(params) else
                 f"{len(required)} to {len(params)} arguments")
        names = f" ({', '.join(p.name for p in params)})" if params else ""
        raise UserError(ErrorInfo(
            kind="spec", field="args", position=0,
            message=f"{name} takes {takes}{names}, but the argument spec gives "
                    f"{count + len(static or {})}")) from None


def concrete(value: Any, seed: int = 0) -> Any:
    """A value tree with abstract leaves replaced by random arrays (:data:`RANDOM_RECIPE`).

    The recipe ``jaxviz run`` and ``jaxviz step`` share, so both show the same
    numbers for the same spec and seed (:func:`described_concrete` says how).
    """
    return random_concrete(value, seed)[0]


def add_batch_axis(args: list[Any], in_axes: list[int | None], batch: int) -> list[Any]:
    """Add a batch axis of size ``batch`` at each argument's ``in_axes`` position."""
    out = []
    for i, (arg, axis) in enumerate(zip(args, in_axes)):
        if axis is None:
            out.append(arg)
            continue
        out.append(jax.tree.map(lambda leaf, axis=axis, i=i: _batch_leaf(leaf, axis, batch, i),
                                arg))
    return out


def _batch_leaf(leaf: Any, axis: int, batch: int, argno: int) -> Any:
    shape = tuple(np.shape(leaf)) if not isinstance(leaf, jax.ShapeDtypeStruct) else leaf.shape
    rank = len(shape)
    if not -rank - 1 <= axis <= rank:
        raise UserError(ErrorInfo(
            kind="option", field="in_axes",
            message=f"in_axes {axis} is out of range for argument {argno + 1} of rank {rank}"))
    pos = axis if axis >= 0 else rank + 1 + axis
    new_shape = shape[:pos] + (batch,) + shape[pos:]
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return jax.ShapeDtypeStruct(new_shape, leaf.dtype)
    value = jnp.asarray(leaf)
    return jnp.broadcast_to(jnp.expand_dims(value, pos), new_shape)


def check_batched(args: list[Any], in_axes: list[int | None], names: list[str]) -> None:
    """Refuse batched arguments that lack the batch axis ``in_axes`` names, or whose batch
    axes differ in size (``vmap`` would raise about ranks or "inconsistent sizes").

    Raises:
        UserError: (``kind="spec"``, field ``batched_args``) naming the argument.
    """
    sizes: dict[int, str] = {}
    for i, (arg, axis) in enumerate(zip(args, in_axes)):
        if axis is None:
            continue
        for leaf in jax.tree.leaves(arg):
            shape = tuple(leaf.shape) if hasattr(leaf, "shape") else np.shape(leaf)
            if not -len(shape) <= axis < len(shape):
                raise UserError(ErrorInfo(
                    kind="spec", field="batched_args", message=(
                        f"batched argument {i + 1} ({names[i]}) has shape {shape}: in_axes "
                        f"{axis} needs a batch axis there (a batched argument has one more "
                        f"axis than the argument of one call)")))
            sizes.setdefault(int(shape[axis]), f"{names[i]}: {shape[axis]}")
    if len(sizes) > 1:
        raise UserError(ErrorInfo(kind="spec", field="batched_args", message=(
            f"the batched arguments have batch axes of different sizes "
            f"({', '.join(sizes.values())}): give them one batch size")))


def batch_size_of(args: list[Any], in_axes: list[int | None]) -> int | None:
    """The batch size of already-batched arguments (from the first batched leaf)."""
    for arg, axis in zip(args, in_axes):
        if axis is None:
            continue
        for leaf in jax.tree.leaves(arg):
            shape = leaf.shape if hasattr(leaf, "shape") else np.shape(leaf)
            if len(shape) > (axis if axis >= 0 else -axis - 1):
                return int(shape[axis])
    return None


def split_batch(args: list[Any], in_axes: list[int | None], groups: int) -> list[Any]:
    """Reshape each batch axis ``B`` into ``(groups, B // groups)`` (for pmap of vmap)."""
    out = []
    for arg, axis in zip(args, in_axes):
        if axis is None:
            out.append(arg)
            continue

        def split(leaf: Any, axis: int = axis) -> Any:
            shape = tuple(leaf.shape)
            pos = axis if axis >= 0 else len(shape) + axis
            new_shape = shape[:pos] + (groups, shape[pos] // groups) + shape[pos + 1:]
            if isinstance(leaf, jax.ShapeDtypeStruct):
                return jax.ShapeDtypeStruct(new_shape, leaf.dtype)
            return jnp.reshape(leaf, new_shape)

        out.append(jax.tree.map(split, arg))
    return out


#: How :func:`random_concrete` fills abstract leaves (said in every stepping result).
RANDOM_RECIPE = ("numpy.random.default_rng({seed}), drawn leaf by leaf in argument order: "
                 "floats standard normal rounded to 2 decimals, signed integers uniform in "
                 "[-5, 5], unsigned integers uniform in [0, 9], booleans fair coin flips")


def random_leaf(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any) -> jax.Array:
    """One random array of ``shape`` and ``dtype``, following :data:`RANDOM_RECIPE`.

    The recipe is :func:`jaxviz.core.call_code.sample`, whose source "Copy as
    code" carries, so the copied code makes the same values.
    """
    try:
        return sample(rng, tuple(shape), dtype)
    except TypeError:
        raise UserError(ErrorInfo(kind="spec", field="args",
                                  message=f"no random values for dtype {jnp.dtype(dtype)}: "
                                          f"give the argument as an expression instead")) \
            from None


def random_concrete(value: Any, seed: int) -> tuple[Any, list[bool]]:
    """A value tree with abstract leaves replaced by random arrays (:data:`RANDOM_RECIPE`).

    Returns:
        ``(tree, random)``: the concrete tree, and per leaf (in flattening
        order) whether it was made random.
    """
    rng = np.random.default_rng(seed)
    leaves, tree = jax.tree.flatten(value)
    out, made = [], []
    for leaf in leaves:
        if isinstance(leaf, jax.ShapeDtypeStruct):
            value = random_leaf(rng, tuple(leaf.shape), leaf.dtype)
            if leaf.sharding is not None:  # placed (as_written with --specs)
                value = jax.device_put(value, leaf.sharding)
            out.append(value)
            made.append(True)
        else:
            out.append(leaf)
            made.append(False)
    return jax.tree.unflatten(tree, out), made


def described_concrete(abstract: list[Any], leaves: list[str], seed: int, variant: str,
                       settings: TraceSettings, batched: bool) -> tuple[list[Any], str,
                                                                          list[str]]:
    """Concrete arguments for a variant's call, and one sentence per kind saying how.

    Args:
        abstract: the variant's arguments (abstract leaves where the spec gives types).
        leaves: the name of every argument leaf, in flattening order.
        seed: the seed of the random values.
        variant: the variant the arguments are for.
        settings: the request's settings (the argument texts the sentences quote).
        batched: whether the function has batched arguments (``in_axes``).

    Returns:
        ``(arguments, how, random)``: the concrete arguments, the sentences, and the
        names of the leaves filled with random values.
    """
    args, made_random = random_concrete(abstract, seed)
    random = [n for n, r in zip(leaves, made_random) if r]
    given = [n for n, r in zip(leaves, made_random) if not r]
    parts = []
    if random:
        parts.append(f"{', '.join(random)}: random values from "
                     f"{RANDOM_RECIPE.format(seed=seed)}.")
    if given:
        mapped = variant in BATCHED_VARIANTS and batched
        if mapped and settings.batched_args:
            where, tail = f"the batched arguments {settings.batched_args!r}", ""
        else:
            where = f"the arguments {settings.args!r}"
            tail = " (batched ones repeated along their batch axis)" if mapped else ""
        parts.append(f"{', '.join(given)}: evaluated from {where} in the file's "
                     f"namespace{tail}.")
    return args, " ".join(parts), random
