"""What the main window shows, as plain data with change callbacks (no Qt, no JAX).

The window's widgets bind to one :class:`WindowState`: they write what the
user did into it and follow its changes, as napari's evented models do. Every
field has a psygnal signal, emitted with the new value after a change
(``state.events.function.connect(callback)``); setting a field to an equal
value emits nothing. Fields are replaced, never mutated in place (a list
appended to would change silently).

The trace request follows from the state alone: :meth:`WindowState.to_request`
(or, when it cannot run, :meth:`WindowState.request_problem` says why).

Example:
    >>> state = WindowState(source="def f(x):\\n    return x\\n", function="f")
    >>> seen = []
    >>> _ = state.events.function.connect(seen.append)
    >>> state.function = "g"; state.function = "g"
    >>> seen
    ['g']
    >>> state.set_setting("args", "f32[3]")
    >>> state.function = "f"
    >>> state.to_request().args
    'f32[3]'
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from psygnal import SignalGroupDescriptor

from jaxviz.model import call_options, specs
from jaxviz.model.limits import DEFAULT_DEVICES
from jaxviz.model.parse import parse_module
from jaxviz.model.partition_specs import (
    format_partition_spec,
    parse_partition_specs,
    partition_axis_names,
    spec_leaves,
)
from jaxviz.model.records import VARIANTS, Target, TraceRequest, TraceResult, TraceSettings
from jaxviz.model.settings_table import DEFAULT_AXIS_NAME, TEXT_SETTINGS, settings_values
from jaxviz.model.specs import SpecError
from jaxviz.views.window.pane_layouts import TWO_PANES

#: A field's fault: ``(message, character position or None)``.
FieldError = tuple[str, int | None]
#: The tool views that can fill the window's central area.
MAXIMIZABLE = ("devices", "timing")
#: Variants the device view prefers to show, most parallel first.
DEVICE_PREFERENCE = ("as_written", "pmap", "sharded", "shard_map", "vmap", "jit", "plain")


def pane_order(variants: Collection[str]) -> list[str]:
    """The panes of ``variants``, in the window's order (:data:`VARIANTS`); the plain one
    when none of them has a pane."""
    return [v for v in VARIANTS if v in variants] or ["plain"]


def _fields_by_identity(*names: str) -> dict[str, Callable[[Any, Any], bool]]:
    """psygnal equality operators comparing ``names`` by identity (a new result is news
    even when it equals the last)."""
    return {name: operator.is_ for name in names}


@dataclass(frozen=True)
class RequestProblem:
    """Why the window's state cannot be traced now, and where to say so.

    Attributes:
        kind: ``syntax`` (the source does not parse), ``function`` (none
            chosen), ``fields`` (a settings field does not parse) or ``args``
            (the function takes arguments and none are given).
        message: one line for the user.
        line: the source line at fault (``syntax``).
        field: the settings field at fault (``fields``: the first one; ``args``).
    """

    kind: str
    message: str
    line: int | None = None
    field: str | None = None


@dataclass(eq=False)
class WindowState:
    """What the window shows: the document, its trace settings and the views' choices.

    Attributes:
        source: the editor's text.
        filename: the name the source is traced under (equations point into it).
        function: the function to trace ("" while none is chosen).
        settings: the trace settings as typed (empty fields are None).
        visible_variants: the jaxpr panes shown, in pane order.
        pane_layout: ``auto``, ``side by side`` or ``tabs``.
        focused_variant: the pane last clicked (the device view shows it), or None.
        devices: the device count the engine runs with.
        compared: the two variants the compare layout shows, ``(left, right)``, or
            None while the panes show.
        two_panes: the two variants the ``two panes`` layout shows, wide, side by side
            (:data:`~jaxviz.views.window.pane_layouts.TWO_PANES`), ``(left, right)``.
        maximized: the tool view that fills the window's central area (``devices``,
            ``timing``; "" while none does, see :data:`MAXIMIZABLE`).
        document: which document is open: a number that grows with every example,
            file or new document opened (:meth:`open_document`). What belongs to one
            document (the panes' views and scroll, the device view's phase) starts
            over when it changes.
        pane_views: what each pane shows (``jaxpr``, ``StableHLO``, ``HLO``, ``cost``)
            when not its jaxpr, by variant; reset for a new document.
        device_phase: the device view's phase (0-based); 0 for a new document.
        chip: the chip preset (``h100``, ``tpu-v5e`` ...) chosen in the Collectives tab
            to project costs onto: its table's projected column and the device view's
            captions; "" while none is.
        timing_of: the function whose measurements the timing view shows ("" none).
        zoom: the text size step of every view (Ctrl+= / Ctrl+-; 0 is the default).
        result: the last good trace result (the jaxprs the panes, the compare layout
            and the links show); None before the first. An error keeps it (dimmed).
        details: the last good result with its compiled programs, layouts and costs
            (what the device view and the panes' HLO views show); None before the first.
    """

    #: One psygnal signal per field, emitted with the new value after a real change
    #: (``result`` and ``details``: every new object, even an equal one).
    events: ClassVar[SignalGroupDescriptor] = SignalGroupDescriptor(
        equality_operators=_fields_by_identity("result", "details"))

    source: str = ""
    filename: str = "<editor:untitled.py>"
    function: str = ""
    settings: TraceSettings = field(default_factory=lambda: TraceSettings(args=""))
    visible_variants: list[str] = field(
        default_factory=lambda: ["plain", "vmap", "pmap", "sharded"])
    pane_layout: str = "auto"
    focused_variant: str | None = None
    devices: int = DEFAULT_DEVICES
    compared: tuple[str, str] | None = None
    two_panes: tuple[str, str] = ("plain", "vmap")
    maximized: str = ""
    document: int = 0
    pane_views: dict[str, str] = field(default_factory=dict)
    device_phase: int = 0
    chip: str = ""
    timing_of: str = ""
    zoom: int = 0
    result: TraceResult | None = None
    details: TraceResult | None = None

    def update(self, **changes: Any) -> None:
        """Set several fields; each announces its own change, in the order given."""
        for name, value in changes.items():
            setattr(self, name, value)

    # ------------------------------------------------------------ documents
    def open_document(self) -> None:
        """A new document is open (an example, a file, another function): its results
        are not there yet (``result`` and ``details`` are None until it is traced, so no
        view shows the last document's), and what the views chose for the last one starts
        over (the compared pair, the pane views, the device phase, the focused pane); the
        timing run stays, marked as the last function's (:meth:`timing_note`)."""
        self.update(result=None, details=None, compared=None, pane_views={},
                    device_phase=0, focused_variant=None)
        self.document = self.document + 1

    def not_traced(self) -> str:
        """What a view without a result says: ``layer is not traced yet``."""
        if not self.function:
            return "No function chosen yet: pick one above the editor."
        return f"{self.function} is not traced yet (Trace, F5, traces it)."

    def set_pane_view(self, variant: str, view: str) -> None:
        """What ``variant``'s pane shows (``jaxpr`` is the default and not kept)."""
        views = {k: v for k, v in self.pane_views.items() if k != variant}
        if view != "jaxpr":
            views[variant] = view
        self.pane_views = views

    def pane_view(self, variant: str) -> str:
        """What ``variant``'s pane shows now."""
        return self.pane_views.get(variant, "jaxpr")

    def timing_note(self) -> str:
        """Why the timing view's run is not of the function open now ("" when it is, or
        when there is none): ``recording of convolve — Run to measure layer``."""
        if not self.timing_of or not self.function or self.timing_of == self.function:
            return ""
        return f"recording of {self.timing_of} — Run to measure {self.function}"

    # ------------------------------------------------------------ settings
    def set_setting(self, name: str, value: Any) -> None:
        """Change one trace setting (``args``, ``batch``, ``mesh`` ...).

        Raises:
            KeyError: no such setting.
        """
        if name not in TraceSettings.names():
            raise KeyError(f"no trace setting {name!r}; the settings are "
                           f"{', '.join(TraceSettings.names())}")
        self.settings = replace(self.settings, **{name: value})

    def set_settings(self, values: Mapping[str, Any]) -> None:
        """Replace every trace setting (see :func:`settings_from`)."""
        self.settings = settings_from(values)

    def set_variant_visible(self, variant: str, visible: bool) -> None:
        """Show or hide one pane."""
        wanted = set(self.visible_variants)
        if visible:
            wanted.add(variant)
        else:
            wanted.discard(variant)
        self.visible_variants = pane_order(wanted)

    def set_two_panes(self, left: str | None = None, right: str | None = None) -> None:
        """Choose the variants of the ``two panes`` layout (None keeps a side's variant);
        choosing one side's variant for the other side swaps them.

        Raises:
            ValueError: not a variant.
        """
        old_left, old_right = self.two_panes
        new_left, new_right = left or old_left, right or old_right
        for name in (new_left, new_right):
            if name not in VARIANTS:
                raise ValueError(f"{name!r} is not a variant; the variants are "
                                 f"{', '.join(VARIANTS)}")
        if new_left == new_right:  # the other side takes what this side had
            new_left, new_right = (new_left, old_left) if left else (old_right, new_right)
        self.two_panes = (new_left, new_right)

    def set_maximized(self, view: str) -> None:
        """Let ``view`` (``devices``, ``timing``) fill the central area; "" restores.

        Raises:
            ValueError: not a view that can be maximized.
        """
        if view and view not in MAXIMIZABLE:
            raise ValueError(f"{view!r} cannot be maximized; these can: "
                             f"{', '.join(MAXIMIZABLE)}")
        self.maximized = view

    # ---------------------------------------------------------- derived
    def shown_variants(self) -> list[str]:
        """The variants whose panes are on screen, in the order shown: the two of the
        ``two panes`` layout, else the visible panes."""
        if self.pane_layout == TWO_PANES:
            return list(self.two_panes)
        return list(self.visible_variants)

    def device_variant(self) -> str:
        """The variant the device view shows: the pane last clicked, else the most parallel."""
        visible = self.shown_variants()
        if self.focused_variant is not None and self.focused_variant in visible:
            return self.focused_variant
        return next((v for v in DEVICE_PREFERENCE if v in visible), "plain")

    def field_errors(self) -> dict[str, FieldError]:
        """The settings fields that do not parse (see :func:`find_field_errors`)."""
        texts = {name: "" if value is None else str(value)
                 for name, value in self.settings.settings().items()}
        return find_field_errors(texts, self.devices)

    def request_problem(self) -> RequestProblem | None:
        """Why :meth:`to_request` gives None; None when it gives a request."""
        try:
            tree = parse_module(self.source)
        except SyntaxError as exc:
            return RequestProblem("syntax", f"SyntaxError: {exc.msg}", line=exc.lineno or 1)
        if not self.function:
            return RequestProblem("function", "pick the function to trace (or define one)")
        errors = self.field_errors()
        if self.settings.args and not errors.keys() & {"args", "static"}:
            # a wrong count explains the rest
            wrong = call_arity_problem(tree, self.function, self.settings.args,
                                       self.settings.static or "")
            if wrong:
                return RequestProblem("fields", wrong, field="args")
        if errors:
            name = next(iter(errors))
            return RequestProblem("fields", errors[name][0], field=name)
        if not self.settings.args and required_params(tree, self.function):
            return RequestProblem(
                "args", f"say what arguments {self.function} takes, e.g. f32[5], f32[3]",
                field="args")
        return None

    def to_request(self) -> TraceRequest | None:
        """The request for what the window shows; None when it cannot run (see
        :meth:`request_problem`). The ``plain`` variant is always traced (the
        ``vmap`` pane compares against it), and so are the compared ones."""
        if self.request_problem() is not None:
            return None
        wanted = set(self.shown_variants()) | {"plain"} | set(self.compared or ())
        variants = [v for v in VARIANTS if v in wanted]
        return TraceRequest(target=Target(self.source, self.filename, self.function),
                            variants=variants, **self.settings.settings())


def settings_from(values: Mapping[str, Any]) -> TraceSettings:
    """Trace settings from a mapping holding some of them (as a form or a file declares them).

    Missing or empty settings take their defaults (an empty ``args`` is ``""``); keys
    that are not settings are ignored (:func:`~jaxviz.model.settings_table.settings_values`).
    """
    return TraceSettings(**settings_values(values))


def call_arity_problem(tree: ast.Module, function: str, args: str, static: str) -> str | None:
    """:func:`arity_problem` for an argument spec and static arguments as typed.

    Raises:
        SpecError: ``args`` or ``static`` does not parse.
    """
    positional, keywords = specs.parse_call_args(args)
    names = [k.name for k in keywords] + [k.name for k in call_options.parse_static(static)]
    return arity_problem(tree, function, len(positional), names)


def arity_problem(tree: ast.Module, function: str, count: int,
                  keywords: Collection[str] = ()) -> str | None:
    """Why ``count`` positional arguments (and ``keywords`` by name) cannot call
    ``function`` as the source defines it; None if they can, or if that cannot be
    told by reading it (a decorated or unknown function). A keyword the function
    lacks is left to the engine, which names its parameters."""
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == function), None)
    if node is None or node.decorator_list:
        return None
    params = [*node.args.posonlyargs, *node.args.args]
    known = {p.arg for p in [*node.args.args, *node.args.kwonlyargs]}
    if node.args.kwarg is None and not known.issuperset(keywords):
        return None  # the engine names the parameters there are
    required = len(params) - len(node.args.defaults)
    # leading parameters given by name (static) are passed first, by position
    lead = 0
    while lead < len(params) and params[lead].arg in keywords and lead >= len(
            node.args.posonlyargs):
        lead += 1
    count += lead
    filled = {p.arg for p in params[:count]} | set(keywords)
    missing = any(p.arg not in filled for p in params[count:required])
    if not missing and (node.args.vararg is not None or count <= len(params)):
        return None
    if node.args.vararg is not None:
        takes = f"at least {required} argument{'s' if required != 1 else ''}"
    elif required == len(params):
        takes = f"{required} argument{'s' if required != 1 else ''}"
    else:
        takes = f"{required} to {len(params)} arguments"
    names = f" ({', '.join(p.arg for p in params)})" if params else ""
    given = count - lead + len(keywords)
    return f"{function} takes {takes}{names}, but the arguments give {given}"


