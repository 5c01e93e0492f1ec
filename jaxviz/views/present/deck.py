"""A lecture made concrete: every function traced, every step expanded into slides.

Qt-free (model and scene only), so the command line, the presentation window
and the tests build decks the same way. :func:`load_deck` asks a ``run``
callable for what the steps need -- one trace per function and settings (the
variants the steps show, with their storyboards), one stepping per stepped
variant, and a timing run for timing steps without a recording -- then
:func:`build_slides` turns the steps into :class:`Slide` records: one per
click, with the caption computed from the data unless the lecture wrote one.

``run(record)`` returns the result record or raises (an
:class:`~jaxviz.engine.EngineError`, a :class:`~jaxviz.model.errors.UserError`);
a step whose data failed becomes a slide that says what failed.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jaxviz.model.records import Target, TraceRequest, TraceResult, VariantResult
from jaxviz.model.settings_table import settings_values
from jaxviz.model.stepping import StepRequest, StepResult
from jaxviz.model.timing import TimingRequest, TimingRun
from jaxviz.views.compare.changes import marks_for
from jaxviz.views.compare.jaxpr_diff import JaxprDiff, diff_variants
from jaxviz.views.panes.link_index import walk
from jaxviz.views.present.lecture import PARALLEL, Lecture, LectureStep

#: Steps of a stepping slide sequence when the lecture names no primitives.
MAX_STEPPING_SLIDES = 12
#: Measured calls per variant when a deck measures timing live.
LIVE_RUNS = 10

Run = Callable[[Any], Any]


@dataclass
class FunctionData:
    """What one function (with one set of trace settings) brings to the deck."""

    key: str
    target_text: str
    target: Target | None = None
    defaults: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    result: TraceResult | None = None
    error: str = ""
    steppings: dict[str, StepResult | str] = field(default_factory=dict)
    timing: dict[str, TimingRun | str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The example's title, or ``f in file.py``."""
        from jaxviz.model.gallery import get_example

        if self.target_text.startswith("example:") and self.target is not None:
            try:
                return get_example(self.target_text[len("example:"):].split(":")[0]).title
            except LookupError:
                pass
        if self.target is None:
            return self.target_text
        return f"{self.target.function} in {self.target.filename.rsplit('/', 1)[-1]}"

    @property
    def explanation(self) -> str:
        """The example's explanation ('' for a file)."""
        from jaxviz.model.gallery import get_example

        if self.target_text.startswith("example:"):
            try:
                return get_example(self.target_text[len("example:"):].split(":")[0]).explanation
            except LookupError:
                return ""
        return ""

    def variant(self, name: str) -> VariantResult | None:
        if self.result is None:
            return None
        try:
            return self.result.variant(name)
        except KeyError:
            return None


@dataclass
class Slide:
    """One click of the presentation.

    Attributes:
        view: the step's view (``source``, ``jaxpr``, ``device`` ...).
        heading: the line at the top (the example's title, or the lecture's).
        caption: what the slide shows, in words (computed unless written).
        notes: speaker notes.
        step: the lecture step it came from; ``data`` the function's data.
        variant: the variant shown; ``pair`` a diff's two.
        lines: the text shown (source or jaxpr lines); ``first_line`` the
            number of the first (source: its line in the file, 1-based).
        lit: indices into ``lines`` that matter for the slide (lit, never folded).
        phase: a device slide's phase (0-based); ``stepping`` and
            ``step_index`` a stepping slide's stepping and step.
        plot, timing: a timing slide's plot and run.
        diff: a diff slide's jaxpr diff.
        error: why the slide cannot show what its step asked (shown instead).
    """

    view: str
    heading: str
    caption: str = ""
    notes: str = ""
    step: LectureStep | None = None
    data: FunctionData | None = None
    variant: str = ""
    pair: tuple[str, str] = ("", "")
    lines: list[str] = field(default_factory=list)
    first_line: int = 1
    lit: list[int] = field(default_factory=list)
    phase: int | None = None
    stepping: StepResult | None = None
    step_index: int = 0
    plot: str = ""
    timing: TimingRun | None = None
    diff: JaxprDiff | None = None
    error: str = ""
    bullets: list[str] = field(default_factory=list)
    #: What painting computed once (the scene, a figure's caption), kept for the next paint.
    cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


