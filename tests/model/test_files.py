"""The one way jaxviz reads a file (jaxviz.model.files), and that it is the only way."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from jaxviz.model.files import (
    MAX_DEPTH,
    FileProblem,
    check_depth,
    parse_json,
    read_bytes,
    read_text,
)

ROOT = Path(__file__).resolve().parents[2] / "jaxviz"


def test_a_regular_file_is_read_and_a_link_to_one_is_followed(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")
    assert read_text(tmp_path / "link.py", limit=100) == "x = 1\n"


@pytest.mark.parametrize("make, kind", [
    (lambda p: p.symlink_to("/dev/zero"), "a character device"),
    (lambda p: os.mkfifo(p), "a FIFO (named pipe)"),
    (lambda p: p.mkdir(), "a folder"),
])
def test_what_is_not_a_regular_file_is_refused_at_once(tmp_path, make, kind):
    path = tmp_path / "x.py"
    make(path)
    start = time.monotonic()
    with pytest.raises(FileProblem, match=re.escape(f"cannot read {path}: it is {kind}, not "
                                                    f"a regular file")):
        read_bytes(path, limit=100)
    assert time.monotonic() - start < 2  # a FIFO nobody writes does not block


def test_a_file_over_the_limit_is_refused_with_its_size(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 3000)
    with pytest.raises(FileProblem, match="it is 2.93 KB; jaxviz reads a recording of at "
                                          "most 2 KB"):
        read_bytes(path, limit=2048, what="recording")
    assert len(read_bytes(path, limit=3000)) == 3000


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(FileProblem, match="cannot read .*gone.py: No such file or directory"):
        read_bytes(tmp_path / "gone.py", limit=10)


def test_nesting_is_measured_without_recursion():
    deep = "[" * 200_000 + "]" * 200_000
    with pytest.raises(FileProblem, match=f"x.json: it is nested deeper than {MAX_DEPTH}"):
        parse_json(deep, "x.json")
    fits = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert json.dumps(parse_json(fits, "y.json")).count("[") == MAX_DEPTH
    nested: list = []
    for _ in range(MAX_DEPTH):  # one deeper than allowed
        nested = [nested]
    with pytest.raises(FileProblem):
        check_depth({"a": nested}, "settings")


#: Where jaxviz may open files itself: /proc and its own capture files, its own writes.
ALLOWED = {
    "model/files.py",        # the one reader
    "engine/reaper.py",      # /proc/PID/stat and environ
    "engine/capture.py",     # the engine's own capture files
    "engine/process.py",     # the capture file a starting engine writes to
    "worker/timing_child.py",  # the timing child's own stderr file
    "core/devices.py",       # /proc/cpuinfo
    "ui/feature_check.py",   # the source of a module Python has just imported (PySide6's check)
}
READS = re.compile(r"(?<!\bfiles)\.read_text\(|(?<!\bfiles)\.read_bytes\(|"
                   r"json\.load\(|tomllib\.load\(|"
                   r"\bopen\([^)]*\)(?!.*[\"'][wa]b?[\"'])")


def test_every_file_is_read_through_model_files():
    """A file read elsewhere would escape the regular-file, size and time limits."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if READS.search(code) and not re.search(r"[\"'][wa]b?[\"']|os\.open|av\.open|"
                                                    r"buffer\.open|Popen", code):
                found.append(f"{relative}:{number}: {line.strip()}")
    assert found == []


def test_jaxvizs_own_files_are_read_on_the_callers_thread_with_the_same_checks(
        tmp_path, monkeypatch):
    """A gallery example sits beside jaxviz's modules: it is read without a thread of its
    own (one per read cost the window 1-1.5 ms each time an example opened), and what is
    refused is refused as before."""
    import threading

    from jaxviz.model.files import OWN_FILE
    from jaxviz.model.gallery import get_example
    from jaxviz.model.sources import read_source

    def no_thread(*_args, **_kwargs):
        raise AssertionError("a thread was started to read one of jaxviz's own files")

    monkeypatch.setattr(threading, "Thread", no_thread)
    example = get_example("convolve")
    assert "def convolve" in read_source(example.path, timeout=OWN_FILE)
    (tmp_path / "big.py").write_bytes(b"x" * 200)
    with pytest.raises(FileProblem, match="it is 200 bytes; jaxviz reads a file of at most 100"):
        read_bytes(tmp_path / "big.py", limit=100, timeout=OWN_FILE)
    with pytest.raises(FileProblem, match="cannot read .*no.py: No such file or directory"):
        read_text(tmp_path / "no.py", limit=100, timeout=OWN_FILE)
    with pytest.raises(AssertionError, match="a thread was started"):
        read_bytes(tmp_path / "big.py", limit=1000)  # a user's file: in a thread, as before
