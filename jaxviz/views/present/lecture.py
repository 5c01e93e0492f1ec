"""Lectures: the steps of a presentation, from a TOML file or built from a function.

A lecture file is TOML (read with :mod:`tomllib`). Its schema::

    title = "Parallel computing with JAX"      # required
    subtitle = "..."                            # optional, on the title slide
    devices = 8                                 # optional: simulated devices (default 8)

    [[step]]
    view = "jaxpr"            # required: one of VIEWS (below)
    example = "convolve"      # the gallery's example ... or
    target = "model.py:f"     # ... a file's function (relative to the lecture file)
    variant = "vmap"          # jaxpr, program, device, stepping (default: the view's own)
    variants = ["plain", "vmap"]   # diff: the two variants compared (default plain, vmap)
    phase = 3                 # device: one phase (1 = the first); default: every phase
    plot = "timeline"         # timing: dispatch_vs_complete, timeline, variants, sweep
    recording = "rec/x.json"  # timing: a `jaxviz time --out` recording beside the lecture
    equations = ["psum"]      # stepping: the primitives to stop at (default: every equation)
    lines = [17]              # source: the lines lit (default: those that made equations)
    caption = "..."           # optional: replaces the caption computed from the data
                              # (a summary step without a function sums up the lecture:
                              # one line per function, from its slides' computed captions)
    notes = "..."             # optional: speaker notes (the presenter console shows them)

    [step.options]            # optional trace settings over the example's own
    batch = 8                 # the settings in settings_table.LECTURE_OPTIONS:
                              # args, batch, batched_args, in_axes, axis_name,
                              # mesh, specs, out_specs, check_vma

Every step of one view and settings may expand to several slides (a device
step to one slide per phase, a stepping step to one per equation); the cursor
walks slides. Without a file, :func:`steps_for_function` builds the steps of a
function from the variants it declares.

Problems are reported as :class:`LectureError` with the file, the line and
what is wrong. No JAX, no Qt.

Example:
    >>> text = 'title = "t"\\n[[step]]\\nview = "source"\\nexample = "convolve"\\n'
    >>> lecture = parse_lecture(text)
    >>> [s.view for s in lecture.steps]
    ['source']
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jaxviz.model.limits import DEFAULT_DEVICES, DEVICES
from jaxviz.model.settings_table import LECTURE_OPTIONS

#: What a step can show.
VIEWS = ("title", "source", "jaxpr", "diff", "program", "device", "timing", "stepping",
         "summary")
#: Variants that run on several devices (the ``program`` view lights their wrapper).
PARALLEL = ("pmap", "sharded", "shard_map")
#: Timing plots a step may show.
PLOTS = ("dispatch_vs_complete", "timeline", "variants", "sweep")
#: Trace settings a step's ``[step.options]`` may set (the table's ``lecture`` column).
OPTIONS = LECTURE_OPTIONS
#: Keys a step may have.
STEP_KEYS = ("view", "example", "target", "variant", "variants", "phase", "plot", "recording",
             "equations", "lines", "caption", "notes", "options")
#: Keys the file may have at its top.
TOP_KEYS = ("title", "subtitle", "devices", "step")
#: Views that need a function (all but the title; a summary without one sums up the
#: lecture: what its slides before it showed, one line per function).
NEEDS_FUNCTION = tuple(v for v in VIEWS if v not in ("title", "summary"))


class LectureError(ValueError):
    """A lecture file that cannot be used: ``file:line: what is wrong``."""


@dataclass
class LectureStep:
    """One step of a lecture as written (it may expand to several slides).

    Attributes:
        view: one of :data:`VIEWS`.
        target: ``example:NAME`` or ``path/to/file.py:function`` ('' for a title).
        variant: the variant shown ('' where the view picks).
        variants: the pair compared by a ``diff``.
        phase: a device step's phase (1-based), or None for every phase.
        plot, recording: a timing step's plot and recording file (absolute path).
        equations: a stepping step's primitives to stop at (empty: every equation).
        lines: a source step's lit lines (empty: the lines that made equations).
        caption, notes: written captions and speaker notes ('' when not given).
        options: trace settings over the example's own.
        line: the line of the file where the step starts (0 when built, not read).
    """

    view: str
    target: str = ""
    variant: str = ""
    variants: list[str] = field(default_factory=list)
    phase: int | None = None
    plot: str = ""
    recording: str = ""
    equations: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    caption: str = ""
    notes: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    line: int = 0


@dataclass
class Lecture:
    """A lecture: its title, device count and steps; ``path`` is its file ('' when built)."""

    title: str
    steps: list[LectureStep]
    subtitle: str = ""
    devices: int = DEFAULT_DEVICES
    path: str = ""

    @property
    def folder(self) -> Path:
        """Where files named by the lecture (recordings, targets) are looked up."""
        return Path(self.path).resolve().parent if self.path else Path.cwd()

    def targets(self) -> list[str]:
        """The functions the lecture shows, in order of first appearance."""
        return list(dict.fromkeys(s.target for s in self.steps if s.target))


def load_lecture(path: str | Path, devices: int | None = None) -> Lecture:
    """Read and check a lecture file, every step, before anything runs.

    The file is read as every file is (:mod:`jaxviz.model.files`: a regular
    file of at most :data:`~jaxviz.model.files.LECTURE_BYTES`, within a time
    limit). ``devices`` (``--devices``) replaces the file's device count.

    Raises:
        LectureError: the file cannot be read, is not TOML, or a step is wrong
            (``file:line: ...``).
    """
    from jaxviz.model.files import LECTURE_BYTES, FileProblem, read_text

    path = Path(path)
    try:
        text = read_text(path, limit=LECTURE_BYTES, what="lecture")
    except FileProblem as exc:
        raise LectureError(f"{exc}") from None
    return parse_lecture(text, str(path), devices)


def parse_lecture(text: str, path: str = "<lecture>", devices: int | None = None) -> Lecture:
    """Parse and check a lecture's TOML text (see the module docstring for the schema).

    Every step is checked before anything runs: its example exists, its
    file and function exist (the file is read, never run), its recording is a
    jaxviz timing recording, its ``[step.options]`` are of the right type and
    parse as the command line's flags do (a batch is a whole number in range,
    a mesh fits the devices, specs name its axes, ``check_vma`` is true or
    false). ``devices`` replaces the file's device count (``--devices``).

    Raises:
        LectureError: with the file, the line and what is wrong.
    """
    from jaxviz.model.files import FileProblem, check_depth

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LectureError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise LectureError(f"{path}: it is nested too deeply to be a lecture") from None
    try:
        check_depth(data, path)
    except FileProblem as exc:
        raise LectureError(str(exc)) from None
    where = _Lines(text, path)
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise LectureError(f"{where.key(unknown[0])}: unknown key {unknown[0]!r}; a lecture has "
                           f"{', '.join(TOP_KEYS)}")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LectureError(f"{path}:1: the lecture needs a title = \"...\"")
    written = data.get("devices", DEFAULT_DEVICES)
    if not isinstance(written, int) or isinstance(written, bool) \
            or not DEVICES.low <= written <= DEVICES.high:
        raise LectureError(f"{where.key('devices')}: devices is a whole number from "
                           f"{DEVICES.low:g} to {DEVICES.high:g}, not {written!r}")
    raw = data.get("step", [])
    if not isinstance(raw, list) or not raw:
        raise LectureError(f"{path}:1: the lecture has no [[step]]")
    folder = Path(path).resolve().parent if path != "<lecture>" else Path.cwd()
    count = devices or written
    steps = [_step(item, where.step(i), folder, count) for i, item in enumerate(raw)]
    return Lecture(title=title.strip(), subtitle=str(data.get("subtitle", "")),
                   devices=count, steps=steps, path=path)


class _Lines:
    """Finds the line of a key or of the n-th ``[[step]]`` in a lecture's text."""

    def __init__(self, text: str, path: str):
        self.lines = text.splitlines()
        self.path = path
        self.starts = [i + 1 for i, t in enumerate(self.lines)
                       if re.match(r"\s*\[\[\s*step\s*\]\]", t)]

    def key(self, name: str, after: int = 0) -> str:
        pattern = re.compile(rf"\s*({re.escape(name)}\s*=|\[\s*step\s*\.\s*{re.escape(name)}\s*\])")
        for number in range(after, len(self.lines)):
            if pattern.match(self.lines[number]):
                return f"{self.path}:{number + 1}"
        return f"{self.path}:{max(after, 1)}"

    def step(self, index: int) -> _StepLines:
        start = self.starts[index] if index < len(self.starts) else 1
        return _StepLines(self, start)


