"""Every export format, by name, for the CLI and the Export menus.

The registry is :mod:`jaxviz.views.exports` (plain data: subjects, names,
extensions, descriptions, writers; the timing run's CSV, JSON and Chrome
trace register there). Importing this package registers the formats drawn
with Qt (:mod:`~jaxviz.ui.exporters.formats`): timing plots as PNG, SVG and
PDF; the device view registers its frames and animation itself when
:mod:`jaxviz.ui.devices` is imported (:mod:`~jaxviz.ui.devices.formats`).
``jaxviz time``, ``jaxviz animate``, the timing view's Export menu and the
device view's exports all choose from the same registry, so adding a format
is one writer and one ``register`` call in ``formats``.

May import: :mod:`jaxviz.model`, :mod:`jaxviz.ui.plots`, never :mod:`jaxviz.ui.devices`,
:mod:`jaxviz.ui.vector`, Qt, PyAV.
"""

from jaxviz.ui.exporters.formats import write_plot_file, write_plots
from jaxviz.views.exports import SUBJECTS, Exporter, exporters, find, for_suffix, register

__all__ = ["SUBJECTS", "Exporter", "exporters", "find", "for_suffix", "register", "write_plot_file",
           "write_plots"]