# --------------------------------------------------------------------------- #
# Loading
# --------------------------------------------------------------------------- #


def data_key(step: LectureStep) -> str:
    """Steps with the same function and settings share one trace."""
    return step.target + "|" + repr(sorted(step.options.items()))


def trace_request(target: Target, defaults: dict[str, Any], options: dict[str, Any],
                  variants: list[str], want: list[str]) -> TraceRequest:
    """A trace request: the example's settings, the step's options over them; a file
    (no example's settings) gives its own: its ``JAXVIZ`` dict when it names this
    function (or none), else its annotations (``x: f32[8]``); no arguments at all when
    the function takes none."""
    settings = settings_values({**file_settings(target), **defaults, **options})
    return TraceRequest(target=target, variants=variants, want=want, **settings)


def file_settings(target: Target) -> dict[str, Any]:
    """The trace settings ``target``'s file declares for its function: its ``JAXVIZ``
    dict (read, not run) when it names no function or this one, then the arguments its
    annotations give when JAXVIZ gives none."""
    from jaxviz.model.gallery import declared_in
    from jaxviz.views.window.entry_points import argument_hint

    declared = declared_in(target.source) or {}
    settings: dict[str, Any] = {}
    if declared.get("function") in (None, target.function):
        settings = {k: v for k, v in declared.items() if k in TraceRequest.names()}
    if not settings.get("args"):
        spec = argument_hint(target.source, target.function).spec
        if spec:
            settings["args"] = spec
    return settings


def variants_needed(steps: list[LectureStep], defaults: dict[str, Any]) -> list[str]:
    """Every variant the steps of one function show (the example's declared ones too)."""
    declared = list(defaults.get("variants") or [])
    wanted = list(declared)
    for step in steps:
        wanted += [v for v in (step.variant, *step.variants) if v]
        if step.view == "jaxpr" and not step.variant:
            wanted.append("plain" if "plain" in declared or not declared else declared[0])
        if step.view == "diff" and not step.variants:
            wanted += ["plain", "vmap"]
        if step.view in ("program", "device", "stepping") and not step.variant:
            wanted.append(default_variant(step.view, declared))
    return list(dict.fromkeys(wanted or ["plain"]))


def default_variant(view: str, declared: list[str]) -> str:
    """The variant a view shows when its step names none."""
    if view == "jaxpr":
        return "plain" if "plain" in declared or not declared else declared[0]
    order = (*PARALLEL, "vmap", "plain") if view in ("device", "stepping") else PARALLEL
    return next((v for v in order if v in declared), order[0])


def load_deck(lecture: Lecture, run: Run, measure: bool = False,
              progress: Callable[[str], None] | None = None) -> list[Slide]:
    """Trace, step and time what the lecture needs (through ``run``), then its slides.

    Args:
        lecture: the lecture.
        run: runs one request record and returns its result (raises on failure).
        measure: measure timing steps live even when they have a recording.
        progress: told what is being done (``tracing convolve``).
    """
    functions = load_functions(lecture, run, measure, progress)
    return build_slides(lecture, functions)


