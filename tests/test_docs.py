"""The README and docs/ hold together: the README is short and gives the command CI runs,
every link and picture points at a file that exists, and every view has its guide."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_the_readme_is_short_and_the_manual_is_under_docs():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200
    guides = {p.stem for p in (ROOT / "docs" / "guide").glob("*.md")}
    assert {"window", "panes", "compare", "devices", "timing", "stepper", "present"} <= guides
    for name in ("index", "cli", "lectures", "exports", "trust", "developer", "design"):
        assert (ROOT / "docs" / f"{name}.md").is_file(), name


def test_ci_runs_the_readmes_set_up_and_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = "bash scripts/setup.sh --test && .venv/bin/python -m pytest"
    assert f"\n{command}\n" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == command


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces
    as hyphens."""
    heads = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def test_every_link_and_picture_points_at_a_file_and_heading():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            file, _, anchor = target.partition("#")
            path = (page.parent / file).resolve() if file else page
            if not path.exists() or (anchor and path.suffix == ".md"
                                      and anchor not in anchors(path)):
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken
