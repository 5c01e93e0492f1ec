"""Presentation mode: a lecture run full screen with a clicker, and its handouts.

Modules:
    deck: the lecture made concrete (traced, stepped, timed) as slides; Qt-free.
    paint, paint_views: one slide drawn with a QPainter (screen, PNG and PDF alike);
        style: the slides' type sizes, fonts and colours.
    export: the deck as a PDF (a page per slide) or PNG files.
    window: the full-screen presentation window and its keys.
    console: the presenter console for a second screen.
    loading: the deck loaded off the GUI thread, through the JAX engine.

The lecture file and the keys are Qt-free: :mod:`jaxviz.views.present.lecture`,
:mod:`jaxviz.views.present.presentation`.

May import: :mod:`jaxviz.model`, :mod:`jaxviz.views.devices`, :mod:`jaxviz.engine` (client),
the ui's device view, plots, stepper and theme; Qt. Never JAX.
"""
