"""Parse what users type: argument specs, ``in_axes`` and meshes.

Pure Python (no JAX), so the GUI can validate a field while the user types and
the engine can turn the same tree into real arguments.

An argument spec reads like the inside of a call's parentheses::

    f32[5], f32[3]
    [(f32[784,512], f32[512]), (f32[512,10], f32[10])], f32[784]
    jnp.arange(5.), init_params(jax.random.key(0))

Abstract types use jaxpr notation (``f32[5]``, ``i32[]``, ``bf16[8,128]``) and
nest in list, tuple and dict literals; anything else is a Python expression,
evaluated later in the namespace of the user's file.

Example:
    >>> parse_args("f32[5], {'w': i32[]}")
    [Aval(dtype='f32', shape=(5,)), Dict(items=(('w', Aval(dtype='i32', shape=())),))]
    >>> format_args(parse_args("f32[ 5 ],(f32[2],)"))
    'f32[5], (f32[2],)'
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Short dtype names, as jaxprs print them, and their NumPy names.
DTYPES = {
    "bool": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
}
_DTYPE_LIKE = re.compile(r"^(?:bf|f|i|u|c)\d+$")
_AVAL_RE = re.compile(r"(?<![\w.])(" + "|".join(sorted(DTYPES, key=len, reverse=True))
                      + r")\[([^\[\]]*)\]")
_CALL_PREFIX = "_jaxviz_call_("


class SpecError(ValueError):
    """A spec string that cannot be parsed.

    Attributes:
        message: what is wrong.
        text: the spec string.
        position: 0-based offset of the fault in ``text``.
    """

    def __init__(self, message: str, text: str, position: int):
        self.message = message
        self.text = text
        self.position = max(0, min(position, len(text)))
        super().__init__(self.pretty())

    def pretty(self) -> str:
        """The message, the spec and a caret under the fault."""
        line_start = self.text.rfind("\n", 0, self.position) + 1
        line_end = self.text.find("\n", self.position)
        line = self.text[line_start: None if line_end < 0 else line_end]
        caret = " " * (self.position - line_start) + "^"
        return f"{self.message} (at column {self.position + 1})\n  {line}\n  {caret}"


@dataclass(frozen=True)
class Aval:
    """An abstract array type such as ``f32[8,128]``."""

    dtype: str
    shape: tuple[int, ...]

    def __str__(self) -> str:
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class Expr:
    """A Python expression to evaluate in the user's namespace."""

    source: str


@dataclass(frozen=True)
class Seq:
    """A list or tuple literal of specs."""

    kind: str  # "list" | "tuple"
    items: tuple[Spec, ...]


@dataclass(frozen=True)
class Dict:
    """A dict literal with constant keys."""

    items: tuple[tuple[object, Spec], ...]


Spec = Aval | Expr | Seq | Dict


# --------------------------------------------------------------------------- #
# Argument specs
# --------------------------------------------------------------------------- #


def parse_args(text: str) -> list[Spec]:
    """Parse an argument spec string into one spec tree per positional argument.

    Raises:
        SpecError: with the position of the fault (keyword arguments too:
            :func:`parse_call_args` reads those as static arguments).
    """
    positional, static = parse_call_args(text)
    if static:
        raise SpecError("keyword arguments are not supported; give arguments in order",
                        text, static[0].position)
    return positional


@dataclass(frozen=True)
class StaticArg:
    """A keyword argument ``name=value`` of an argument spec: a static argument.

    Attributes:
        name: the parameter it is passed to.
        spec: its value (an expression; an abstract type is refused by the core).
        position: 0-based offset of ``name`` in the spec text.
    """

    name: str
    spec: Spec
    position: int


def parse_call_args(text: str) -> tuple[list[Spec], list[StaticArg]]:
    """Parse an argument spec with keyword arguments: ``f32[8], n=3``.

    The positional arguments are traced (one spec tree each); a keyword
    argument is a *static* argument: passed by name, never traced, batched or
    sharded (``jax.jit(f, static_argnames=...)``).

    Raises:
        SpecError: with the position of the fault.

    Example:
        >>> parse_call_args("f32[8], n=3")
        ([Aval(dtype='f32', shape=(8,))], [StaticArg(name='n', spec=Expr(source='3'), position=9)])
    """
    if not text.strip():
        return [], []
    _check_brackets(text)
    masked, avals = _mask_avals(text)
    wrapped = f"{_CALL_PREFIX}{masked}\n)"
    try:
        tree = ast.parse(wrapped, mode="eval")
    except SyntaxError as exc:
        at = _offset_of(wrapped, exc) - len(_CALL_PREFIX)
        raise SpecError(_syntax_message(exc), text, at) from None
    call = tree.body
    assert isinstance(call, ast.Call)
    conv = _Converter(text, wrapped, avals)
    static: list[StaticArg] = []
    for kw in call.keywords:
        at = _node_offset(wrapped, kw) - len(_CALL_PREFIX)
        if kw.arg is None:
            raise SpecError("'**' unpacking is not supported", text, at)
        if any(s.name == kw.arg for s in static):
            raise SpecError(f"static argument {kw.arg!r} is given twice", text, at)
        static.append(StaticArg(kw.arg, conv.convert(kw.value), at))
    return [conv.convert(a) for a in call.args], static


