"""What a notebook's function becomes in the engine: source text and argument specs.

The kernel has usually imported JAX already (often with one CPU device), and JAX
fixes its device count when its backend starts. So the variants run in jaxviz's
engine process with the device count asked for, and the function travels there
as *text*:

* the function's own source (``inspect.getsource``; IPython keeps every cell in
  :mod:`linecache`, so functions defined in cells work), at the same line
  numbers as in its cell or file, so the jaxpr's source lines point where the
  user wrote them;
* for every global name the function (or a helper it calls) loads: a module
  becomes its ``import`` (``import jax.numpy as jnp``), a function defined in the
  notebook its source, a function or class of an importable module a ``from ...
  import``, an array, number, string or a tuple/list/dict of them its value;
* each argument: an array's values (shape, dtype and bytes, in base64) or, for a
  ``jax.ShapeDtypeStruct``, its abstract type (``f32[8,5]``).

What cannot travel is refused with a message naming it and what to do instead:
a closure over local variables, a lambda, a global of another kind (a
``Mesh``, an open file, an object of a class defined in the notebook).

No JAX here: arrays are read through NumPy (``numpy.asarray``) and their
``shape``/``dtype``/``sharding`` attributes.
"""

from __future__ import annotations

import base64
import builtins
import dis
import inspect
import sys
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.specs import DTYPES

#: NumPy dtype name -> the jaxpr's short name (``float32`` -> ``f32``).
SHORT_DTYPES = {numpy_name: short for short, numpy_name in DTYPES.items()}
#: The largest argument shipped by value (bytes); larger ones: pass a ShapeDtypeStruct.
MAX_VALUE_BYTES = 64 * 1024 * 1024


class ShippingError(ValueError):
    """The function or an argument cannot be sent to the engine process; says why."""


@dataclass
class Shipment:
    """A function as the engine receives it.

    Attributes:
        source: the module text: the function at its own line numbers, then its
            imports, helpers, globals and arguments.
        filename: the name it is compiled under (the cell's or file's own name).
        function: the function's name.
        args: the call's arguments, one expression or abstract type per argument
            (``_jaxviz_arg0, f32[3]``).
        shapes: each argument's shape and short dtype (``None`` for a non-array).
        arrays: each argument itself (to read its sharding from).
        abstract_args: ``args`` with every array as its abstract type (``f32[8,5]``):
            the call by shape, for timings.
    """

    source: str
    filename: str
    function: str
    args: str
    shapes: list[tuple[tuple[int, ...], str] | None] = field(default_factory=list)
    arrays: list[Any] = field(default_factory=list)
    abstract_args: str = ""


def is_shape_dtype(value: Any) -> bool:
    """A ``jax.ShapeDtypeStruct`` (or any shape-and-dtype placeholder without values)."""
    return type(value).__name__ == "ShapeDtypeStruct" and hasattr(value, "shape")