def load_functions(lecture: Lecture, run: Run, measure: bool = False,
                   progress: Callable[[str], None] | None = None,
                   sources: dict[str, str] | None = None,
                   resolved: dict[str, tuple[Target, dict[str, Any]]] | None = None
                   ) -> dict[str, FunctionData]:
    """The data of every function of the lecture, by :func:`data_key`.

    ``sources`` replaces the text of targets (``example:convolve`` -> edited
    source), for a function edited during the lecture. ``resolved`` gives the
    target and settings of a target text outright (the window's function as its
    editor and arguments have it, not as the file or the gallery does).
    """
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    say = progress or (lambda _text: None)
    groups: dict[str, list[LectureStep]] = {}
    for step in lecture.steps:
        if step.target:
            groups.setdefault(data_key(step), []).append(step)
    functions: dict[str, FunctionData] = {}
    for key, steps in groups.items():
        data = FunctionData(key=key, target_text=steps[0].target, options=steps[0].options)
        functions[key] = data
        try:
            data.target, data.defaults = (resolved or {}).get(steps[0].target) \
                or resolve_target(steps[0].target)
        except UserError as exc:
            data.error = exc.info.message
            continue
        if sources and steps[0].target in sources:
            data.target = Target(source=sources[steps[0].target], filename=data.target.filename,
                                 function=data.target.function)
        variants = variants_needed(steps, data.defaults)
        if any(s.view == "timing" for s in steps) and "plain" not in variants:
            variants = ["plain", *variants]  # its trace says whether jit can run it
        want = ["jaxpr"]
        if any(s.view == "device" for s in steps):
            want.append("story")
        if any(s.view == "summary" for s in steps):
            # the summary's sentences are rendered from the storyboards' claims; the real
            # run tells identical copies from distinct pieces
            want += [w for w in ("story", "value") if w not in want]
        if any(s.view in ("program", "summary") for s in steps):
            want.append("hlo")  # the compiled program's collectives, for the captions
        request = trace_request(data.target, data.defaults, data.options, variants, want)
        say(f"tracing {data.target.function} ({', '.join(variants)})")
        data.result = _ask(run, request, data)
        if data.result is None:
            continue
        for step in steps:
            if step.view == "stepping":
                variant = step.variant or default_variant("stepping", variants)
                if variant not in data.steppings:
                    say(f"stepping {data.target.function} ({variant})")
                    stepped = _ask(run, StepRequest(trace=request, variant=variant), data)
                    data.steppings[variant] = stepped if stepped is not None else data.error
            if step.view == "timing" and _timing_key(step) not in data.timing:
                data.timing[_timing_key(step)] = timing_run(step, data, run, measure, say)
    return functions


def _timing_key(step: LectureStep) -> str:
    return step.recording or "live"


def timing_run(step: LectureStep, data: FunctionData, run: Run, measure: bool,
               say: Callable[[str], None]) -> TimingRun | str:
    """The recording of a timing step, or a run measured now (``measure`` or no recording)."""
    from jaxviz.views.timing.export import read_json

    if step.recording and not measure:
        try:
            return read_json(step.recording)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return f"cannot read the recording {step.recording}: {exc}"
    if data.target is None:
        return data.error
    say(f"measuring {data.target.function}")
    from jaxviz.views.timing.options import cannot_run, default_options

    # the variants that can run it (jit cannot bind a psum: the trace said so)
    variants = default_options(data.defaults, cannot_run(data.result)).variants
    if not variants:
        return f"no timing variant can run {data.target.function} (its traces failed)"
    trace = trace_request(data.target, data.defaults, data.options, ["plain"], [])
    request = TimingRequest(trace=trace, variants=variants,
                            runs=LIVE_RUNS, baseline=data.defaults.get("baseline"))
    found = _ask(run, request, data)
    return found if isinstance(found, TimingRun) else (data.error or "nothing was measured")


def _ask(run: Run, request: Any, data: FunctionData) -> Any:
    """``run(request)``; a failure is kept in ``data.error`` (None returned)."""
    try:
        found = run(request)
    except Exception as exc:  # noqa: BLE001 - any failure becomes the slide's message
        info = getattr(exc, "info", None)
        data.error = getattr(info, "message", None) or str(exc) or type(exc).__name__
        return None
    error = getattr(found, "error", None)
    if error is not None and not isinstance(found, TimingRun):
        data.error = getattr(error, "message", str(error))
        return None
    return found