@dataclass
class _StepLines:
    lines: _Lines
    start: int

    def at(self, name: str | None = None) -> str:
        """``file:line`` of the step's key ``name`` (or of the step itself)."""
        if name is None:
            return f"{self.lines.path}:{self.start}"
        return self.lines.key(name, self.start)


def _step(item: Any, where: _StepLines, folder: Path, devices: int) -> LectureStep:
    if not isinstance(item, dict):
        raise LectureError(f"{where.at()}: a step is a [[step]] table")
    _refuse_unknown(item, STEP_KEYS, where, "key", "in a step; a step has")
    view = item.get("view")
    if view not in VIEWS:
        raise LectureError(f"{where.at('view' if 'view' in item else None)}: view must be one "
                           f"of {', '.join(VIEWS)}, not {view!r}")
    step = LectureStep(view=view, line=where.start)
    for name in ("caption", "notes", "variant", "plot"):
        value = item.get(name, "")
        if not isinstance(value, str):
            raise LectureError(f"{where.at(name)}: {name} is a string, not {value!r}")
        setattr(step, name, value.strip() if name != "notes" else value.strip())
    if "example" in item and "target" in item:
        raise LectureError(f"{where.at('target')}: give example or target, not both")
    defaults: dict[str, Any] = {}
    if "example" in item:
        step.target = f"example:{_text(item, 'example', where)}"
        defaults = _resolve(step.target, where.at("example"))
    elif "target" in item:
        step.target = _file_target(_text(item, "target", where), folder, where)
        defaults = _resolve(step.target, where.at("target"))
    elif view in NEEDS_FUNCTION:
        raise LectureError(f"{where.at()}: a {view} step needs example = \"NAME\" or "
                           f"target = \"file.py:function\"")
    _check_view_keys(step, item, where, folder)
    _check_options(step.options, defaults, where, devices, needs_args=bool(step.target))
    return step


