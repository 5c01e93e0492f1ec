"""Which function of a file to open, and what its arguments probably are (static, no JAX).

A file with several functions (``make_params``, ``forward``, ``loss_fn``,
``train_step``) opens on the one a user came for (:func:`choose_function`):

1. the function its ``JAXVIZ = {"function": ...}`` names;
2. else the one chosen last time for this file (the window remembers it);
3. else its *entry point*: a function no other function of the file calls or
   names (``jax.grad(loss_fn)`` names ``loss_fn``); when several are, the
   last defined of them;
4. else the last one defined.

:func:`argument_hint` reads the function's signature: parameters annotated
with jaxpr types (``x: f32[8]``) or jaxtyping's (``Float[Array, "8 3"]``)
give an argument spec the window can fill in; the others are named in the
field's placeholder. The file is parsed, never run.

Example:
    >>> source = '''
    ... def loss_fn(w, x):
    ...     return (x @ w).sum()
    ... def train_step(w: f32[3], x: Float[Array, "8 3"]):
    ...     return w - 0.1 * jax.grad(loss_fn)(w, x)
    ... '''
    >>> choose_function(source)
    FunctionChoice(name='train_step', reason='no other function of the file calls it')
    >>> argument_hint(source, "train_step").spec
    'f32[3], f32[8,3]'
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxviz.model.gallery import declared_in
from jaxviz.model.parse import parse_module
from jaxviz.model.specs import DTYPES, Aval, SpecError, parse_args

#: jaxtyping's dtype annotations and the jaxpr dtype each stands for (its usual one).
JAXTYPING_DTYPES = {
    "Float": "f32", "Float16": "f16", "BFloat16": "bf16", "Float32": "f32", "Float64": "f64",
    "Int": "i32", "Int8": "i8", "Int16": "i16", "Int32": "i32", "Int64": "i64",
    "UInt": "u32", "UInt8": "u8", "UInt16": "u16", "UInt32": "u32", "UInt64": "u64",
    "Bool": "bool", "Complex": "c64", "Complex64": "c64", "Complex128": "c128",
}
#: Python scalar annotations and the jaxpr type JAX gives such a value.
SCALARS = {"float": "f32[]", "int": "i32[]", "bool": "bool[]", "complex": "c64[]"}

_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass(frozen=True)
class FunctionChoice:
    """The function a file opens on, and why (for the status bar).

    Attributes:
        name: the function ("" when the file defines none or does not parse).
        reason: ``named in JAXVIZ``, ``chosen last time``, ``no other function
            of the file calls it`` or ``defined last``.
    """

    name: str
    reason: str


@dataclass(frozen=True)
class ArgumentHint:
    """What a function's signature says about its arguments.

    Attributes:
        params: its positional parameters without default values, in order.
        specs: for each, the argument spec its annotation gives (None: no
            annotation, or one that says no shape).
    """

    params: tuple[str, ...]
    specs: tuple[str | None, ...]

    @property
    def spec(self) -> str | None:
        """The whole argument spec, when every parameter's annotation gives one."""
        if not self.params or any(s is None for s in self.specs):
            return None
        return ", ".join(s for s in self.specs if s is not None)

    @property
    def placeholder(self) -> str:
        """The parameters as a reminder: ``params, x: f32[8,3], y`` ('' when there are none)."""
        return ", ".join(f"{p}: {s}" if s else p for p, s in zip(self.params, self.specs))


def _functions(tree: ast.Module) -> dict[str, _Function]:
    """Top-level functions by name, in definition order (a name defined twice: the last)."""
    found: dict[str, _Function] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.pop(node.name, None)
            found[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.pop(target.id, None)
                    found[target.id] = node.value
    return found


def _names_used(node: _Function) -> set[str]:
    """Every name a function reads (calls, passes on, decorates with)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def entry_points(source: str) -> list[str]:
    """The top-level functions no other function of the file calls or names, in order."""
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return []
    functions = _functions(tree)
    used = {name: _names_used(node) for name, node in functions.items()}
    return [name for name in functions
            if not any(name in names for other, names in used.items() if other != name)]


def choose_function(source: str, remembered: str = "") -> FunctionChoice:
    """The function a file opens on (see the module's docstring for the order).

    Args:
        source: the file's text.
        remembered: the function chosen last time for this file ("" if none).
    """
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return FunctionChoice("", "the file does not parse")
    names = list(_functions(tree))
    if not names:
        return FunctionChoice("", "the file defines no function")
    declared = (declared_in(tree) or {}).get("function")
    if isinstance(declared, str) and declared in names:
        return FunctionChoice(declared, "named in JAXVIZ")
    if remembered in names:
        return FunctionChoice(remembered, "chosen last time")
    entries = entry_points(source)
    if entries:
        return FunctionChoice(entries[-1], "no other function of the file calls it")
    return FunctionChoice(names[-1], "defined last")


def argument_hint(source: str, function: str) -> ArgumentHint:
    """What ``function``'s signature says about its arguments (empty if it is not defined)."""
    try:
        node = _functions(parse_module(source)).get(function)
    except (SyntaxError, ValueError):
        node = None
    if node is None:
        return ArgumentHint((), ())
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    required = positional[:len(positional) - len(args.defaults)]
    return ArgumentHint(tuple(a.arg for a in required),
                        tuple(annotation_spec(a.annotation) for a in required))


def annotation_spec(annotation: ast.expr | None) -> str | None:
    """The argument spec an annotation gives: ``f32[8]`` (``f32[()]`` for a scalar),
    ``Float[Array, "8 3"]`` (jaxtyping, with whole-number dimensions), ``float``;
    None for anything else."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # a string annotation: "f32[8]"
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Name) and annotation.id in SCALARS:
        return SCALARS[annotation.id]
    if not isinstance(annotation, ast.Subscript):
        return None
    head = annotation.value
    name = head.id if isinstance(head, ast.Name) else \
        head.attr if isinstance(head, ast.Attribute) else ""
    index = annotation.slice
    if name in DTYPES:
        if isinstance(index, ast.Tuple) and not index.elts:  # f32[()]: a scalar
            return f"{name}[]"
        return _jaxpr_type(ast.unparse(annotation))
    if (name in JAXTYPING_DTYPES and isinstance(index, ast.Tuple) and len(index.elts) == 2
            and isinstance(index.elts[1], ast.Constant) and isinstance(index.elts[1].value, str)):
        dims = index.elts[1].value.split()
        if all(d.isdigit() for d in dims):
            return f"{JAXTYPING_DTYPES[name]}[{','.join(str(int(d)) for d in dims)}]"
    return None


def _jaxpr_type(text: str) -> str | None:
    """``text`` as one abstract type in jaxpr notation (``f32[8, 3]`` -> ``f32[8,3]``)."""
    try:
        parsed = parse_args(text)
    except SpecError:
        return None
    if len(parsed) == 1 and isinstance(parsed[0], Aval):
        return str(parsed[0])
    return None
