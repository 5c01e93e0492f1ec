"""One record of timing options: the request, the timing view's controls and the
defaults of ``jaxviz time`` all hold TimingOptions."""

from __future__ import annotations

import argparse
import dataclasses

from jaxviz.cli import make_parser
from jaxviz.model.records import Target, TraceRequest
from jaxviz.model.timing import TIMING_DEFAULTS, TimingOptions, TimingRequest
from jaxviz.views.timing.options import RunOptions, build_request, options_of


def _defaults(cls) -> dict[str, object]:
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def test_the_request_and_the_controls_hold_the_options_and_their_defaults():
    options = _defaults(TimingOptions)
    for cls in (TimingRequest, RunOptions):
        assert issubclass(cls, TimingOptions)
        theirs = _defaults(cls)
        assert {k: theirs[k] for k in options} == options, cls.__name__


def test_jaxviz_time_takes_its_defaults_from_the_record():
    parser = make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    ns = sub.choices["time"].parse_args(["f.py:f", "--out", "t.json"])
    for name in ("runs", "warmup", "pipeline", "async_dispatch", "per_device"):
        assert getattr(ns, name) == getattr(TIMING_DEFAULTS, name), name
    help_text = " ".join(sub.choices["time"].format_help().split())
    assert f"(default {TIMING_DEFAULTS.runs})" in help_text
    assert f"(default {TIMING_DEFAULTS.pipeline}; 0: none)" in help_text


def test_the_controls_defaults_make_a_request_with_the_records_defaults():
    trace = TraceRequest(target=Target("def f(x): return x", "f.py", "f"), args="f32[3]")
    request = build_request(trace, RunOptions(), {})
    assert {k: getattr(request, k) for k in _defaults(TimingOptions)} == \
        dataclasses.asdict(TIMING_DEFAULTS)
    assert options_of(request) == RunOptions(sweep="", sweep_args="")
