"""The trace settings table is the one source of every setting's rules.

The record's defaults, the command line's flags and help, the request builders
(window, command line, lecture deck) and the lecture format are each taken as
they are exposed (a real parser, a real request) and compared with the table.
"""

from __future__ import annotations

import argparse
import dataclasses
import textwrap

import pytest

from jaxviz.cli import make_parser
from jaxviz.cli.options import build_request
from jaxviz.model import TraceSettings
from jaxviz.model.records import Target
from jaxviz.model.settings_table import (
    LECTURE_OPTIONS,
    SETTINGS,
    TEXT_SETTINGS,
    TRACE_SETTINGS,
    settings_values,
)
from jaxviz.views.present.deck import trace_request
from jaxviz.views.present.lecture import LectureError, parse_lecture
from jaxviz.views.window.window_state import find_field_errors, settings_from

SUBCOMMANDS_WITH_TARGET = ("jaxpr", "run", "layout", "step", "animate", "time", "diff")


def test_the_record_holds_exactly_the_table_and_its_defaults():
    fields = {f.name: f for f in dataclasses.fields(TraceSettings)}
    assert set(fields) == set(SETTINGS)
    assert fields["args"].default is dataclasses.MISSING  # arguments are always given
    for setting in TRACE_SETTINGS:
        if setting.name != "args":
            assert fields[setting.name].default == setting.default, setting.name


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = make_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("command", SUBCOMMANDS_WITH_TARGET)
def test_every_subcommand_takes_every_setting_with_the_tables_flag_and_help(command):
    parser = _subparser(command)
    by_flag = {o: a for a in parser._actions for o in a.option_strings}
    for setting in TRACE_SETTINGS:
        action = by_flag[setting.flag]
        assert action.dest == setting.name
        assert action.help == setting.help
        if setting.kind != "flag":
            assert action.metavar == setting.metavar
    help_text = " ".join(parser.format_help().split())
    for setting in TRACE_SETTINGS:
        assert " ".join(setting.help.split()) in help_text, setting.name


def test_the_command_line_refuses_what_the_tables_kind_refuses():
    parser = _subparser("jaxpr")
    for argv in (["--axis-name", "my axis"], ["--batch", "0"], ["--mesh", "  "]):
        with pytest.raises(SystemExit):
            parser.parse_args(["f.py:f", *argv])


@pytest.fixture
def target_file(tmp_path):
    path = tmp_path / "f.py"
    path.write_text(textwrap.dedent("""
        def f(x):
            return x * 2
    """))
    return path


def test_a_request_from_no_flags_holds_the_tables_defaults(target_file):
    ns = _subparser("jaxpr").parse_args([f"{target_file}:f", "--args", "f32[8]"])
    req, _defaults = build_request(ns, want=["jaxpr"])
    for setting in TRACE_SETTINGS:
        if setting.name != "args":
            assert getattr(req, setting.name) == setting.default, setting.name


def test_the_window_and_the_deck_build_the_same_settings_as_the_command_line(target_file):
    given = {"args": "f32[8]", "axis_name": "", "mesh": None, "check_vma": None}
    ns = _subparser("jaxpr").parse_args([f"{target_file}:f", "--args", "f32[8]"])
    cli = build_request(ns, want=["jaxpr"])[0].settings()
    window = settings_from(given).settings()
    deck = trace_request(Target("", "f.py", "f"), {}, given, ["plain"], ["jaxpr"]).settings()
    assert cli == window == deck == settings_values(given)


def test_what_is_given_wins_over_the_default():
    chosen = {"args": "x", "axis_name": "batch", "check_vma": False, "batch": 4}
    settings = settings_from(chosen)
    assert (settings.axis_name, settings.check_vma, settings.batch) == ("batch", False, 4)


@pytest.mark.parametrize("name", TEXT_SETTINGS)
def test_the_field_checks_read_every_text_setting(name):
    # text that no setting's parser accepts is refused in each text field the table has
    texts = {"args": "f32[5]", name: "(("}
    assert set(find_field_errors(texts, 8)) == {name}


def test_a_lecture_step_may_set_exactly_the_tables_lecture_options():
    def lecture(option: str) -> str:
        return (f'title = "t"\n[[step]]\nview = "jaxpr"\nexample = "convolve"\n'
                f'[step.options]\n{option} = "x"\n')

    for name in LECTURE_OPTIONS:
        try:  # "x" may be a wrong value for the option: only the key is asked about here
            parse_lecture(lecture(name))
        except LectureError as exc:
            assert "unknown option" not in str(exc), name
    for name in set(SETTINGS) - set(LECTURE_OPTIONS):
        with pytest.raises(LectureError, match=f"unknown option '{name}'"):
            parse_lecture(lecture(name))


def test_the_device_count_default_is_one_value_everywhere():
    from jaxviz.model.limits import DEFAULT_DEVICES
    from jaxviz.views.window.window_state import WindowState

    ns = _subparser("jaxpr").parse_args(["f.py:f"])
    lecture = parse_lecture('title = "t"\n[[step]]\nview = "source"\nexample = "convolve"\n')
    assert ns.devices == WindowState().devices == lecture.devices == DEFAULT_DEVICES
    assert f"(default {DEFAULT_DEVICES}," in " ".join(_subparser("jaxpr").format_help().split())


def test_the_timeout_default_is_one_value_everywhere():
    import inspect

    from jaxviz.engine.client import EngineClient
    from jaxviz.model.limits import DEFAULT_TIMEOUT

    ns = _subparser("jaxpr").parse_args(["f.py:f"])
    assert ns.timeout == DEFAULT_TIMEOUT
    assert inspect.signature(EngineClient).parameters["timeout"].default == DEFAULT_TIMEOUT