def _resolve(target: str, at: str) -> dict[str, Any]:
    """The settings of a step's function; a missing example, file or function is refused.

    The file is read and parsed, never run (:func:`jaxviz.model.sources.resolve_target`).
    """
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    try:
        return resolve_target(target)[1]
    except UserError as exc:
        raise LectureError(f"{at}: {exc.info.message}") from None


def _text(item: dict[str, Any], name: str, where: _StepLines) -> str:
    value = item[name]
    if not isinstance(value, str) or not value.strip():
        raise LectureError(f"{where.at(name)}: {name} is a non-empty string, not {value!r}")
    return value.strip()


def _file_target(text: str, folder: Path, where: _StepLines) -> str:
    if text.startswith("example:"):
        return text
    file, _, function = text.rpartition(":")
    if not file.endswith(".py") or not function.isidentifier():
        raise LectureError(f"{where.at('target')}: target is path/to/file.py:function (the "
                           f"file, relative to the lecture, and the function), not {text!r}")
    path = (folder / file).resolve()
    if not path.exists():
        raise LectureError(f"{where.at('target')}: no file {path}")
    return f"{path}:{function}"


def _check_view_keys(step: LectureStep, item: dict[str, Any], where: _StepLines,
                     folder: Path) -> None:
    from jaxviz.model.records import VARIANTS

    if step.variant and step.variant not in VARIANTS:
        raise LectureError(f"{where.at('variant')}: variant must be one of "
                           f"{', '.join(VARIANTS)}, not {step.variant!r}")
    if step.view == "program" and step.variant and step.variant not in PARALLEL:
        raise LectureError(f"{where.at('variant')}: a program step shows "
                           f"{', '.join(PARALLEL)}, not {step.variant}")
    if "variants" in item:
        pair = item["variants"]
        if (step.view != "diff" or not isinstance(pair, list) or len(pair) != 2
                or any(v not in VARIANTS for v in pair)):
            raise LectureError(f"{where.at('variants')}: variants is a diff step's two "
                               f"variants, e.g. [\"plain\", \"vmap\"], not {pair!r}")
        step.variants = list(pair)
    if "phase" in item:
        phase = item["phase"]
        if step.view != "device" or not isinstance(phase, int) or isinstance(phase, bool) \
                or phase < 1:
            raise LectureError(f"{where.at('phase')}: phase is a device step's phase number "
                               f"(1 = the first), not {phase!r}")
        step.phase = phase
    if step.view == "timing":
        if step.plot not in PLOTS:
            raise LectureError(f"{where.at('plot' if 'plot' in item else None)}: a timing step "
                               f"needs plot = one of {', '.join(PLOTS)}")
        if "recording" in item:
            recording = folder / _text(item, "recording", where)
            if not recording.exists():
                raise LectureError(f"{where.at('recording')}: no recording {recording} (make "
                                   f"one with `jaxviz time TARGET --out FOLDER`)")
            _check_recording(recording, where.at("recording"))
            step.recording = str(recording)
    elif "plot" in item or "recording" in item:
        name = "plot" if "plot" in item else "recording"
        raise LectureError(f"{where.at(name)}: {name} belongs to timing steps")
    for name, kind, view in (("equations", str, "stepping"), ("lines", int, "source")):
        if name in item:
            values = item[name]
            if step.view != view or not isinstance(values, list) or not all(
                    isinstance(v, kind) and not isinstance(v, bool) for v in values):
                raise LectureError(f"{where.at(name)}: {name} is a list for {view} steps, "
                                   f"not {values!r}")
            setattr(step, name, list(values))
    options = item.get("options", {})
    if not isinstance(options, dict):
        raise LectureError(f"{where.at('options')}: options is a table of trace settings")
    _refuse_unknown(options, OPTIONS, where, "option", "; options are")
    step.options = dict(options)


