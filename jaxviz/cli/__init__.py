"""The ``jaxviz`` command.

``jaxviz`` alone opens the window (when there is a display); the subcommands
work without one. Each subcommand lives in its own module with ``add_parser``
and ``run``; this module only dispatches, so ``jaxviz --help`` never imports JAX.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import typing

#: Subcommand name -> module (under jaxviz.cli) that implements it.
SUBCOMMANDS = {
    "animate": "cmd_animate",
    "collectives": "cmd_collectives",
    "cost": "cmd_cost",
    "diff": "cmd_diff",
    "examples": "cmd_examples",
    "jaxpr": "cmd_jaxpr",
    "layout": "cmd_layout",
    "run": "cmd_run",
    "step": "cmd_step",
    "devices": "cmd_devices",
    "multihost": "cmd_multihost",
    "present": "cmd_present",
    "time": "cmd_time",
}


class Parser(argparse.ArgumentParser):
    """An argument parser whose complaints are one line: ``jaxviz: error: ...``.

    The subcommands' parsers are of this class too (argparse makes them so).
    """

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"jaxviz: error: {message} (see `{self.prog} --help`)\n")


#: ``jaxviz --install-desktop-entry`` / ``--uninstall-desktop-entry`` (cli.desktop_entry).
DESKTOP_FLAGS = ("--install-desktop-entry", "--uninstall-desktop-entry")


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="jaxviz",
        description="See JAX parallelism: jaxprs, vmap/pmap/sharded variants, shards on "
                    "devices, and dispatch-versus-completion timings.",
        epilog="Run `jaxviz SUBCOMMAND --help` for a subcommand's options. "
               "Targets: path/to/file.py:function or example:NAME.")
    from jaxviz import __version__

    parser.add_argument("--version", action="version", version=f"jaxviz {__version__}")
    parser.add_argument("--install-desktop-entry", action="store_true",
                        help="put jaxviz in the applications menu (a .desktop entry and its "
                             "icon under $XDG_DATA_HOME, ~/.local/share by default)")
    parser.add_argument("--uninstall-desktop-entry", action="store_true",
                        help="take jaxviz out of the applications menu again")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND")
    for module in SUBCOMMANDS.values():
        mod = importlib.import_module(f"jaxviz.cli.{module}")
        mod.add_parser(sub)
    return parser


def opens_window(argv: list[str]) -> bool:
    """``jaxviz``, ``jaxviz TARGET`` and ``jaxviz --devices N [TARGET]`` open the window.

    A target is ``example:NAME``, ``file.py``, ``file.py:function`` or a timing
    recording ``.json``; anything else goes to the subcommand parser (which
    names the subcommands when it is misspelt).
    """
    if not argv:
        return True
    first = argv[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return False
    if first in ("--devices", "--listen") or first.startswith(("--devices=", "--listen=")):
        return True  # --listen SOCKET: started by jaxviz.show()
    return first.startswith("example:") or first.endswith((".py", ".json")) or ".py:" in first


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DESKTOP_FLAGS:
        from jaxviz.cli import desktop_entry

        return desktop_entry.run(argv)
    if opens_window(argv):
        from jaxviz.ui.app import main as open_window  # Qt is imported there, JAX never

        return open_window(argv)
    parser = make_parser()
    ns = parser.parse_args(argv)
    module = importlib.import_module(f"jaxviz.cli.{SUBCOMMANDS[ns.command]}")
    try:
        return int(module.run(ns) or 0)
    except KeyboardInterrupt:
        print("jaxviz: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