def format_spec(spec: Spec) -> str:
    """The canonical text of one spec tree."""
    if isinstance(spec, Aval):
        return str(spec)
    if isinstance(spec, Expr):
        return spec.source
    if isinstance(spec, Seq):
        inner = ", ".join(format_spec(s) for s in spec.items)
        if spec.kind == "list":
            return f"[{inner}]"
        return f"({inner},)" if len(spec.items) == 1 else f"({inner})"
    if isinstance(spec, Dict):
        return "{" + ", ".join(f"{k!r}: {format_spec(v)}" for k, v in spec.items) + "}"
    raise TypeError(spec)


def format_args(specs: list[Spec]) -> str:
    """The canonical text of a whole argument spec list."""
    return ", ".join(format_spec(s) for s in specs)


def leaves(spec: Spec) -> list[Spec]:
    """The leaves (avals and expressions) of a spec tree, in order."""
    if isinstance(spec, Seq):
        return [leaf for s in spec.items for leaf in leaves(s)]
    if isinstance(spec, Dict):
        return [leaf for _, s in spec.items for leaf in leaves(s)]
    return [spec]


def _mask_avals(text: str) -> tuple[str, dict[str, tuple[Aval, int]]]:
    """Replace each ``f32[...]`` by a same-length identifier, so ast can parse.

    Keeping the length keeps every ast offset equal to the offset in ``text``.
    """
    avals: dict[str, tuple[Aval, int]] = {}
    out = []
    last = 0
    for n, m in enumerate(_AVAL_RE.finditer(text)):
        dims_text = m.group(2)
        shape = _parse_dims(dims_text, text, m.start(2))
        token = f"_{n}"
        token = token + "_" * (len(m.group(0)) - len(token))
        if len(token) > len(m.group(0)):  # only for > 10**(len-2) avals; be safe
            raise SpecError("too many abstract types in one spec", text, m.start())
        avals[token] = (Aval(m.group(1), shape), m.start())
        out.append(text[last:m.start()])
        out.append(token)
        last = m.end()
    out.append(text[last:])
    return "".join(out), avals


_PAIRS = {")": "(", "]": "[", "}": "{"}


def _check_brackets(text: str) -> None:
    """Report an unbalanced bracket at its own position (ast would blame our wrapper)."""
    stack: list[tuple[str, int]] = []
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            stack.append((ch, i))
        elif ch in ")]}":
            if not stack:
                raise SpecError(f"{ch!r} has no matching opening bracket", text, i)
            if stack[-1][0] != _PAIRS[ch]:
                opener, at = stack[-1]
                raise SpecError(f"{ch!r} does not match {opener!r} at column {at + 1}", text, i)
            stack.pop()
        i += 1
    if quote:
        raise SpecError("string is never closed", text, len(text))
    if stack:
        ch, at = stack[-1]
        raise SpecError(f"{ch!r} is never closed", text, at)


def _parse_dims(dims_text: str, text: str, start: int) -> tuple[int, ...]:
    if not dims_text.strip():
        return ()
    dims = []
    pos = start
    for part in dims_text.split(","):
        stripped = part.strip()
        where = pos + (len(part) - len(part.lstrip()))
        if not stripped:
            raise SpecError("empty dimension in shape", text, where)
        if not stripped.isdigit():
            raise SpecError(f"dimension {stripped!r} is not a non-negative integer", text, where)
        dims.append(int(stripped))
        pos += len(part) + 1
    return tuple(dims)


