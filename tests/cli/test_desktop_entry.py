"""``jaxviz --install-desktop-entry`` / ``--uninstall-desktop-entry``, run as a user runs them,
with a temporary ``XDG_DATA_HOME``; the entry checked by ``desktop-file-validate``."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxviz.cli.desktop_entry import desktop_entry
from jaxviz.model.resources import resources_dir

VALIDATE = shutil.which("desktop-file-validate")


def jaxviz(*args: str, data_home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_DATA_HOME=str(data_home))
    return subprocess.run([sys.executable, "-m", "jaxviz", *args], capture_output=True,
                          text=True, timeout=120, env=env)


def validate(entry: Path) -> None:
    """desktop-file-validate says nothing about the file (no error, warning or hint)."""
    if VALIDATE is None:
        pytest.skip("desktop-file-validate is not installed (Debian: desktop-file-utils; "
                    "scripts/setup.sh --test installs it)")
    out = subprocess.run([VALIDATE, str(entry)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == "", out.stdout + out.stderr


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys keep their case
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_install_writes_a_valid_entry_that_starts_this_jaxviz_and_uninstall_removes_it(
        tmp_path):
    out = jaxviz("--install-desktop-entry", data_home=tmp_path)
    assert out.returncode == 0, out.stderr
    entry = tmp_path / "applications" / "jaxviz.desktop"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "jaxviz.svg"
    assert f"wrote {entry}" in out.stdout and f"wrote {icon}" in out.stdout
    validate(entry)
    fields = read_entry(entry)
    assert fields["Type"] == "Application" and fields["Name"] == "jaxviz"
    assert fields["Icon"] == "jaxviz" and fields["Terminal"] == "false"
    assert icon.read_bytes() == (resources_dir() / "icons" / "jaxviz.svg").read_bytes()
    # From the menu the launcher drops %f: the command alone is this installation's
    # jaxviz, which runs (here asked for its version rather than a window).
    command = [a for a in shlex.split(fields["Exec"]) if a != "%f"]
    assert Path(command[0]).is_absolute() and os.access(command[0], os.X_OK)
    version = subprocess.run([*command, "--version"], capture_output=True, text=True,
                             timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("jaxviz ")

    out = jaxviz("--uninstall-desktop-entry", data_home=tmp_path)
    assert out.returncode == 0
    assert not entry.exists() and not icon.exists()
    assert f"removed {entry}" in out.stdout
    again = jaxviz("--uninstall-desktop-entry", data_home=tmp_path)
    assert again.returncode == 0 and f"{entry} was not there" in again.stdout


def test_an_install_path_with_spaces_and_dollars_is_quoted_as_the_spec_asks(tmp_path):
    entry = tmp_path / "jaxviz.desktop"
    command = ["/opt/my apps/$HOME/jaxviz"]
    entry.write_text(desktop_entry(command), encoding="utf-8")
    validate(entry)
    exec_line = read_entry(entry)["Exec"]
    assert exec_line == '"/opt/my apps/\\\\$HOME/jaxviz" %f'


def test_the_flags_take_nothing_else_and_are_listed_in_help(tmp_path):
    out = jaxviz("--install-desktop-entry", "now", data_home=tmp_path)
    assert out.returncode == 2 and "takes no other arguments" in out.stderr
    assert not (tmp_path / "applications").exists()
    helped = jaxviz("--help", data_home=tmp_path)
    assert "--install-desktop-entry" in helped.stdout
    assert "--uninstall-desktop-entry" in helped.stdout