def is_array(value: Any) -> bool:
    """An array with values (NumPy or JAX)."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "__array__")


def short_dtype(dtype: Any) -> str:
    name = str(getattr(dtype, "name", dtype))
    try:
        return SHORT_DTYPES[name]
    except KeyError:
        raise ShippingError(f"dtype {name} cannot be shipped (known: "
                            f"{', '.join(SHORT_DTYPES)})") from None


def abstract_type(shape: tuple[int, ...], dtype: Any) -> str:
    """``f32[8,5]``: the jaxpr notation for one array type."""
    return f"{short_dtype(dtype)}[{','.join(str(int(d)) for d in shape)}]"


def ship(f: Any, args: tuple[Any, ...], value_limit: int | None = None) -> Shipment:
    """The :class:`Shipment` for calling ``f(*args)`` in the engine.

    ``value_limit``: arrays larger than this many bytes travel as their abstract type
    only (the window's editor shows the source, where a megabyte of base64 has no place).

    Raises:
        ShippingError: the function or an argument cannot be sent; the message
            names it and says what to do.
    """
    func = _plain_function(f)
    name = func.__name__
    lines, start = _source_lines(func)
    writer = _ModuleWriter(func, value_limit)
    writer.visit_function(func)
    arg_texts, shapes, abstract = [], [], []
    for i, value in enumerate(args):
        text, shape = writer.argument(f"_jaxviz_arg{i}", value, f"argument {i + 1}")
        arg_texts.append(text)
        shapes.append(shape)
        abstract.append(text if shape is None
                        else f"{shape[1]}[{','.join(str(d) for d in shape[0])}]")
    head = "; ".join(writer.imports)
    body = textwrap.dedent("".join(lines))
    if head and start >= 2:  # the imports fit on the line above: lines stay as written
        text = "\n" * (start - 2) + head + "\n" + body
    elif head:
        text = head + "\n" + "\n" * max(start - 2, 0) + body
    else:
        text = "\n" * (start - 1) + body
    tail = "\n\n".join(writer.definitions)
    source = text.rstrip("\n") + "\n\n\n" + tail + "\n" if tail else text
    return Shipment(source=source, filename=func.__code__.co_filename, function=name,
                    args=", ".join(arg_texts), shapes=shapes, arrays=list(args),
                    abstract_args=", ".join(abstract))


def _plain_function(f: Any) -> types.FunctionType:
    func = inspect.unwrap(f) if callable(f) else f
    if not isinstance(func, types.FunctionType):
        raise ShippingError(f"jaxviz needs a Python function defined with def, not "
                            f"{type(f).__name__} {f!r}")
    if func.__name__ == "<lambda>":
        raise ShippingError("a lambda cannot be shipped to the engine: define it with "
                            "def (in a cell or a file) and pass that function")
    if func.__closure__:
        names = ", ".join(func.__code__.co_freevars)
        raise ShippingError(f"{func.__name__} is a closure over {names} (defined inside "
                            f"another function): the engine runs it from its source text, "
                            f"where those local values do not exist; define it at the top "
                            f"level of a cell or file and pass {names} as arguments")
    return func


def _source_lines(func: types.FunctionType) -> tuple[list[str], int]:
    try:
        return inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise ShippingError(f"the source of {func.__name__} cannot be found ({exc}): "
                            f"define it in a notebook cell or a .py file") from None


def _global_names(code: types.CodeType) -> list[str]:
    names: list[str] = []
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval not in names:
            names.append(str(ins.argval))
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += [n for n in _global_names(const) if n not in names]
    return names


class _ModuleWriter:
    """Collects the imports and definitions a function's globals need."""

    def __init__(self, main: types.FunctionType, value_limit: int | None = None):
        self.main = main
        self.value_limit = value_limit
        self.imports: list[str] = []
        self.definitions: list[str] = []
        self.done: set[str] = {main.__name__}

    def visit_function(self, func: types.FunctionType) -> None:
        for name in _global_names(func.__code__):
            if name in self.done:
                continue
            self.done.add(name)
            if name in func.__globals__:
                self.define(name, func.__globals__[name], func.__name__)
            elif not hasattr(builtins, name):
                raise ShippingError(f"{func.__name__} uses {name}, which is not defined "
                                    f"(yet): run the cell that defines it first")

    def define(self, name: str, value: Any, user: str) -> None:
        if isinstance(value, types.ModuleType):
            module = value.__name__
            self.imports.append(f"import {module}" if module == name
                                else f"import {module} as {name}")
            return
        if isinstance(value, types.FunctionType) and _defined_here(value):
            helper = _plain_function(value)
            lines, _ = _source_lines(helper)
            self.definitions.append(textwrap.dedent("".join(lines)).rstrip())
            if helper.__name__ != name:
                self.definitions.append(f"{name} = {helper.__name__}")
            self.visit_function(helper)
            return
        where = _importable(value)
        if where is not None:
            module, qualname = where
            self.imports.append(f"from {module} import {qualname}"
                                + ("" if qualname == name else f" as {name}"))
            return
        try:
            self.definitions.append(f"{name} = {self.literal(value)}")
        except ShippingError as exc:
            raise ShippingError(f"{user} uses the global {name} ({type(value).__name__}), "
                                f"which cannot be sent to the engine process: {exc}. Pass "
                                f"it as an argument, or create it inside the function"
                                ) from None

    def argument(self, name: str, value: Any, what: str
                 ) -> tuple[str, tuple[tuple[int, ...], str] | None]:
        big = self.value_limit is not None and is_array(value) and \
            int(getattr(value, "nbytes", 0)) > self.value_limit
        if is_shape_dtype(value) or big:
            dims = tuple(int(d) for d in value.shape)
            return abstract_type(dims, value.dtype), (dims, short_dtype(value.dtype))
        try:
            text = self.literal(value)
        except ShippingError as exc:
            raise ShippingError(f"{what} ({type(value).__name__}) cannot be sent to the engine "
                                f"process: {exc}") from None
        shape = (tuple(int(d) for d in value.shape), short_dtype(value.dtype)) \
            if is_array(value) else None
        if is_array(value):
            self.definitions.append(f"{name} = {text}")
            return name, shape
        return text, None

    def literal(self, value: Any) -> str:
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            if isinstance(value, float) and value != value:
                return "float('nan')"
            if isinstance(value, float) and value in (float("inf"), float("-inf")):
                return f"float({str(value)!r})"
            return repr(value)
        if is_array(value):
            return self._array(value)
        if isinstance(value, tuple | list):
            inner = ", ".join(self.literal(v) for v in value)
            if isinstance(value, tuple):
                return f"({inner},)" if len(value) == 1 else f"({inner})"
            return f"[{inner}]"
        if isinstance(value, dict):
            if not all(isinstance(k, str | int) for k in value):
                raise ShippingError("a dict's keys must be strings or numbers")
            return "{" + ", ".join(f"{k!r}: {self.literal(v)}" for k, v in value.items()) + "}"
        raise ShippingError(f"jaxviz ships arrays, numbers, strings and tuples, lists or "
                            f"dicts of them, not {type(value).__module__}."
                            f"{type(value).__qualname__}")

    def _array(self, value: Any) -> str:
        import numpy as np

        host = np.asarray(value)
        dtype = short_dtype(host.dtype)
        if host.nbytes > MAX_VALUE_BYTES:
            raise ShippingError(f"{host.nbytes / 2**20:.0f} MiB is more than jaxviz sends by "
                                f"value ({MAX_VALUE_BYTES // 2**20} MiB); pass "
                                f"jax.ShapeDtypeStruct({tuple(host.shape)}, "
                                f"jnp.{host.dtype.name}) instead")
        for line in ("import numpy as _jaxviz_np", "import base64 as _jaxviz_b64",
                     "import jax.numpy as _jaxviz_jnp", "import ml_dtypes as _jaxviz_mld"
                     if dtype == "bf16" else ""):
            if line and line not in self.imports:
                self.imports.append(line)
        data = base64.b64encode(np.ascontiguousarray(host).tobytes()).decode("ascii")
        np_dtype = "_jaxviz_mld.bfloat16" if dtype == "bf16" else repr(host.dtype.name)
        array = (f"_jaxviz_np.frombuffer(_jaxviz_b64.b64decode({data!r}), "
                 f"dtype={np_dtype}).reshape({tuple(host.shape)!r})")
        return f"_jaxviz_jnp.asarray({array})" if _is_jax(value) else f"{array}.copy()"


def _is_jax(value: Any) -> bool:
    return type(value).__module__.split(".")[0] in ("jax", "jaxlib")


def _defined_here(func: types.FunctionType) -> bool:
    """Defined in the notebook or script (not importable from an installed module)."""
    return func.__module__ in ("__main__", None) or _importable(func) is None


def _importable(value: Any) -> tuple[str, str] | None:
    """``(module, name)`` when ``from module import name`` gives ``value`` back."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", getattr(value, "__name__", None))
    if not isinstance(module, str) or not isinstance(qualname, str) or module == "__main__":
        return None
    if "." in qualname or "<" in qualname:
        return None
    try:
        if getattr(sys.modules.get(module), qualname, None) is value:
            return module, qualname
    except Exception:  # noqa: BLE001 - an odd module's __getattr__
        return None
    return None
