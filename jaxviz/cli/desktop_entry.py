"""``jaxviz --install-desktop-entry`` and ``--uninstall-desktop-entry``: jaxviz in the
applications menu, as desktop apps put themselves there.

Following the freedesktop.org specifications (Desktop Entry, Icon Theme, XDG
Base Directory), installing writes two files under ``$XDG_DATA_HOME``
(``~/.local/share`` when it is unset) and nothing else:

* ``applications/jaxviz.desktop``: runs this installation's ``jaxviz`` (by its
  absolute path, so a virtual environment needs no activation) with no
  arguments -- the window opens on the function that was open last;
* ``icons/hicolor/scalable/apps/jaxviz.svg``: the icon, which the entry names
  as ``jaxviz``.

Uninstalling removes both. Neither needs a display, JAX or Qt.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from jaxviz.model.resources import resources_dir

INSTALL, UNINSTALL = "--install-desktop-entry", "--uninstall-desktop-entry"
FLAGS = (INSTALL, UNINSTALL)
#: The entry's and the icon's name; also the window's desktop file name (ui.app).
APP_ID = "jaxviz"
#: Characters that make an Exec argument need quotes (Desktop Entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not absolute."""
    value = (os.environ if env is None else env).get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def installed_paths(env: Mapping[str, str] | None = None) -> tuple[Path, Path]:
    """Where the entry and the icon go: ``applications/jaxviz.desktop`` and the
    hicolor theme's ``scalable/apps/jaxviz.svg``."""
    home = data_home(env)
    return (home / "applications" / f"{APP_ID}.desktop",
            home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg")


def jaxviz_command() -> list[str]:
    """The command that starts this installation's jaxviz: its ``jaxviz`` script beside
    the running Python (a virtual environment's bin/), else the one on PATH, else
    ``python -m jaxviz``."""
    beside = Path(sys.executable).parent / "jaxviz"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("jaxviz")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "jaxviz"]


def exec_value(command: list[str]) -> str:
    """An ``Exec=`` value: each argument quoted where the spec asks, ``%f`` for a file
    dropped on the launcher (nothing when started from the menu)."""
    def quote(arg: str) -> str:
        arg = arg.replace("%", "%%")
        if not any(c in _RESERVED for c in arg):
            return arg
        inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
        return f'"{inner}"'

    # The value is a string too: its backslashes are escaped once more.
    return " ".join([*map(quote, command), "%f"]).replace("\\", "\\\\")


def desktop_entry(command: list[str]) -> str:
    """The text of ``jaxviz.desktop`` for a command that starts jaxviz."""
    return "\n".join([
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",
        "Name=jaxviz",
        "GenericName=JAX parallelism viewer",
        "Comment=See jaxprs, vmap/pmap/sharded variants, shards on devices and "
        "dispatch-versus-completion timings",
        f"Exec={exec_value(command)}",
        f"Icon={APP_ID}",
        "Terminal=false",
        "Categories=Education;ComputerScience;",
        "Keywords=JAX;jaxpr;vmap;pmap;sharding;XLA;parallelism;",
        "StartupNotify=true",
        f"StartupWMClass={APP_ID}",
        "",
    ])


def install(env: Mapping[str, str] | None = None) -> list[str]:
    """Write the entry and the icon; returns what was done, one line each."""
    entry, icon = installed_paths(env)
    icon.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(resources_dir() / "icons" / f"{APP_ID}.svg", icon)
    command = jaxviz_command()
    entry.parent.mkdir(parents=True, exist_ok=True)
    entry.write_text(desktop_entry(command), encoding="utf-8")
    return [f"wrote {entry} (runs {' '.join(command)})", f"wrote {icon}"]


def uninstall(env: Mapping[str, str] | None = None) -> list[str]:
    """Remove the entry and the icon; returns what was done, one line each."""
    done = []
    for path in installed_paths(env):
        if path.exists():
            path.unlink()
            done.append(f"removed {path}")
        else:
            done.append(f"{path} was not there")
    return done


def run(argv: list[str]) -> int:
    """``jaxviz --install-desktop-entry`` / ``--uninstall-desktop-entry``; the exit code."""
    flag, rest = argv[0], argv[1:]
    if rest:
        print(f"jaxviz: error: {flag} takes no other arguments (got {' '.join(rest)})",
              file=sys.stderr)
        return 2
    try:
        lines = install() if flag == INSTALL else uninstall()
    except OSError as exc:
        print(f"jaxviz: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
              file=sys.stderr)
        return 1
    print("\n".join(lines))
    if flag == INSTALL:
        print("jaxviz is in the applications menu (Education); "
              "`jaxviz --uninstall-desktop-entry` removes it")
    return 0