# --------------------------------------------------------------------------- #
# Slides
# --------------------------------------------------------------------------- #


#: Slides that frame a deck (the title, the code, the summary): a deck of only these
#: was not built.
FRAMING = ("title", "source", "summary")


def leave_out(slides: list[Slide]) -> tuple[list[Slide], list[str]]:
    """The slides with something to show, and for each other one which and why: a step
    that failed (its error) or a timing step that measured nothing.

    Returns:
        ``(kept, left_out)``: ``left_out`` says ``step 5 (timing, normalize): why``.
    """
    kept: list[Slide] = []
    left: list[str] = []
    for number, slide in enumerate(slides, 1):
        why = slide.error.splitlines()[0] if slide.error else ""
        if not why and slide.view == "timing" and (slide.timing is None
                                                   or not slide.timing.calls):
            why = "nothing was measured"
        result = slide.data.result if slide.data is not None else None
        if not why and slide.view == "summary" and result is not None:
            failed = {vr.variant for vr in result.variants if vr.error is not None}
            slide.bullets = [b for b in slide.bullets if b.split(":")[0] not in failed]
            if not slide.bullets:  # the steps left out say why
                why = "every variant failed"
        if why:
            name = slide.data.target.function if slide.data is not None \
                and slide.data.target is not None else (slide.step.target if slide.step
                                                        else "")
            left.append(f"slide {number} ({slide.view}{', ' + name if name else ''}): {why}")
        else:
            kept.append(slide)
    return kept, left


def built(slides: list[Slide]) -> bool:
    """Whether a deck shows anything besides its title and summary."""
    return any(slide.view not in FRAMING for slide in slides)


def build_slides(lecture: Lecture, functions: dict[str, FunctionData]) -> list[Slide]:
    """Every slide of the lecture, in order."""
    slides: list[Slide] = []
    for step in lecture.steps:
        data = functions.get(data_key(step)) if step.target else None
        try:
            made = (_slides_of(lecture, step, data) if step.target or step.view != "summary"
                    else [lecture_summary(lecture, slides)])
        except (KeyError, IndexError, ValueError) as exc:  # a step the data cannot show
            made = [Slide(view=step.view, heading=_heading(lecture, data), step=step,
                          data=data, error=f"cannot show this {step.view} step: {exc}")]
        for slide in made:
            slide.step = step
            slide.data = data
            if step.caption and not (slide.view == "device" and len(made) > 1):
                slide.caption = step.caption
            if step.notes:
                slide.notes = step.notes
        slides.extend(made)
    return slides


def _heading(lecture: Lecture, data: FunctionData | None) -> str:
    return data.title if data is not None else lecture.title


def _slides_of(lecture: Lecture, step: LectureStep, data: FunctionData | None) -> list[Slide]:
    heading = _heading(lecture, data)
    if step.view == "title":
        return [_title_slide(lecture, step, data)]
    assert data is not None  # every other view names a function (the lecture checks it)
    if data.result is None or data.target is None:
        return [Slide(view=step.view, heading=heading, error=data.error or "not traced")]
    declared = [v.variant for v in data.result.variants]
    if step.view == "source":
        return [_source_slide(step, data, heading)]
    if step.view in ("jaxpr", "program"):
        variant = step.variant or default_variant(step.view, declared)
        return [_jaxpr_slide(step.view, data, variant, heading)]
    if step.view == "diff":
        left, right = step.variants or ["plain", "vmap"]
        return [_diff_slide(data, left, right, heading)]
    if step.view == "device":
        return _device_slides(step, data, step.variant or default_variant("device", declared),
                              heading)
    if step.view == "stepping":
        return _stepping_slides(step, data, heading, declared)
    if step.view == "timing":
        found = data.timing.get(_timing_key(step))
        if not isinstance(found, TimingRun):
            return [Slide(view="timing", heading=heading, plot=step.plot,
                          error=found or "nothing measured")]
        return [Slide(view="timing", heading=heading, plot=step.plot, timing=found)]
    return [_summary_slide(data, heading)]