def required_params(tree: ast.Module, function: str) -> int:
    """How many positional parameters without defaults ``function`` has (0 if unknown)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            args = node.args
            return len(args.posonlyargs) + len(args.args) - len(args.defaults)
    return 0


def find_field_errors(texts: Mapping[str, str], devices: int) -> dict[str, FieldError]:
    """Every settings field that does not parse: ``field -> (message, position)``.

    Args:
        texts: the fields as typed, by name
            (:data:`~jaxviz.model.settings_table.TEXT_SETTINGS`; missing ones are empty).
        devices: the device count a mesh must fit in.
    """
    v = {name: texts.get(name) or "" for name in TEXT_SETTINGS}
    errors: dict[str, FieldError] = {}

    def check(name: str, parse: Callable[[str], Any]) -> Any:
        try:
            return parse(v[name])
        except SpecError as exc:
            errors[name] = (exc.message, exc.position)
            return None

    parsed = check("args", _positional_args)
    nargs = len(parsed) if parsed is not None else None
    if v["batched_args"].strip():
        batched = check("batched_args", specs.parse_args)
        if batched is not None and nargs and len(batched) != nargs:  # no args: said there
            errors["batched_args"] = (f"{len(batched)} batched arguments for "
                                      f"{nargs} arguments", 0)
    if v["in_axes"].strip() and nargs is not None:
        in_axes = check("in_axes", lambda t: specs.parse_in_axes(t, nargs))
        problem = in_axes is not None and specs.batched_args_problem(v["batched_args"], in_axes)
        if problem and "batched_args" not in errors:
            errors["batched_args"] = (problem, 0)
    axis = v["axis_name"].strip()
    axis_problem = specs.axis_name_problem(axis) if axis else None
    if axis_problem:
        errors["axis_name"] = (axis_problem, 0)
    mesh = check("mesh", specs.parse_mesh) if v["mesh"].strip() else None
    if mesh:
        need = math.prod(size for _, size in mesh)
        if need > devices:
            errors["mesh"] = (f"this mesh needs {need} devices but there are {devices}: "
                              f"shrink the mesh or use more devices", 0)
    names = [n for n, _ in mesh] if mesh else [axis or DEFAULT_AXIS_NAME]
    for key in ("specs", "out_specs"):
        if not v[key].strip():
            continue
        parsed_specs = check(key, parse_partition_specs)
        for spec in parsed_specs or []:
            for leaf in spec_leaves(spec):  # JAX: "... has duplicate entries" at the call
                used = partition_axis_names(leaf)
                twice = next((a for a in used if used.count(a) > 1), None)
                if twice is not None and key not in errors:
                    errors[key] = (f"{format_partition_spec(leaf)} names mesh axis {twice!r} "
                                   f"twice: an axis shards at most one dimension of an array",
                                   max(0, v[key].find(repr(twice))))
            for axis_used in partition_axis_names(spec):
                if axis_used not in names and key not in errors:
                    where = max(0, v[key].find(repr(axis_used)))
                    errors[key] = (f"{axis_used!r} is not an axis of the mesh "
                                   f"({', '.join(names)})", where)
    check("axis_types", lambda t: call_options.parse_axis_types(t, len(names)))
    check("out_axes", call_options.parse_out_axes)
    check("static", call_options.parse_static)
    order = check("devices_order", lambda t: call_options.parse_devices_order(t, devices))
    if order and mesh and len(order) < math.prod(size for _, size in mesh):
        errors["devices_order"] = (f"the mesh needs {math.prod(s for _, s in mesh)} devices; "
                                   f"the order names {len(order)}", 0)
    return errors


def _positional_args(text: str) -> list[specs.Spec]:
    """The positional arguments of an argument spec (keywords are static arguments)."""
    positional, static = specs.parse_call_args(text)
    call_options.check_static_values(static, text)
    return positional