class _Converter:
    def __init__(self, text: str, wrapped: str, avals: dict[str, tuple[Aval, int]]):
        self.text = text
        self.wrapped = wrapped
        self.avals = avals

    def offset(self, node: ast.expr | ast.keyword) -> int:
        return _node_offset(self.wrapped, node) - len(_CALL_PREFIX)

    def convert(self, node: ast.expr) -> Spec:
        if isinstance(node, ast.Name) and node.id in self.avals:
            return self.avals[node.id][0]
        if isinstance(node, (ast.List, ast.Tuple)):
            kind = "list" if isinstance(node, ast.List) else "tuple"
            return Seq(kind, tuple(self.convert(e) for e in node.elts))
        if isinstance(node, ast.Dict):
            items = []
            for k, v in zip(node.keys, node.values):
                if k is None:
                    raise SpecError("'**' is not supported in a dict spec", self.text,
                                    self.offset(v) - 2)
                if not isinstance(k, ast.Constant):
                    raise SpecError("dict keys must be constants such as 'w'", self.text,
                                    self.offset(k))
                items.append((k.value, self.convert(v)))
            return Dict(tuple(items))
        if isinstance(node, ast.Starred):
            raise SpecError("'*' unpacking is not supported", self.text, self.offset(node))
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                and _DTYPE_LIKE.match(node.value.id) and node.value.id not in DTYPES):
            raise SpecError(f"unknown dtype {node.value.id!r}; known: {', '.join(DTYPES)}",
                            self.text, self.offset(node))
        start = self.offset(node)
        end = _node_end_offset(self.wrapped, node) - len(_CALL_PREFIX)
        return Expr(self.text[start:end])


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def _call_of(wrapped: str) -> ast.Call:
    """The call ``_jaxviz_call_(...)`` that ``wrapped`` is.

    Raises:
        SyntaxError: it does not parse.
    """
    body = ast.parse(wrapped, mode="eval").body
    assert isinstance(body, ast.Call)  # the text was wrapped in one call
    return body


def _node_offset(text: str, node: ast.expr | ast.keyword) -> int:
    return _utf8_col(text, node.lineno, node.col_offset)


def _node_end_offset(text: str, node: ast.expr) -> int:
    end_line = node.end_lineno if node.end_lineno is not None else node.lineno
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset
    return _utf8_col(text, end_line, end_col)


def _utf8_col(text: str, lineno: int, col_bytes: int) -> int:
    start = _line_starts(text)[lineno - 1]
    line = text[start:].split("\n", 1)[0]
    return start + len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))


def _offset_of(text: str, exc: SyntaxError) -> int:
    lineno = exc.lineno or 1
    starts = _line_starts(text)
    lineno = min(lineno, len(starts))
    col = max((exc.offset or 1) - 1, 0)
    return starts[lineno - 1] + col


def _syntax_message(exc: SyntaxError) -> str:
    msg = exc.msg or "invalid syntax"
    if "never closed" in msg or "was never closed" in msg:
        return msg
    if msg.startswith("invalid syntax"):
        return "invalid spec syntax"
    return msg


# --------------------------------------------------------------------------- #
# in_axes, meshes and partition specs
# --------------------------------------------------------------------------- #


def parse_in_axes(text: str | None, nargs: int) -> list[int | None]:
    """Parse ``"0, None"`` into one batch axis (or ``None``) per argument.

    An empty text means axis 0 for every argument; a single value applies to all.
    """
    if text is None or not text.strip():
        return [0] * nargs
    values = _literal_list(text, "in_axes")
    for i, v in enumerate(values):
        if v is not None and not (isinstance(v, int) and not isinstance(v, bool)):
            raise SpecError(f"in_axes entry {i + 1} must be an integer or None, not {v!r}",
                            text, _nth_item_offset(text, i))
    if len(values) == 1 and nargs != 1:
        return values * nargs
    if len(values) != nargs:
        raise SpecError(f"in_axes has {len(values)} entries for {nargs} "
                        f"argument{'s' if nargs != 1 else ''}: give one per argument", text, 0)
    return values


def axis_name_problem(text: str) -> str | None:
    """Why ``text`` cannot name a mapped axis (``--axis-name``, the Axis field); None if it can.

    An axis name is a Python identifier that is not a keyword (``i``,
    ``batch``, ``données``), as ``lax.psum(x, 'i')`` and ``P('i')`` use it.
    """
    if not text.isidentifier() or keyword.iskeyword(text):
        return (f"the axis name must be a Python identifier, e.g. i or batch, "
                f"not {text!r}")
    return None