def plain_words(text: str) -> str:
    """An explanation's markdown as slide text: no backticks, one line."""
    return " ".join(text.replace("`", "").split())


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (up to its first '. ')."""
    text = plain_words(text)
    head, sep, _rest = text.partition(". ")
    return head + "." if sep else text


def _title_slide(lecture: Lecture, step: LectureStep, data: FunctionData | None) -> Slide:
    if data is not None and data.target is not None:
        text = plain_words(data.explanation.split("\n\n", 1)[0])
        return Slide(view="title", heading=data.title, caption=text or data.title)
    return Slide(view="title", heading=lecture.title, caption=lecture.subtitle)


def function_lines(target: Target) -> tuple[list[str], int]:
    """The lines of the function's definition (decorators included) and the first's number."""
    lines = target.source.splitlines()
    try:
        tree = ast.parse(target.source)
    except SyntaxError:
        return lines, 1
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == target.function:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            last = node.end_lineno or node.lineno
            return lines[first - 1:last], first
    return lines, 1


def equation_lines(result: TraceResult, filename: str) -> list[int]:
    """The source lines (1-based) that made equations in any variant."""
    found: set[int] = set()
    for vr in result.variants:
        for _path, eqn in walk(vr.equations):
            if eqn.source is not None and eqn.source.file == filename:
                found.add(eqn.source.line)
    return sorted(found)


def _source_slide(step: LectureStep, data: FunctionData, heading: str) -> Slide:
    assert data.target is not None and data.result is not None
    lines, first = function_lines(data.target)
    wanted = step.lines or equation_lines(data.result, data.target.filename)
    lit = [n - first for n in wanted if 0 <= n - first < len(lines)]
    summary = first_sentence(data.explanation)
    if not summary:
        summary = (f"{data.target.function}: the lit lines made the jaxpr's equations"
                   if lit else data.target.function)
    return Slide(view="source", heading=heading, caption=summary, lines=lines, first_line=first,
                 lit=lit)


def _primitives(vr: VariantResult) -> Counter[str]:
    return Counter(eqn.primitive for _path, eqn in walk(vr.equations))


def _jaxpr_slide(view: str, data: FunctionData, variant: str, heading: str) -> Slide:
    assert data.result is not None
    vr = data.result.variant(variant)
    if vr.error is not None:
        return Slide(view=view, heading=heading, variant=variant,
                     error=f"{variant}: {vr.error.message}")
    lines = vr.jaxpr_text.splitlines()
    marks = marks_for(data.result, variant)
    # A wrapper is lit by its first line (its body has marks of its own), the rest whole.
    lit = sorted({i for m in marks
                  for i in (range(m.start, m.start + 1) if m.kind == "wrapper"
                            else range(m.start, m.end + 1))})
    count = sum(_primitives(vr).values())
    if view == "program":
        caption = program_caption(vr, [m.kind for m in marks])
    else:
        common = ", ".join(f"{n} {p}" for p, n in _primitives(vr).most_common(4))
        caption = (f"the {variant} jaxpr of {data.result.function}: {count} equation"
                   f"{'' if count == 1 else 's'} ({common})")
    return Slide(view=view, heading=heading, caption=caption, variant=variant, lines=lines,
                 first_line=1, lit=lit)


def program_caption(vr: VariantResult, kinds: list[str]) -> str:
    """What a parallel program's jaxpr shows, from its equations and compiled HLO."""
    prims = _primitives(vr)
    wrapper = ("shard_map" if prims.get("shard_map") else
               "jit with shardings" if "wrapper" in kinds else "")
    collectives = [p for p in prims if p in set(vr.collectives)] or list(vr.collectives)
    parts = []
    if vr.variant == "pmap" and prims.get("shard_map"):
        parts.append("pmap became jit(shard_map(...)): the body runs once per device")
    elif wrapper:
        parts.append(f"the {wrapper} wrapper (lit) runs the body per device")
    if collectives:
        said = ", ".join(f"{prims.get(c, 1)} {c}" for c in dict.fromkeys(collectives))
        parts.append(f"collectives in the jaxpr: {said}")
    else:
        parts.append("no collective in the jaxpr")
    if vr.hlo_collectives:
        parts.append(f"compiled: {', '.join(sorted(set(vr.hlo_collectives)))}")
    return "; ".join(parts)


