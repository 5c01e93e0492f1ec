"""``jaxviz animate``: the device-view animation of a variant, as video, GIF, PDF or images.

Traces the target (through the engine, like ``jaxviz layout``), builds the
device view's scene from the real layout JAX chose, and renders every phase
offscreen: no display is needed (``QT_QPA_PLATFORM=offscreen`` is set when
there is none). The formats come from the export registry
(:mod:`jaxviz.ui.exporters`), chosen by the suffix of ``--out``: a video
(``.mp4``, ``.webm``), an animated image (``.gif``, ``.apng``), a vector PDF
with one page per phase, or one image per phase (``.png``, ``.svg``);
``--phase K`` writes phase K alone (``.png``, ``.svg``, ``.pdf``).
``--out FILE.json`` writes the variant's storyboard instead (what every
device holds and runs, read from the compiled program, with the device
view's phases) as plain JSON, for slide tools and tests. With
``--processes P`` (the default for example:multi_host) the shard_map variant
is traced in a real run of P JAX processes (:mod:`jaxviz.engine.multihost`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import (
    EXIT_FAILED,
    EXIT_USAGE,
    add_target_options,
    image_size,
    number,
    one_line,
    output_path,
    usage_error,
)
from jaxviz.model.limits import FONT_SCALE, FPS, FRAMES_PER_PHASE, PHASE, PROCESSES
from jaxviz.model.sizes import ANIMATION_SIZES

#: Variants that make the most of the device view, in preference order.
PREFERRED = ("as_written", "pmap", "sharded", "shard_map", "vmap")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "animate", help="render the device view's animation of a variant (MP4, WebM, GIF, "
                        "APNG, PDF, PNG or SVG)",
        description="Trace a variant, then render how its arrays are split, sent to the "
                    "devices, computed, exchanged by collectives and assembled -- from the "
                    "layout JAX chose -- as a video (FILE.mp4 for slides, FILE.webm for "
                    "browsers), an animated image (FILE.gif, FILE.apng), a vector PDF with "
                    "one page per phase (FILE.pdf, for LaTeX/Beamer) or one image per phase "
                    "(FILE.png / FILE.svg become FILE-01.png, FILE-02.png, ...). "
                    "Works without a display.")
    add_target_options(p)
    p.add_argument("--out", required=True, metavar="FILE", type=output_path,
                   help="output file: .mp4 or .webm (video), .gif or .apng (animated image), "
                        ".pdf (one vector page per phase), .png or .svg (one image per "
                        "phase), .json for the storyboard (tiles with their holders, "
                        "every step with its groups and per-device shapes)")
    p.add_argument("--size", default="1280x720", metavar="WxH", type=image_size(ANIMATION_SIZES),
                   help=f"picture size in pixels (default 1280x720; {ANIMATION_SIZES})")
    p.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="colour theme (default light; dark suits many projectors)")
    p.add_argument("--frames-per-phase", type=number(FRAMES_PER_PHASE), default=6, metavar="N",
                   help="GIF/APNG frames per phase, the last held longer (default 6; 1 = "
                        f"one still per phase; at most {FRAMES_PER_PHASE.high:g})")
    p.add_argument("--fps", type=number(FPS), default=30.0, metavar="N",
                   help=f"video frames per second (MP4, WebM; default 30, {FPS.low:g} to "
                        f"{FPS.high:g}): each phase moves as long as in the window, then holds "
                        f"its result for 1.5 s")
    p.add_argument("--font-scale", type=number(FONT_SCALE), default=1.0, metavar="X",
                   help=f"multiply the text size (default 1.0; {FONT_SCALE.low:g} to "
                        f"{FONT_SCALE.high:g})")
    p.add_argument("--phase", type=phase_or_group, metavar="K|GROUP",
                   help="with .png, .svg or .pdf: write only phase K (1 = the first) to FILE "
                        "itself; or the first phase of a group of the program's overview "
                        "(e.g. 'forward', 'block', 'forward/loss_fn/block/7')")
    p.add_argument("--group", metavar="GROUP", type=one_line,
                   help="animate only the phases of one group of the program's overview: "
                        "where they come from (a part of a train step: forward, backward, "
                        "update; a function called: block; a loop; a named scope; one "
                        "repetition: block/7); a name picks the first group it ends")
    p.add_argument("--processes", type=number(PROCESSES), metavar="P",
                   help="play a real run in P JAX processes joined by jax.distributed on this "
                        "machine (the shard_map variant; --devices counts them all); default: "
                        f"the example's own (2 for example:multi_host), else 1; at most "
                        f"{PROCESSES.high:g}")


def phase_or_group(text: str) -> int | float | str:
    """``--phase``: a phase number (checked against its limit) or a group's name."""
    if text.strip().lstrip("+-").isdigit():
        return number(PHASE)(text)
    return one_line(text).strip()


