"""The example gallery and static facts about Python source (no JAX, no Qt).

Each example is a Python file under ``resources/examples``. Its module
docstring is the plain-language explanation for the lecture; a module-level
``JAXVIZ = {...}`` literal holds its settings (function, default argument
specs, variants it is meant to show, batch, in_axes, axis name, mesh, partition
specs, NumPy baseline). The gallery is read with :mod:`ast`, without importing
the example, so listing it costs no JAX import.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jaxviz.model.as_written import transformed_call
from jaxviz.model.files import OWN_FILE, SOURCE_BYTES, read_text
from jaxviz.model.parse import parse_module
from jaxviz.model.records import TraceSettings
from jaxviz.model.resources import ResourcesMissing, resources_dir

T = TypeVar("T")


class GalleryError(LookupError):
    """An example name that does not exist, or an example file that is malformed."""


@dataclass(kw_only=True)
class Example(TraceSettings):
    """One gallery entry: its :class:`~jaxviz.model.records.TraceSettings` and what it teaches."""

    name: str
    path: str
    title: str
    topic: str
    function: str
    explanation: str
    variants: list[str] = field(default_factory=lambda: ["plain", "jit"])
    #: Its most telling panes, first where few fit side by side (the last of them in
    #: front when the panes are tabs): e.g. ``["plain", "pmap"]``; empty: by priority.
    panes: list[str] = field(default_factory=list)
    baseline: str | None = None
    order: int = 100
    #: Defaults for timing runs (``jaxviz time``): variants, size sweep, ...
    timing: dict[str, Any] = field(default_factory=dict)
    #: JAX processes the example is meant to run in (``jaxviz animate`` plays a real
    #: multi-process run of its shard_map variant when more than one).
    processes: int = 1

    @property
    def summary(self) -> str:
        """The first sentence of the explanation."""
        first = self.explanation.strip().split("\n\n", 1)[0].replace("\n", " ")
        return first


def examples_dir() -> Path:
    try:
        return resources_dir() / "examples"
    except ResourcesMissing as exc:
        raise GalleryError(str(exc)) from None


def load_example(path: Path) -> Example:
    """Read one example's settings and explanation without executing it: read again only
    when the file changed (its modification time or size), else the same record again --
    read it, never change it (opening an example asked for it, 0.5 ms of the switch's
    turn each time).

    Raises:
        GalleryError: the file cannot be read or parsed, or its ``JAXVIZ``
            dict is missing, lacks a required key or has an unknown one.
    """
    try:
        info = path.stat()
    except OSError as exc:
        raise GalleryError(f"{path}: cannot read the example: {exc}") from None
    return _unless_changed(_EXAMPLES, path, (info.st_mtime_ns, info.st_size),
                           lambda: _read_example(path))


#: Each example read, by file: (its modification time and size then, the record).
_EXAMPLES: dict[Path, tuple[object, Example]] = {}


def _unless_changed(made: dict[Path, tuple[object, T]], path: Path, stamp: object,
                    make: Callable[[], T]) -> T:
    """What ``make()`` made for ``path`` when its file had this ``stamp`` (modification
    time...), made again when the stamp changed."""
    known = made.get(path)
    if known is None or known[0] != stamp:
        known = made[path] = (stamp, make())
    return known[1]


def _read_example(path: Path) -> Example:
    try:
        source = read_text(path, limit=SOURCE_BYTES, what="Python source", timeout=OWN_FILE)
        tree = parse_module(source)  # the tree the document's readers then share
    except (OSError, ValueError, SyntaxError) as exc:  # UnicodeDecodeError is a ValueError
        raise GalleryError(f"{path}: cannot read the example: {exc}") from None
    doc = ast.get_docstring(tree) or ""
    meta = declared_in(tree)
    if meta is None:
        raise GalleryError(f"{path}: no JAXVIZ = {{...}} settings dict")
    title, _, explanation = doc.partition("\n")
    known = set(Example.__dataclass_fields__) - {"name", "path", "title", "explanation"}
    unknown = set(meta) - known
    if unknown:
        raise GalleryError(f"{path}: unknown JAXVIZ keys {sorted(unknown)}")
    missing = sorted(k for k in ("topic", "function") if k not in meta)
    if missing:
        raise GalleryError(f"{path}: the JAXVIZ dict lacks {', '.join(missing)}")
    try:
        example = Example(name=path.stem, path=str(path), title=title.strip(),
                          explanation=explanation.strip(), **meta)
    except TypeError as exc:
        raise GalleryError(f"{path}: bad JAXVIZ settings: {exc}") from None
    stray = [v for v in example.panes if v not in example.variants]
    if stray:
        raise GalleryError(f"{path}: JAXVIZ 'panes' names {', '.join(map(repr, stray))}, "
                           f"not among its variants {example.variants}")
    return example


def example_paths() -> dict[str, Path]:
    """The gallery's files by example name (the ``.py`` files of the examples folder).

    The folder is listed again only when its modification time changes (a file added,
    removed or renamed): opening an example asks for it, and a listing with the path
    resolved was a third of a millisecond of the window's turn each time.
    """
    folder = _examples_folder()
    try:
        stamp = folder.stat().st_mtime_ns
    except OSError as exc:
        raise GalleryError(f"cannot list the examples in {folder}: {exc}") from None
    listing: dict[str, Path] = _unless_changed(_LISTING, folder, stamp, lambda: {
        p.stem: p for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")})
    return dict(listing)


#: The examples folder's last listing: (its modification time, the files by name).
_LISTING: dict[Path, tuple[object, dict[str, Path]]] = {}


@functools.lru_cache(maxsize=1)
def _examples_folder() -> Path:
    """:func:`examples_dir` found once: the package does not move while it runs."""
    return examples_dir()


def list_examples() -> list[Example]:
    """All gallery examples, in lecture order."""
    examples = [load_example(p) for p in example_paths().values()]
    return sorted(examples, key=lambda e: (e.order, e.name))


def get_example(name: str) -> Example:
    """One example by name: only the gallery's own examples, never a path.

    Raises:
        GalleryError: naming the examples that exist.
    """
    path = example_paths().get(name)
    if path is None:
        names = ", ".join(e.name for e in list_examples())
        raise GalleryError(f"no example named {name!r}; the gallery has: {names}")
    return load_example(path)


def list_functions(source: str) -> list[str]:
    """Names of the top-level functions defined in ``source`` (static, via ast): ``def``s,
    lambdas, and names bound to a JAX transformation of a function (``f = jax.jit(g)``).

    Returns an empty list for source that does not parse.
    """
    try:
        tree = parse_module(source)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign) and (
                isinstance(node.value, ast.Lambda) or transformed_call(node.value)):
            # a lambda, or a name bound to a JAX transformation (``f = jax.jit(g)``)
            names.extend(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def bound_names(source: str) -> set[str] | None:
    """Every name the module's top level may bind (static, via ast; nothing runs).

    Definitions, classes, assignments (also unpacked, annotated, augmented and
    walrus targets), imports, and the targets of top-level ``for``/``with``/
    ``try``/``if`` blocks count.

    Returns:
        The names; None when they cannot be known without running the code
        (the source does not parse, or it has a ``from m import *``).
    """
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in _top_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                names.add(alias.asname or alias.name.split(".")[0])
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return names


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run at module level, nested blocks flattened (not def bodies)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                             ast.AsyncWith, ast.Try, ast.TryStar)):
            blocks = [getattr(node, name, []) for name in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                out.extend(_top_level(block))
    return out


def declared_in(source: str | ast.Module) -> dict[str, Any] | None:
    """The ``JAXVIZ = {...}`` settings literal of a file (as the gallery's examples have).

    Read statically, never executed. The last such assignment wins, as it
    would when the file runs.

    Returns:
        The dict; None when the source does not parse, has no such
        assignment, or assigns something that is not a literal dict.
    """
    assignments = _jaxviz_assignments(source)
    return _literal_dict(assignments[-1]) if assignments else None


def _literal_dict(assignment: ast.Assign) -> dict[str, Any] | None:
    """The dict an assignment assigns, if it is a literal one."""
    try:
        meta = ast.literal_eval(assignment.value)
    except (ValueError, SyntaxError, TypeError):
        return None
    return meta if isinstance(meta, dict) else None


def _jaxviz_assignments(source: str | ast.Module) -> list[ast.Assign]:
    """The module's top-level ``JAXVIZ = ...`` assignments, in order ([] for source that
    does not parse)."""
    if isinstance(source, str):
        try:
            source = parse_module(source)
        except (SyntaxError, ValueError):
            return []
    return [node for node in source.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "JAXVIZ"]


#: The settings a file of one's own may declare in ``JAXVIZ = {...}``: which function,
#: its variants and telling panes, and every trace setting (the window and the command
#: line both use them; a gallery example's dict has a few more keys, :class:`Example`).
FILE_FIELDS = ("function", "variants", "panes", *TraceSettings.names())


def declared_settings(source: str | ast.Module) -> dict[str, Any] | None:
    """A file's ``JAXVIZ = {...}`` settings that a file may declare (:data:`FILE_FIELDS`),
    read statically; None without a literal dict."""
    declared = declared_in(source)
    if declared is None:
        return None
    return {k: v for k, v in declared.items() if k in FILE_FIELDS}


def declared_problem(source: str | ast.Module) -> str | None:
    """Why a file's ``JAXVIZ = ...`` is not used, when it assigns one that is not a literal
    dict (an f-string, a name, a call: it would take running the file to know); None
    when there is none, or it is one."""
    assignments = _jaxviz_assignments(source)
    if not assignments or _literal_dict(assignments[-1]) is not None:
        return None
    return (f"JAXVIZ on line {assignments[-1].lineno} is not used: jaxviz reads it without "
            f"running the file, so it must be a plain dict of literals (no f-string, name "
            f"or call)")
