"""Lecture files and the steps built from a function (no Qt, no JAX)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxviz.model.gallery import list_examples
from jaxviz.model.resources import resources_dir
from jaxviz.views.present.lecture import (
    LectureError,
    load_lecture,
    parse_lecture,
    steps_for_function,
)

SHIPPED = resources_dir() / "lectures" / "parallel_jax.toml"


def test_a_small_lecture_parses_with_its_steps():
    lecture = parse_lecture('title = "T"\n\n[[step]]\nview = "title"\n\n[[step]]\n'
                            'view = "device"\nexample = "normalize"\nvariant = "pmap"\n'
                            'phase = 4\nnotes = "say it"\n[step.options]\nbatch = 8\n')
    assert lecture.title == "T" and lecture.devices == 8
    title, device = lecture.steps
    assert title.view == "title" and title.line == 3
    assert (device.view, device.target, device.variant, device.phase, device.notes,
            device.options, device.line) == ("device", "example:normalize", "pmap", 4,
                                             "say it", {"batch": 8}, 6)


@pytest.mark.parametrize("text,line,words", [
    ('title = "T"\n[[step]]\nview = "slides"\nexample = "convolve"\n', 3, "view must be one of"),
    ('title = "T"\n[[step]]\nview = "jaxpr"\n', 2, "needs example"),
    ('title = "T"\n[[step]]\nview = "jaxpr"\nexample = "convolve"\nvariant = "pmapp"\n', 5,
     "variant must be one of"),
    ('title = "T"\n[[step]]\nview = "jaxpr"\nexample = "convolve"\nphase = 2\n', 5,
     "phase is a device step's"),
    ('title = "T"\n[[step]]\nview = "timing"\nexample = "convolve"\n', 2, "needs plot"),
    ('title = "T"\n[[step]]\nview = "timing"\nexample = "convolve"\nplot = "timeline"\n'
     'recording = "nope.json"\n', 6, "no recording"),
    ('title = "T"\n[[step]]\nview = "source"\nexample = "convolve"\ncolour = 1\n', 5,
     "unknown key 'colour'"),
    ('title = "T"\n[[step]]\nview = "source"\nexample = "convolve"\n[step.options]\n'
     'bacth = 8\n', 6, "unknown option 'bacth'"),
    ('title = "T"\n[[step]]\nview = "program"\nexample = "convolve"\nvariant = "vmap"\n', 5,
     "a program step shows"),
])
def test_a_wrong_step_is_named_by_file_line_and_what_is_wrong(text, line, words):
    with pytest.raises(LectureError) as caught:
        parse_lecture(text, "talk.toml")
    message = str(caught.value)
    assert message.startswith(f"talk.toml:{line}: ") and words in message


def test_a_file_that_is_not_toml_or_has_no_title_or_steps_is_refused():
    with pytest.raises(LectureError, match="not valid TOML"):
        parse_lecture("title = ", "x.toml")
    with pytest.raises(LectureError, match="needs a title"):
        parse_lecture('[[step]]\nview = "title"\n', "x.toml")
    with pytest.raises(LectureError, match="has no"):
        parse_lecture('title = "t"\n', "x.toml")


def test_a_file_target_is_found_beside_the_lecture(tmp_path: Path):
    (tmp_path / "model.py").write_text("def f(x):\n    return x\n")
    talk = tmp_path / "talk.toml"
    talk.write_text('title = "t"\n[[step]]\nview = "source"\ntarget = "model.py:f"\n'
                    '[step.options]\nargs = "f32[3]"\n')
    step = load_lecture(talk).steps[0]
    assert step.target == f"{(tmp_path / 'model.py').resolve()}:f"
    talk.write_text('title = "t"\n[[step]]\nview = "source"\ntarget = "gone.py:f"\n')
    with pytest.raises(LectureError, match="talk.toml:4: no file"):
        load_lecture(talk)


@pytest.mark.parametrize("example", list_examples(), ids=lambda e: e.name)
def test_the_steps_of_every_gallery_example_come_in_lecture_order(example):
    steps = steps_for_function(f"example:{example.name}", example.variants)
    views = [s.view for s in steps]
    order = ["source", "jaxpr", "diff", "program", "device", "timing", "summary"]
    assert views[0] == "source" and views[-1] == "summary"
    assert [order.index(v) for v in views] == sorted(order.index(v) for v in views)
    assert views.count("timing") == 3
    parallel = [v for v in ("pmap", "sharded", "shard_map") if v in example.variants]
    assert [s.variant for s in steps if s.view == "program"] == parallel
    has_diff = "plain" in example.variants and "vmap" in example.variants
    assert ("diff" in views) == has_diff
    if has_diff:
        assert next(s for s in steps if s.view == "diff").variants == ["plain", "vmap"]
    device = [s.variant for s in steps if s.view == "device"]
    assert device == ([parallel[0]] if parallel else
                      ["vmap"] if "vmap" in example.variants else [])
    first = next(s for s in steps if s.view == "jaxpr").variant
    assert first == ("plain" if "plain" in example.variants else example.variants[0])


def test_the_shipped_lecture_follows_the_teaching_material_in_order():
    lecture = load_lecture(SHIPPED)
    assert len(lecture.steps) >= 20
    order = [t.split(":")[1] for t in lecture.targets()]
    seeds = ["async_dispatch", "convolve", "jit_composition", "batched_matmul", "normalize",
             "tensor_parallel", "data_parallel", "multi_host"]
    assert [order.index(s) for s in seeds] == sorted(order.index(s) for s in seeds)
    views = {s.view for s in lecture.steps}
    assert {"title", "source", "jaxpr", "diff", "program", "device", "timing", "stepping",
            "summary"} <= views
    assert all(Path(s.recording).is_file() for s in lecture.steps if s.view == "timing")
    assert sum(bool(s.notes) for s in lecture.steps) >= 20