def pick_phases(scene, ns) -> tuple[tuple[int, int] | None, int | None, str | None]:
    """``(phases of --group, the phase --phase names (0-based), a usage problem)``."""
    from jaxviz.views.devices.overview import build_overview, find_rows

    rows = build_overview(scene)
    tops = ", ".join(repr(r.name) for r in rows if r.depth <= 1)

    def pick(name: str, flag: str) -> tuple[int | None, str | None]:
        found = find_rows(rows, name)
        if not found:
            return None, (f"{flag} {name}: the {scene.variant} program has no group of that "
                          f"name; its groups include {tops}")
        return found[0], None

    span = None
    if ns.group is not None:
        k, problem = pick(ns.group, "--group")
        if problem:
            return None, None, problem
        assert k is not None
        span = (rows[k].first, rows[k].last)
    phase = None
    if isinstance(ns.phase, str):
        k, problem = pick(ns.phase, "--phase")
        if problem:
            return None, None, problem
        assert k is not None
        phase = rows[k].first - (span[0] if span else 0)
        if span and not span[0] <= rows[k].first <= span[1]:
            return None, None, (f"--phase {ns.phase} starts at phase {rows[k].first + 1}, "
                                f"outside --group {ns.group} (phases {span[0] + 1} to "
                                f"{span[1] + 1})")
    elif ns.phase is not None:
        phase = int(ns.phase) - 1
    return span, phase, None


def _defaults(ns) -> str | None:
    """Fill the variant and the process count from the example; a usage problem, or None."""
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    try:
        _, defaults = resolve_target(ns.target)
    except UserError:
        defaults = {}  # trace_one reports it
    if ns.processes is None:
        declared = defaults.get("processes") or 1
        ns.processes = declared if ns.variant in (None, "shard_map") else 1
    if ns.processes > 1:
        if ns.variant not in (None, "shard_map"):
            return (f"--processes {ns.processes} plays the shard_map variant of a "
                    f"multi-process run, not {ns.variant}")
        if ns.devices % ns.processes:
            return (f"--devices {ns.devices} cannot be shared evenly by {ns.processes} "
                    f"processes")
        ns.variant = "shard_map"
        ns.axis_name = ns.axis_name or defaults.get("axis_name") or "hosts"
    if ns.variant is None:
        declared = defaults.get("variants") or []
        ns.variant = next((v for v in PREFERRED if v in declared), None)
    return None


def _trace(ns, want: list[str]):
    """``(result, variant, exit code)``: traced by the engine, or by a multi-process run."""
    if ns.processes <= 1:
        return trace_one(ns, want)
    from jaxviz.cli.common import report
    from jaxviz.engine.multihost import multihost_trace
    from jaxviz.model.errors import UserError

    try:
        result = multihost_trace(ns.target, ns.processes, ns.devices // ns.processes,
                                 ns.axis_name, max(ns.timeout, 120.0))
    except UserError as exc:
        return None, None, report(exc.info, ns)
    return result, result.variants[0], 0


