"""docs/cli.md is the command's own help: every subcommand and every option appears in it,
and it is what scripts/cli_reference.py writes from the parser today."""

from __future__ import annotations

from pathlib import Path

from jaxviz.cli import make_parser
from scripts.cli_reference import reference, subparsers

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_every_subcommand_and_option_is_in_the_reference():
    text = DOC.read_text(encoding="utf-8")
    parser = make_parser()
    subs = subparsers(parser)
    assert {"jaxpr", "run", "step", "diff", "layout", "animate", "time", "present"} <= set(subs)
    for name, sub in subs.items():
        assert f"## `jaxviz {name}`" in text, name
        for action in sub._actions:
            for option in action.option_strings:
                assert option in text.split(f"## `jaxviz {name}`")[1].split("\n## ")[0], \
                    (name, option)
    for action in parser._actions:
        for option in action.option_strings:
            assert option in text, option


def test_the_reference_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == reference(), \
        "docs/cli.md differs from the parser's help: run scripts/cli_reference.py"
