"""`jaxviz animate`: a GIF of the device view, written headless from the real layout."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PIL import Image, ImageSequence

from jaxviz.model.palette import DEVICE_COLOURS, rgb


def _run(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.pop("QT_QPA_PLATFORM", None)  # the command must choose offscreen itself
    return subprocess.run([sys.executable, "-m", "jaxviz", "animate", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _has(frame: Image.Image, colour: str, tolerance: int = 10) -> bool:
    target = rgb(colour)
    for _, pixel in frame.convert("RGB").getcolors(maxcolors=1 << 20):
        if all(abs(a - b) <= tolerance for a, b in zip(pixel, target)):
            return True
    return False


def test_convolve_pmap_gif_shows_eight_devices_and_every_phase(tmp_path):
    out = _run("example:convolve", "--variant", "pmap", "--devices", "8", "--out",
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
    out = _run("example:normalize", "--devices", "8", "--out", "n.png", "--size", "640x360",
               "--theme", "dark", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in tmp_path.glob("n-*.png"))
    assert names == [f"n-{k:02d}.png" for k in range(1, 8)]  # pmap chosen; psum phase among
    bad = _run("example:convolve", "--out", "x.gif", "--size", "huge", cwd=tmp_path)
    assert bad.returncode == 2 and "WIDTHxHEIGHT" in bad.stderr
    bad = _run("example:convolve", "--out", "x.avi", cwd=tmp_path)
    assert bad.returncode == 2 and ".mp4" in bad.stderr and ".gif" in bad.stderr


@pytest.mark.parametrize("variant", ["vmap"])
def test_vmap_animation_has_the_loop_contrast(tmp_path, variant):
    out = _run("example:convolve", "--variant", variant, "--out", "v.gif", "--size",
               "640x360", "--frames-per-phase", "1", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "(host, loop, vectorized, result)" in out.stdout


def test_json_writes_the_storyboard(tmp_path):
    import json

    from jaxviz.model import Storyboard, from_plain

    out = _run("example:tensor_parallel", "--variant", "sharded", "--specs",
               "P('data','model'), P(None,'model')", "--out", "story.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "steps (all-gather, compute)" in out.stdout
    story = from_plain(json.loads((tmp_path / "story.json").read_text()))
    assert isinstance(story, Storyboard) and story.variant == "sharded"
    x, w = story.inputs
    assert [t.devices for t in x.tiles] == [[0], [1], [2], [3], [4], [5], [6], [7]]
    assert [t.devices for t in w.tiles] == [[0, 2, 4, 6], [1, 3, 5, 7]]
    gather = story.steps[0].collective
    assert gather.kind == "all-gather" and gather.groups == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert story.steps[1].output_shapes == ["f32[4,16]"]