def _check_recording(path: Path, at: str) -> None:
    """Read a timing step's recording now: a wrong one is refused before anything runs."""
    from jaxviz.views.timing.export import read_json

    try:
        read_json(path)
    except (ValueError, KeyError, TypeError) as exc:  # FileProblem is a ValueError
        raise LectureError(f"{at}: the recording {path} cannot be used: {exc}") from None


def _check_options(options: dict[str, Any], defaults: dict[str, Any], where: _StepLines,
                   devices: int, needs_args: bool) -> None:
    """Refuse ``[step.options]`` of the wrong type, or that do not parse as their flags do.

    The same checks as the command line's
    (:func:`jaxviz.views.window.window_state.find_field_errors`),
    on the options over the function's own settings.
    """
    from jaxviz.model.limits import BATCH
    from jaxviz.model.settings_table import SETTINGS, fits_kind
    from jaxviz.views.window.window_state import find_field_errors

    for name, value in options.items():
        if fits_kind(SETTINGS[name], value):
            continue
        takes = {"count": BATCH.describe(), "flag": "true or false"}.get(
            SETTINGS[name].kind,
            f"a string, as its command-line flag takes it (e.g. {name} = \"...\")")
        raise LectureError(f"{where.at(name)}: {name} is {takes}, not {value!r}")
    texts = {k: v for k, v in {**defaults, **options}.items() if isinstance(v, str)}
    if needs_args and not texts.get("args", "").strip():
        raise LectureError(f"{where.at()}: say what arguments the function takes: "
                           f"[step.options] args = \"f32[5], f32[3]\"")
    errors = find_field_errors(texts, devices)
    if not errors:
        return
    name, (message, _) = next(((n, e) for n, e in errors.items() if n in options),
                              next(iter(errors.items())))
    shown = f"{name} = {texts.get(name, '')!r}"
    if name not in options:  # the function's own setting no longer fits the options
        shown = f"with these options, the function's {shown}"
    raise LectureError(f"{where.at(name if name in options else 'options')}: {shown}: "
                       f"{message}")


def _refuse_unknown(table: dict[str, Any], allowed: tuple[str, ...], where: _StepLines,
                    what: str, known: str) -> None:
    """Refuse a key of ``table`` not in ``allowed``: ``file:line: unknown key 'x' ...``."""
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise LectureError(f"{where.at(unknown[0])}: unknown {what} {unknown[0]!r}"
                           f"{'' if known.startswith(';') else ' '}{known} {', '.join(allowed)}")