def _diff_slide(data: FunctionData, left: str, right: str, heading: str) -> Slide:
    assert data.result is not None
    a, b = data.result.variant(left), data.result.variant(right)
    failed = next((v for v in (a, b) if v.error is not None), None)
    if failed is not None and failed.error is not None:
        return Slide(view="diff", heading=heading, pair=(left, right),
                     error=f"{failed.variant}: {failed.error.message}")
    diff = diff_variants(a, b)
    return Slide(view="diff", heading=heading, caption=f"{left} -> {right}: {diff.summary}",
                 pair=(left, right), diff=diff)


def _device_slides(step: LectureStep, data: FunctionData, variant: str,
                   heading: str) -> list[Slide]:
    from jaxviz.views.devices import build_scene

    assert data.result is not None
    scene = build_scene(data.result, variant)
    if scene.error:
        return [Slide(view="device", heading=heading, variant=variant, error=scene.error)]
    vr = data.result.variant(variant)
    lines = vr.jaxpr_text.splitlines()
    phases = range(len(scene.phases))
    if step.phase is not None:
        if step.phase > len(scene.phases):
            raise ValueError(f"phase {step.phase}: the {variant} animation has phases 1 to "
                             f"{len(scene.phases)}")
        phases = range(step.phase - 1, step.phase)
    from jaxviz.views.devices.overview import OVERVIEW_PHASES, build_overview

    slides = []
    if step.phase is None and len(scene.phases) >= OVERVIEW_PHASES:
        # a big program: one slide per group of its overview's first level, at its first
        # phase, lighting every equation of the group
        rows = build_overview(scene)
        for row in rows:
            if not (row.depth == 1 or (row.depth == 0 and row.kind == "arrays")):
                continue
            lit = sorted({i for k in range(row.first, row.last + 1)
                          for (v, start, end) in scene.phases[k].highlights if v == variant
                          for i in range(start, end + 1)})
            span = (f"phase {row.first + 1}" if row.first == row.last
                    else f"phases {row.first + 1}-{row.last + 1}")
            slides.append(Slide(view="device", heading=heading,
                                caption=f"{row.title} ({span} of {len(scene.phases)})",
                                variant=variant, lines=lines, lit=lit, phase=row.first))
        return slides
    for k in phases:
        phase = scene.phases[k]
        lit = sorted({i for (v, start, end) in phase.highlights if v == variant
                      for i in range(start, end + 1)})
        slides.append(Slide(view="device", heading=heading, caption=phase.title,
                            variant=variant, lines=lines, lit=lit, phase=k))
    return slides


def _stepping_slides(step: LectureStep, data: FunctionData, heading: str,
                     declared: list[str]) -> list[Slide]:
    variant = step.variant or default_variant("stepping", declared)
    found = data.steppings.get(variant)
    if not isinstance(found, StepResult):
        return [Slide(view="stepping", heading=heading, variant=variant,
                      error=found or "not stepped")]
    chosen = [i for i, s in enumerate(found.steps) if s.kind == "equation"
              and (not step.equations or s.primitive in step.equations)]
    if not step.equations:
        chosen = chosen[:MAX_STEPPING_SLIDES]
    if not chosen:
        raise ValueError(f"no equation {', '.join(step.equations)} in the {variant} stepping")
    return [Slide(view="stepping", heading=heading, variant=variant, stepping=found,
                  step_index=i, caption=stepping_caption(found, i))
            for i in chosen]


