"""Where jaxviz's resources are (the gallery, the lectures, the icons): inside the
installed package, or at the top of a source checkout. On its own so that the window's
first frame finds its icon without loading the gallery."""

from __future__ import annotations

from pathlib import Path

import jaxviz


class ResourcesMissing(LookupError):
    """jaxviz's resources folder is in neither place (a broken install)."""


def resources_dir() -> Path:
    """The ``resources`` folder: inside the installed package, or at the repo top."""
    here = Path(jaxviz.__file__).resolve().parent
    for candidate in (here / "resources", here.parent / "resources"):
        if (candidate / "examples").is_dir():
            return candidate
    raise ResourcesMissing(f"jaxviz's resources folder is missing (looked in {here})")