def run(ns) -> int:
    from jaxviz.ui.devices.formats import for_suffix
    from jaxviz.views.exports import exporters

    out = Path(ns.out)
    animation = for_suffix("animation", out.suffix)
    frame = for_suffix("frame", out.suffix)
    storyboard = out.suffix.lower() == ".json"
    if animation is None and frame is None and not storyboard:
        movies = ", ".join(e.extension for e in exporters("animation"))
        images = " or ".join(e.extension for e in exporters("frame"))
        return usage_error(f"--out {ns.out}: use a {movies} (animation), {images} file, "
                           f"or .json for the storyboard")
    width, height = ns.size  # checked by its type, like every number here
    if ns.phase is not None and frame is None:
        *most, last = [e.extension for e in exporters("frame")]
        return usage_error(f"--phase picks one image: use a {', '.join(most)} or {last} "
                           f"--out, not {ns.out}")
    from jaxviz.ui.devices.video import size_problem

    problem = size_problem(out.suffix, width, height)
    if problem:
        return usage_error(f"--size {ns.size[0]}x{ns.size[1]}: {problem}")
    if not out.parent.is_dir():
        return usage_error(f"--out {ns.out}: the folder {out.parent} does not exist")
    problem = _defaults(ns)
    if problem:
        return usage_error(problem)
    if out.suffix.lower() == ".json":
        if ns.group is not None:
            return usage_error(f"--group {ns.group} picks phases to draw; the storyboard "
                               f"({ns.out}) holds every phase with its group")
        return _write_storyboard(ns, out)
    result, variant, code = _trace(ns, ["jaxpr", "story"])
    if code:
        return code
    assert result is not None and variant is not None  # traced: code 0
    from jaxviz.ui.theme.qt_guard import ensure_app

    ensure_app(widgets=False)  # fonts and painting, offscreen without a display
    from jaxviz.ui.devices.export import Renderer
    from jaxviz.views.devices import build_scene

    scene = build_scene(result, variant.variant)
    if scene.error:
        print(f"jaxviz: error: cannot animate {variant.variant}: {scene.error}", file=sys.stderr)
        return EXIT_USAGE if not variant.outvars else EXIT_FAILED
    span, phase, problem = pick_phases(scene, ns)
    if problem:
        return usage_error(problem)
    renderer = Renderer(scene, width, height, ns.theme, ns.font_scale, phases=span)
    shown = scene.phases[span[0]:span[1] + 1] if span else scene.phases
    kinds = _kinds([p.kind for p in shown])
    try:
        if frame is not None and phase is not None:
            if not 0 <= phase < len(shown):
                return usage_error(f"--phase {ns.phase}: the {variant.variant} animation has "
                                   f"phases 1 to {len(shown)} ({kinds})")
            frame.write(renderer, out, phase=phase, t=1.0)
            chosen = shown[phase]
            print(f"wrote {out}: phase {phase + 1} of {len(shown)}, {chosen.kind}: "
                  f"{chosen.title}")
        elif animation is not None:
            frames = animation.write(renderer, out, frames_per_phase=ns.frames_per_phase,
                                     fps=ns.fps)
            what = {"pdf": "pages", "mp4": f"frames at {ns.fps:g} fps",
                    "webm": f"frames at {ns.fps:g} fps"}.get(animation.name, "frames")
            print(f"wrote {out}: {frames} {what}, {len(shown)} phases ({kinds})")
        elif frame is not None:
            paths = [frame.write(renderer, out.with_name(f"{out.stem}-{i + 1:02d}{out.suffix}"),
                                 phase=i, t=1.0)
                     for i in range(len(shown))]
            print(f"wrote {len(paths)} images, {paths[0]} ... {paths[-1]} ({kinds})")
    except OSError as exc:
        print(f"jaxviz: error: could not write {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return 0


def _kinds(kinds: list[str]) -> str:
    """``host, split, compute, all-gather ...``; a long program as counts per kind."""
    if len(kinds) <= 40:
        return ", ".join(kinds)
    from collections import Counter

    return ", ".join(f"{n} {k}" for k, n in Counter(kinds).most_common())


def _write_storyboard(ns, out: Path) -> int:
    """Trace the variant's storyboard and write ``to_plain(storyboard)`` as JSON.

    The storyboard carries the device view's phases (kind, title, caption,
    devices, groups, shapes), computed from it by the scene: one source for
    the captions on screen and in slides.
    """
    import json

    from jaxviz.model import to_plain
    from jaxviz.views.devices import build_scene

    result, variant, code = _trace(ns, ["jaxpr", "story"])
    if code:
        return code
    assert result is not None and variant is not None  # traced: code 0
    story = variant.storyboard
    if story is None:
        print(f"jaxviz: error: {variant.variant} has no storyboard", file=sys.stderr)
        return EXIT_FAILED
    if not variant.outvars:
        from jaxviz.views.devices.build import nothing_to_lay_out

        return usage_error(f"cannot write the storyboard of {variant.variant}: "
                           f"{nothing_to_lay_out(result.function, variant.variant)}")
    story.phases = [p.to_story() for p in build_scene(result, variant.variant).phases]
    try:
        out.write_text(json.dumps(to_plain(story), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"jaxviz: error: could not write {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    kinds = _kinds([s.collective.kind if s.collective else s.kind for s in story.steps])
    def count(n: int, word: str) -> str:
        return f"{n} {word}" + ("" if n == 1 else "s")

    print(f"wrote {out}: the {story.variant} storyboard, {count(len(story.arrays), 'array')} "
          f"on {count(len(story.devices), 'device')}, {count(len(story.steps), 'step')} "
          f"({kinds}), {count(len(story.phases), 'phase')}")
    return 0