def stepping_caption(result: StepResult, index: int) -> str:
    """``psum over devices 0-7: eight values become one`` -- from the stepped values."""
    step = result.steps[index]
    where = f"line {step.source.line}: " if step.source is not None else ""
    lanes = len(step.lanes)
    if step.groups and lanes > 1:
        return (f"{where}{step.primitive} on {lanes} devices, combined across "
                f"{'groups ' if len(step.groups) > 1 else ''}"
                f"{' | '.join(' '.join(map(str, g)) for g in step.groups)}")
    if lanes > 1:
        return f"{where}{step.primitive} on each of {lanes} devices, on its own block"
    return f"{where}{step.primitive} with its real values"


def _summary_slide(data: FunctionData, heading: str) -> Slide:
    from jaxviz.views.devices.summary import variant_summary

    assert data.result is not None
    bullets = []
    for vr in data.result.variants:
        if vr.error is not None:
            bullets.append(f"{vr.variant}: {vr.error.message.splitlines()[0]}")
            continue
        bullets.append(variant_summary(vr))
    devices = len(data.result.devices)
    kind = "simulated CPU devices" if data.result.simulated else "devices"
    return Slide(view="summary", heading=heading, bullets=bullets,
                 caption=f"{data.result.function}: what each variant became, on {devices} {kind}")


#: What one line of a lecture's summary says of a function: the first two of its slides'
#: views in this order that showed something (what a transformation changed, a
#: program's collectives, a stepped collective's values, a measurement, ...); the views
#: after :data:`SUMMARY_FINDINGS` only when it showed none of those.
SUMMARY_ORDER = ("diff", "program", "stepping", "timing", "device", "jaxpr", "source")
SUMMARY_FINDINGS = 4


def lecture_summary(lecture: Lecture, slides: list[Slide]) -> Slide:
    """The lecture's closing slide: one line per function its slides showed, in order,
    each the computed caption of one of that function's slides (the first clause of it;
    a caption the lecture wrote is the lecture's words, not a finding, and is passed
    over). Slides that failed or measured nothing say nothing here."""
    from jaxviz.views.timing.stats import CAPTIONS

    found: dict[str, tuple[str, dict[str, str]]] = {}
    for slide in slides:
        data = slide.data
        if data is None or data.target is None or slide.error or slide.view == "title":
            continue
        if slide.step is not None and slide.step.caption:
            continue
        caption = slide.caption
        if slide.view == "timing":
            if slide.timing is None or not slide.timing.calls or slide.plot not in CAPTIONS:
                continue
            caption = CAPTIONS[slide.plot](slide.timing)
        if not caption:
            continue
        title, said = found.setdefault(data.key, (data.title, {}))
        said.setdefault(slide.view, caption)
    bullets = []
    for title, said in found.values():
        views = [v for v in SUMMARY_ORDER[:SUMMARY_FINDINGS] if v in said][:2] \
            or [next(v for v in SUMMARY_ORDER if v in said)]
        facts = "; ".join(first_clause(said[v]) for v in views)
        bullets.append(f"{summary_topic(title)} — {facts}")
    count = len(bullets)
    return Slide(view="summary", heading=lecture.title, bullets=bullets,
                 caption=f"What the {count} function{'' if count == 1 else 's'} of this "
                         f"lecture showed")


def summary_topic(title: str) -> str:
    """A function's title as a summary line's topic: the part before its first ``: ``
    (``Collectives: normalize by a psum`` -> ``Collectives``)."""
    return title.split(": ", 1)[0]


def first_clause(text: str) -> str:
    """A caption up to its first `` — `` (what follows explains it)."""
    return text.split(" — ", 1)[0].strip()

