"""Every option of every subcommand, given careless and hostile values: exit 2, one message.

The cases are generated from the parser itself (:func:`jaxviz.cli.make_parser`):
each subcommand's options that take a value, and its target, get each value
of :data:`VALUES` in turn, the rest of the command line staying a valid,
quick one (:data:`BASELINES`). An option added later is swept without
touching this file; a new subcommand needs its baseline here (a test says so).

Expected for every case: exit code 2 with one ``jaxviz: error:`` message,
or exit code 0 where the value is legitimately valid (:func:`expected_code`
says which and why); never a traceback, never a hang. The cases run in one
process that keeps one engine (:mod:`tests.helpers.sweep_runner`), so the few
that need JAX do not each start one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxviz.cli import SUBCOMMANDS, make_parser
from tests.helpers.hostile_values import VALUES

# Not in the fast tier: the jaxviz command in subprocesses, each with an engine.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


#: A valid, quick command line per subcommand (the swept option's value is replaced).
_TRACE = ["good.py:f", "--args", "f32[8]", "--variant", "vmap"]
BASELINES: dict[str, list[str]] = {
    "animate": [*_TRACE, "--out", "story.json"],
    "collectives": _TRACE,
    "cost": [*_TRACE, "--chip", "tpu-v5e"],
    "diff": ["good.py:f", "--args", "f32[8]"],
    "devices": [],
    "examples": [],
    "jaxpr": _TRACE,
    "layout": _TRACE,
    "multihost": [],
    "present": ["talk.toml", "--export", "out.pdf"],
    "run": _TRACE,
    "step": _TRACE,
    "time": ["good.py:f", "--args", "f32[8]", "--variants", "vmap", "--runs", "1",
             "--warmup", "0", "--pipeline", "0", "--no-plots", "--out", "out"],
}

GOOD = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x) * 2\n"
TALK = 'title = "t"\n\n[[step]]\nview = "title"\n'  # a lecture that needs no trace
TARGET = "TARGET"  # the positional target, swept like an option


def expected_code(command: str, option: str, value: str) -> int:
    """0 where the value is valid input, else 2. The valid ones, and why:

    * ``--args``: Python expressions are arguments: ``0``, ``-1`` and ``1e309``
      (the float inf) are scalars the function takes (``nan``, ``inf`` are
      names the file does not define; ``99999999999`` does not fit int32);
    * ``--in-axes``: ``0`` and ``-1`` (the last axis, as ``vmap`` counts) are
      batch axes of an ``f32[8]`` argument;
    * ``--axis-name``: ``nan``, ``inf``, ``ünïcødé`` are Python identifiers,
      so axis names (except for ``multihost``, whose example's collective
      uses the axis ``hosts``: another name is a mistake it reports);
    * ``time --out``: any one-line name is a folder, created in the current one;
    * ``time --warmup 0``, ``--pipeline 0``: no warm-up calls, no pipeline;
    * ``step --seed 0``: the default seed, given;
    * ``--out-axes``: ``0`` and ``-1`` are axes of the vmap variant's batched output;
    * ``--devices-order 0``: device 0 alone is an order (a mesh of one device may use
      it; the vmap baseline uses no mesh);
    * ``present --export``: any one-line name that is not a .pdf is a folder for PNGs.
    """
    if option == "--args" and value in ("0", "-1", "1e309"):
        return 0
    if option in ("--in-axes", "--out-axes") and value in ("0", "-1"):
        return 0
    if option == "--devices-order" and value == "0":
        return 0
    if option == "--axis-name" and value in ("nan", "inf", "ünïcødé") and command != "multihost":
        return 0
    if command == "time" and option == "--out" and value and value.isprintable():
        return 0
    if command == "time" and option in ("--warmup", "--pipeline") and value == "0":
        return 0
    if command == "step" and option == "--seed" and value == "0":
        return 0
    if command == "present" and option == "--export" and value and value.isprintable():
        return 0
    return 2


def swept_options(parser: argparse.ArgumentParser) -> list[str]:
    """The options of a subcommand that take a value (flags and --help have none)."""
    options = []
    for action in parser._actions:
        if action.option_strings and action.nargs != 0:
            options.append(max(action.option_strings, key=len))
        elif not action.option_strings and action.dest == "target":
            options.append(TARGET)
    return options


def subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = make_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def command_line(command: str, option: str, value: str) -> list[str]:
    """The baseline with ``option`` given ``value`` instead of what the baseline gives it."""
    base = list(BASELINES[command])
    takes_value = {o for o in swept_options(subparsers()[command]) if o != TARGET}
    if option == TARGET:
        if base and not base[0].startswith("-"):
            base = base[1:]
        return [command, value, *base]
    if option in base:
        at = base.index(option)
        del base[at:at + (2 if option in takes_value else 1)]
    return [command, *base, f"{option}={value}"]


def cases() -> list[tuple[str, str, str]]:
    return [(command, option, value)
            for command, parser in sorted(subparsers().items())
            for option in swept_options(parser) for value in VALUES]


def test_every_subcommand_has_a_baseline_to_sweep_around():
    assert set(BASELINES) == set(SUBCOMMANDS), (
        "a new subcommand needs a valid, quick command line in BASELINES to sweep its options")
    for command, parser in subparsers().items():
        base = BASELINES[command]
        assert not any(o not in {a for act in parser._actions for a in act.option_strings}
                       for o in base if o.startswith("--")), command


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[tuple[str, ...], dict]:
    """Every case run once, in one process (the sweep runner), from a folder of files."""
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "good.py").write_text(GOOD)
    (folder / "talk.toml").write_text(TALK)
    (folder / "x").write_text("this file must survive `; rm -rf x`\n")
    lines = [command_line(*case) for case in cases()]
    (folder / "cases.json").write_text(json.dumps(lines))
    pwned = Path("/tmp/pwned")
    existed = pwned.exists()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run([sys.executable, "-m", "tests.helpers.sweep_runner", "cases.json",
                           "results.json"], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=1800)
    found = json.loads((folder / "results.json").read_text())
    assert proc.returncode == 0, f"{found[-1]['argv']} hung\n{proc.stderr[-2000:]}"
    assert (folder / "x").exists(), "a value was run by a shell"
    assert existed or not pwned.exists(), "a value was run by a shell"
    return {tuple(r["argv"]): r for r in found}


@pytest.mark.slow
@pytest.mark.parametrize("command, option, value", cases())
def test_a_bad_value_is_one_message_with_exit_2(results, command, option, value):
    result = results[tuple(command_line(command, option, value))]
    output = result["stdout"] + result["stderr"]
    assert "Traceback" not in output, output
    expected = expected_code(command, option, value)
    assert result["code"] == expected, output
    if expected == 2:
        errors = [line for line in result["stderr"].splitlines()
                  if line.startswith("jaxviz: error: ")]
        assert len(errors) == 1, result["stderr"]
