"""How the application looks, in Qt terms: fonts, the Qt palette, colours as QColor.

The colours themselves are plain data in :mod:`jaxviz.views.palette`; this
package turns them into Qt objects, in one place.

Modules:
    style: fonts for a zoom level, the Fusion palette and style sheet, link and
        mark colours, syntax colours.
    qt_guard: the start-up guard against PySide6 6.12.0's reference bug, and the
        Qt application for rendering without a window (``ensure_app``).

May import: :mod:`jaxviz.model`, Qt, Pygments.
"""