# --------------------------------------------------------------------------- #
# Steps built from a function
# --------------------------------------------------------------------------- #

#: Plots a function's timing steps show, in order.
FUNCTION_PLOTS = ("dispatch_vs_complete", "timeline", "variants")


def steps_for_function(target: str, variants: list[str], timing: bool = True
                       ) -> list[LectureStep]:
    """The steps that present one function, from the variants it declares.

    In order: its source, its plain jaxpr, what vmap changed (when it has
    ``plain`` and ``vmap``), each parallel program (``pmap``, ``sharded``,
    ``shard_map``, wrapper and collectives lit), the device view's phases of
    the first parallel variant (or of ``vmap``), the timing plots (measured
    when the deck is made; ``timing=False`` leaves them out), and a summary.
    """
    steps = [LectureStep("source", target)]
    first = "plain" if "plain" in variants else (variants[0] if variants else "plain")
    steps.append(LectureStep("jaxpr", target, variant=first))
    if "vmap" in variants and first != "vmap":
        if first == "plain":
            steps.append(LectureStep("diff", target, variants=["plain", "vmap"]))
        else:
            steps.append(LectureStep("jaxpr", target, variant="vmap"))
    steps += [LectureStep("program", target, variant=v) for v in PARALLEL if v in variants]
    shown = next((v for v in (*PARALLEL, "vmap") if v in variants), None)
    if shown is not None:
        steps.append(LectureStep("device", target, variant=shown))
    if timing:
        steps += [LectureStep("timing", target, plot=p) for p in FUNCTION_PLOTS]
    steps.append(LectureStep("summary", target))
    return steps


def function_lecture(target: str, title: str, variants: list[str],
                     devices: int = DEFAULT_DEVICES,
                     timing: bool = True) -> Lecture:
    """A lecture of one function: a title slide, then :func:`steps_for_function`."""
    steps = [LectureStep("title", target)] + steps_for_function(target, variants, timing)
    return Lecture(title=title, steps=steps, devices=devices)


# --------------------------------------------------------------------------- #
# What a lecture runs
# --------------------------------------------------------------------------- #


def what_runs(lecture: Lecture) -> list[str]:
    """The code a lecture file runs that is not jaxviz's own, one line each, in order.

    Presenting a lecture traces its functions: a gallery example
    (``example = "NAME"``) is jaxviz's own code; a ``target`` file runs (its
    top level, then the function), and ``[step.options] args`` /
    ``batched_args`` expressions that are not plain values
    (``jnp.arange(5.)``, ``init(key)``) are evaluated in it. Those are listed
    (``talk.toml:12: runs /path/model.py (its top level, then f)``) so the
    presenter sees them before anything runs; a recording is only read.
    """
    found: list[str] = []
    for step in lecture.steps:
        where = f"{lecture.path or '<lecture>'}:{step.line}"
        if step.target and not step.target.startswith("example:"):
            file, _, function = step.target.rpartition(":")
            found.append(f"{where}: runs {file} (its top level, then {function})")
        for name in ("args", "batched_args"):
            for source in _code_in(step.options.get(name)):
                found.append(f"{where}: evaluates {name} {source!r} in the function's module")
    return list(dict.fromkeys(found))


def _code_in(text: Any) -> list[str]:
    """The expressions of an argument spec that are code, not literal values."""
    import ast

    from jaxviz.model.specs import Dict, Expr, Seq, SpecError, parse_call_args

    if not isinstance(text, str) or not text.strip():
        return []
    try:
        positional, static = parse_call_args(text)
    except SpecError:
        return [text]
    found: list[str] = []
    todo: list[Any] = [*positional, *(s.spec for s in static)]
    while todo:
        spec = todo.pop(0)
        if isinstance(spec, Seq):
            todo.extend(spec.items)
        elif isinstance(spec, Dict):
            todo.extend(v for _, v in spec.items)
        elif isinstance(spec, Expr):
            try:
                ast.literal_eval(spec.source)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                found.append(spec.source)
    return found
