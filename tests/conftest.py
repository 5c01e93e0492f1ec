"""Suite-wide settings: 8 simulated CPU devices for in-process JAX; for Qt, no display,
one 2560x1440 offscreen screen and a private settings/data folder.

All are environment variables, set before any test module is imported, so nothing here
imports JAX or Qt: each test module imports what it needs. The Qt ones are suite-wide,
not the GUI folder's, because whichever test makes the application first (a core test
that draws the device view, say) decides its screen for the whole session: with the
offscreen platform's own 800x800 screen every later window would take its projector
layout.

``XDG_CONFIG_HOME``/``XDG_DATA_HOME`` point at the temporary folder, so the tests never
read or write the user's QSettings or crash-recovery copies.
"""

import os
import tempfile

from jaxviz.ui.display import prepare_qt
from scripts.scripted import offscreen_platform

# jax reads JAX_NUM_CPU_DEVICES when its backend starts (engine processes
# override it with their own --devices).
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")

QT_HOME = tempfile.mkdtemp(prefix="jaxviz-tests-")
QT_PLATFORM = offscreen_platform(QT_HOME, (2560, 1440))
os.environ["QT_QPA_PLATFORM"] = QT_PLATFORM
os.environ["XDG_CONFIG_HOME"] = os.path.join(QT_HOME, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(QT_HOME, "data")
prepare_qt()  # what the window's process tells Qt (jaxviz.ui.display.QT_ENVIRONMENT)


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def qapp_args():
    # -platform wins over QT_QPA_PLATFORM, which a test module may have set meanwhile.
    return ["jaxviz-tests", "-platform", QT_PLATFORM]


@pytest.fixture(scope="session")
def traced():
    """Every gallery example, all its declared variants, traced once (8 simulated devices).

    JAX runs in this process, and only when a test asks for the traces.
    """
    from jaxviz import core
    from jaxviz.model import list_examples
    from tests.helpers.jax_requests import example_request  # configures 8 devices before JAX starts

    return {ex.name: core.trace_request(example_request(ex.name)) for ex in list_examples()}