def parse_mesh(text: str) -> list[tuple[str, int]]:
    """Parse ``"data=4,model=2"`` (or ``"data:4 model:2"``) into named axis sizes.

    Raises:
        SpecError: an item that is not ``name=size``, an empty item between
            commas, a size below 1, a name given twice, a character that does
            not belong on one line (a newline, a tab...), or no axis at all.
    """
    for i, char in enumerate(text):
        if not char.isprintable():
            raise SpecError(f"the mesh is one line of name=size items; {char!r} does not "
                            f"belong in it", text, i)
    axes: list[tuple[str, int]] = []
    after_comma = True  # at the start, or right after a comma: an item must come
    for found in re.finditer(r",|[^,\s]+", text):
        part, where = found.group(), found.start()
        if part == ",":
            if after_comma:
                raise SpecError("an empty mesh axis: give name=size before this comma",
                                text, where)
            after_comma = True
            continue
        after_comma = False
        m = re.fullmatch(r"(\w+)\s*[=:]\s*(\d+)", part)
        if not m or not m.group(1).isidentifier():
            raise SpecError(f"mesh axis {part!r} should look like name=size, e.g. data=4",
                            text, where)
        name, size = m.group(1), int(m.group(2))
        if size < 1:
            raise SpecError(f"mesh axis {name!r} must have size >= 1", text, where)
        if any(name == n for n, _ in axes):
            raise SpecError(f"mesh axis {name!r} is named twice", text, where)
        axes.append((name, size))
    if not axes:
        raise SpecError("the mesh needs at least one axis, e.g. data=8", text, 0)
    return axes


def format_mesh(axes: list[tuple[str, int]]) -> str:
    return ",".join(f"{n}={s}" for n, s in axes)


def call_nodes(text: str) -> tuple[ast.Call, Callable[[ast.expr | ast.keyword], int]]:
    """``text`` parsed as the inside of a call's parentheses, and where each node starts.

    Returns:
        ``(call, offset)``: the call node (its ``args`` and ``keywords`` are what
        was typed) and a function giving a node's 0-based offset in ``text``.

    Raises:
        SpecError: unbalanced brackets or a syntax error, at their position.
    """
    _check_brackets(text)
    wrapped = f"{_CALL_PREFIX}{text}\n)"
    try:
        call = _call_of(wrapped)
    except SyntaxError as exc:
        raise SpecError(_syntax_message(exc), text,
                        _offset_of(wrapped, exc) - len(_CALL_PREFIX)) from None
    return call, lambda node: _node_offset(wrapped, node) - len(_CALL_PREFIX)


def _literal_list(text: str, what: str) -> list[Any]:
    call, offset = call_nodes(text)
    refuse_keywords(call, text, offset, what)
    values = []
    for node in call.args:
        try:
            values.append(ast.literal_eval(node))
        except ValueError:
            raise SpecError(f"{what} entries must be integers or None", text,
                            offset(node)) from None
    return values


def refuse_keywords(call: ast.Call, text: str,
                    offset: Callable[[ast.expr | ast.keyword], int], what: str) -> None:
    """A ``name=value`` item would be silently dropped: refuse it where it is.

    Args:
        call: the typed text parsed by :func:`call_nodes`.
        text: what was typed.
        offset: :func:`call_nodes`' offset function.
        what: what the field holds, for the message (``"in_axes"``).

    Raises:
        SpecError: at the first keyword item.
    """
    if call.keywords:
        raise SpecError(f"keyword items are not supported in {what}; give one entry per "
                        f"argument, in order", text, offset(call.keywords[0]))


def _nth_item_offset(text: str, n: int) -> int:
    pos = 0
    for _ in range(n):
        nxt = text.find(",", pos)
        if nxt < 0:
            return pos
        pos = nxt + 1
    return pos + (len(text[pos:]) - len(text[pos:].lstrip()))


def batched_args_problem(batched_args: str | None, in_axes: list[int | None]) -> str | None:
    """Why already-batched arguments cannot be used with these ``in_axes`` (None if they can).

    Batched arguments only feed the batched variants, which batch the
    arguments whose ``in_axes`` is not ``None``; with every argument
    unbatched they would be ignored, silently.
    """
    if not (batched_args or "").strip() or any(axis is not None for axis in in_axes):
        return None
    nones = ", ".join(["None"] * len(in_axes))
    zeros = ", ".join(["0"] * len(in_axes))
    return (f"the batched arguments would be ignored: in_axes ({nones}) batches none of the "
            f"arguments. Give each batched argument its batch axis (e.g. in_axes "
            f"\"{zeros}\"), or pass the values as the arguments of one call instead")
