"""``jaxviz animate``: the device-view animation of a variant, as video, GIF, PDF or images.

Traces the target (through the engine, like ``jaxviz layout``), builds the
device view's scene from the real layout JAX chose, and renders every phase
offscreen: no display is needed (``QT_QPA_PLATFORM=offscreen`` is set when
there is none). The formats come from the export registry
(:mod:`jaxviz.ui.exporters`), chosen by the suffix of ``--out``: a video
(``.mp4``, ``.webm``), an animated image (``.gif``, ``.apng``), a vector PDF
with one page per phase, or one image per phase (``.png``, ``.svg``).
``--out FILE.json`` writes the variant's storyboard instead
(what every device holds and runs, read from the compiled program) as plain
JSON, for slide tools and tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

from jaxviz.cli.common import trace_one
from jaxviz.cli.options import EXIT_FAILED, add_target_options, usage_error

#: Variants that make the most of the device view, in preference order.
PREFERRED = ("pmap", "sharded", "shard_map", "vmap")


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
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output file: .mp4 or .webm (video), .gif or .apng (animated image), "
                        ".pdf (one vector page per phase), .png or .svg (one image per "
                        "phase), .json for the storyboard (tiles with their holders, "
                        "every step with its groups and per-device shapes)")
    p.add_argument("--size", default="1280x720", metavar="WxH",
                   help="picture size in pixels (default 1280x720)")
    p.add_argument("--theme", choices=("light", "dark"), default="light",
                   help="colour theme (default light; dark suits many projectors)")
    p.add_argument("--frames-per-phase", type=int, default=6, metavar="N",
                   help="GIF/APNG frames per phase, the last held longer (default 6; 1 = "
                        "one still per phase)")
    p.add_argument("--fps", type=float, default=30.0, metavar="N",
                   help="video frames per second (MP4, WebM; default 30): each phase moves "
                        "as long as in the window, then holds its result for 1.5 s")
    p.add_argument("--font-scale", type=float, default=1.0, metavar="X",
                   help="multiply the text size (default 1.0)")


def _default_variant(ns) -> None:
    if getattr(ns, "variant", None) is not None:
        return
    from jaxviz.model.errors import UserError
    from jaxviz.model.sources import resolve_target

    try:
        _, defaults = resolve_target(ns.target)
    except UserError:
        return  # trace_one reports it
    declared = defaults.get("variants") or []
    ns.variant = next((v for v in PREFERRED if v in declared), None)


def run(ns) -> int:
    from jaxviz.model.exports import exporters
    from jaxviz.model.sizes import ANIMATION_SIZES, parse_size
    from jaxviz.ui.exporters import for_suffix

    out = Path(ns.out)
    animation = for_suffix("animation", out.suffix)
    frame = for_suffix("frame", out.suffix)
    storyboard = out.suffix.lower() == ".json"
    if animation is None and frame is None and not storyboard:
        movies = ", ".join(e.extension for e in exporters("animation"))
        images = " or ".join(e.extension for e in exporters("frame"))
        return usage_error(f"--out {ns.out}: use a {movies} (animation), {images} file, "
                           f"or .json for the storyboard")
    try:
        width, height = parse_size(ns.size, ANIMATION_SIZES, "--size")
    except ValueError as exc:
        return usage_error(str(exc))
    if ns.frames_per_phase < 1:
        return usage_error(f"--frames-per-phase must be at least 1, not {ns.frames_per_phase}")
    if not 1 <= ns.fps <= 120:
        return usage_error(f"--fps must be between 1 and 120, not {ns.fps:g}")
    from jaxviz.ui.exporters.video import size_problem

    problem = size_problem(out.suffix, width, height)
    if problem:
        return usage_error(f"--size {ns.size}: {problem}")
    if not out.parent.is_dir():
        return usage_error(f"--out {ns.out}: the folder {out.parent} does not exist")
    _default_variant(ns)
    if out.suffix.lower() == ".json":
        return _write_storyboard(ns, out)
    result, variant, code = trace_one(ns, ["jaxpr", "hlo", "layout"])
    if code:
        return code
    assert result is not None and variant is not None  # traced: code 0
    from jaxviz.ui.theme.qt_guard import ensure_app

    ensure_app(widgets=False)  # fonts and painting, offscreen without a display
    from jaxviz.scene import build_scene
    from jaxviz.ui.device_view.export import Renderer

    scene = build_scene(result, variant.variant)
    if scene.error:
        print(f"jaxviz: error: cannot animate {variant.variant}: {scene.error}", file=sys.stderr)
        return EXIT_FAILED
    renderer = Renderer(scene, width, height, ns.theme, ns.font_scale)
    kinds = ", ".join(p.kind for p in scene.phases)
    try:
        if animation is not None:
            frames = animation.write(renderer, out, frames_per_phase=ns.frames_per_phase,
                                     fps=ns.fps)
            what = {"pdf": "pages", "mp4": f"frames at {ns.fps:g} fps",
                    "webm": f"frames at {ns.fps:g} fps"}.get(animation.name, "frames")
            print(f"wrote {out}: {frames} {what}, {len(scene.phases)} phases ({kinds})")
        elif frame is not None:
            paths = [frame.write(renderer, out.with_name(f"{out.stem}-{i + 1:02d}{out.suffix}"),
                                 phase=i, t=1.0)
                     for i in range(len(scene.phases))]
            print(f"wrote {len(paths)} images, {paths[0]} ... {paths[-1]} ({kinds})")
    except OSError as exc:
        print(f"jaxviz: error: could not write {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return 0


def _write_storyboard(ns, out: Path) -> int:
    """Trace the variant's storyboard and write ``to_plain(storyboard)`` as JSON."""
    import json

    from jaxviz.model import to_plain

    _, variant, code = trace_one(ns, ["jaxpr", "story"])
    if code:
        return code
    assert variant is not None  # traced: code 0
    story = variant.storyboard
    if story is None:
        print(f"jaxviz: error: {variant.variant} has no storyboard", file=sys.stderr)
        return EXIT_FAILED
    try:
        out.write_text(json.dumps(to_plain(story), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"jaxviz: error: could not write {out}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    kinds = ", ".join(s.collective.kind if s.collective else s.kind for s in story.steps)
    print(f"wrote {out}: the {story.variant} storyboard, {len(story.arrays)} arrays on "
          f"{len(story.devices)} devices, {len(story.steps)} steps ({kinds})")
    return 0
