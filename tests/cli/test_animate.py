"""`jaxviz animate`: a GIF of the device view, written headless from the real layout."""

from __future__ import annotations

import re

import pytest
from PIL import Image, ImageSequence

from jaxviz.views.palette import DEVICE_COLOURS, rgb
from tests.helpers.cli import run_animate

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow


def _has(frame: Image.Image, colour: str, tolerance: int = 10) -> bool:
    target = rgb(colour)
    for _, pixel in frame.convert("RGB").getcolors(maxcolors=1 << 20):
        if all(abs(a - b) <= tolerance for a, b in zip(pixel, target)):
            return True
    return False


def test_convolve_pmap_gif_shows_eight_devices_and_every_phase(tmp_path):
    out = run_animate("example:convolve", "--variant", "pmap", "--devices", "8", "--out",
               "convolve.gif", "--size", "960x540", "--frames-per-phase", "3", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "5 phases (host, split, transfer, compute, assemble)" in out.stdout
    with Image.open(tmp_path / "convolve.gif") as gif:
        assert gif.size == (960, 540) and gif.is_animated
        frames = [f.copy() for f in ImageSequence.Iterator(gif)]
        durations = []
        for k in range(gif.n_frames):
            gif.seek(k)
            durations.append(gif.info["duration"])
    assert len(frames) == 5 * 3
    # The last frame of each phase is held; the five held frames all differ.
    held = [frames[k] for k in range(2, 15, 3)]
    assert durations[2::3] == [max(durations)] * 5 and min(durations) < max(durations)
    assert len({f.convert("RGB").tobytes() for f in held}) == 5
    # All eight device colours are on screen in every phase (boxes, tiles, legend).
    for frame in held:
        assert all(_has(frame, c) for c in DEVICE_COLOURS)


def test_png_per_phase_and_bad_options(tmp_path):
    out = run_animate("example:normalize", "--devices", "8", "--out", "n.png", "--size", "640x360",
               "--theme", "dark", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.glob("n-*.png"))
    # pmap chosen: host, split, transfer, the psum's all-reduce, the division, the result.
    assert names == [f"n-{k:02d}.png" for k in range(1, 7)]
    one = run_animate("example:normalize", "--devices", "8", "--out", "psum.png", "--phase", "4",
               "--size", "640x360", "--theme", "dark", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert "phase 4 of 6, collective" in one.stdout
    with Image.open(tmp_path / "psum.png") as a, Image.open(tmp_path / "n-04.png") as b:
        assert a.convert("RGB").tobytes() == b.convert("RGB").tobytes()  # that phase alone
    bad = run_animate("example:normalize", "--out", "p.png", "--phase", "9", cwd=tmp_path)
    assert bad.returncode == 2 and "phases 1 to 6" in bad.stderr
    bad = run_animate("example:normalize", "--out", "p.gif", "--phase", "2", cwd=tmp_path)
    assert bad.returncode == 2 and ".png, .svg or .pdf --out" in bad.stderr
    bad = run_animate("example:convolve", "--out", "x.gif", "--size", "huge", cwd=tmp_path)
    assert bad.returncode == 2 and "WIDTHxHEIGHT" in bad.stderr
    bad = run_animate("example:convolve", "--out", "x.avi", cwd=tmp_path)
    assert bad.returncode == 2 and ".mp4" in bad.stderr and ".gif" in bad.stderr


def test_group_and_phase_take_a_group_of_the_overview(tmp_path):
    # normalize under pmap: host, split, transfer, then the program's two steps (the
    # psum's all-reduce, the division), then the result
    one = run_animate("example:normalize", "--devices", "8", "--out", "p.png",
                      "--phase", "program", "--size", "640x360", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert "phase 4 of 6, collective" in one.stdout
    some = run_animate("example:normalize", "--devices", "8", "--out", "g.png",
                       "--group", "program", "--size", "640x360", cwd=tmp_path)
    assert some.returncode == 0, some.stderr
    assert sorted(p.name for p in tmp_path.glob("g-*.png")) == ["g-01.png", "g-02.png"]
    with Image.open(tmp_path / "p.png") as a, Image.open(tmp_path / "g-01.png") as b:
        assert a.convert("RGB").tobytes() == b.convert("RGB").tobytes()
    bad = run_animate("example:normalize", "--out", "x.png", "--group", "nosuch",
                      cwd=tmp_path)
    assert bad.returncode == 2 and "no group of that name" in bad.stderr
    assert "'program'" in bad.stderr


@pytest.mark.parametrize("variant", ["vmap"])
def test_vmap_animation_has_the_loop_contrast(tmp_path, variant):
    out = run_animate("example:convolve", "--variant", variant, "--out", "v.gif", "--size",
               "640x360", "--frames-per-phase", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "(host, loop, vectorized, result)" in out.stdout


def test_json_writes_the_storyboard(tmp_path):
    import json

    from jaxviz.model import Storyboard, from_plain

    out = run_animate("example:tensor_parallel", "--variant", "sharded", "--specs",
               "P('data','model'), P(None,'model')", "--out", "story.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "steps (all-gather, compute), 6 phases" in out.stdout
    story = from_plain(json.loads((tmp_path / "story.json").read_text()))
    assert isinstance(story, Storyboard) and story.variant == "sharded"
    x, w = story.inputs
    assert [t.devices for t in x.tiles] == [[0], [1], [2], [3], [4], [5], [6], [7]]
    assert [t.devices for t in w.tiles] == [[0, 2, 4, 6], [1, 3, 5, 7]]
    gather = story.steps[0].collective
    assert gather.kind == "all-gather" and gather.groups == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert story.steps[1].output_shapes == ["f32[4,16]"]
    # The device view's phases, for slide tools: the gather before the dot, with its groups.
    kinds = [p.kind for p in story.phases]
    assert kinds == ["host", "split", "transfer", "collective", "compute", "assemble"]
    gather_phase = story.phases[3]
    assert gather_phase.step == 0 and gather_phase.groups == gather.groups
    assert gather_phase.input_shapes == ["f32[4,32]"]
    assert gather_phase.output_shapes == ["f32[4,64]"]
    assert gather_phase.caption.startswith("Inserted by XLA's SPMD partitioner: ")
    assert story.phases[1].arrays == ["x", "w"] and story.phases[4].devices == list(range(8))


def test_a_long_storyboard_is_summed_up_by_kind_in_one_line(tmp_path):
    """A program of many steps (a train step has hundreds): the line says how many of each
    kind the storyboard it wrote holds, not each step in turn."""
    import json
    from collections import Counter

    from jaxviz.model import from_plain

    (tmp_path / "many.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n\ndef many(x):\n"
        "    for _ in range(30):\n        x = jnp.sin(jax.lax.psum(x, 'i'))\n    return x\n",
        encoding="utf-8")
    out = run_animate("many.py:many", "--variant", "pmap", "--args", "f32[4]", "--out",
                      "story.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    story = from_plain(json.loads((tmp_path / "story.json").read_text()))
    kinds = Counter(s.collective.kind if s.collective else s.kind for s in story.steps)
    assert len(story.steps) > 40 and kinds["all-reduce"] == 30
    line = out.stdout.strip().splitlines()[-1]
    listed = re.search(r"\d+ steps \(([^)]*)\)", line)
    assert listed, line
    said = {kind: int(n) for n, kind in (part.split(" ") for part in listed.group(1).split(", "))}
    assert said == dict(kinds), line
    assert len(line) < 300


@pytest.mark.slow
def test_multi_host_animates_two_processes_from_a_real_run(tmp_path):
    import json

    from jaxviz.model import from_plain

    out = run_animate("example:multi_host", "--out", "mh.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    story = from_plain(json.loads((tmp_path / "mh.json").read_text()))
    assert story.variant == "shard_map" and sorted(set(story.processes)) == [0, 1]
    assert len(story.devices) == 8 and story.devices[4] >= 1024  # process 1's own device ids
    [gather] = story.collectives
    assert gather.collective.groups == [story.devices]
    out = run_animate("example:multi_host", "--out", "mh.png", "--size", "960x540", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(list(tmp_path.glob("mh-*.png"))) == len(story.phases)
    bad = run_animate("example:multi_host", "--variant", "pmap", "--processes", "2",
                      "--out", "x.png", cwd=tmp_path)
    assert bad.returncode == 2 and "shard_map" in bad.stderr
    bad = run_animate("example:multi_host", "--devices", "7", "--out", "x.png", cwd=tmp_path)
    assert bad.returncode == 2 and "evenly" in bad.stderr
