"""The main window and what it is made of besides its widgets.

Modules:
    main_window: :class:`~jaxviz.ui.window.main_window.MainWindow`, the wiring of
        panels, panes and tool tabs.
    actions: the menus and keyboard shortcuts, from one table.
    presenter: puts trace results and errors where they belong in the window.
    session: debounced, one-at-a-time, two-phase trace requests.
    qt_engine: the engine client's callbacks as Qt signals.
    document: the open document (example, file, untitled), saving and watching it.
    files: opening, saving and leaving documents (a MainWindow mixin).
    layout: zoom, full screen, docks, recent files, recovery offer (a MainWindow mixin).
    settings: what the window remembers (QSettings) and crash-recovery copies.
    (the window state itself is Qt-free, :mod:`jaxviz.views.window.window_state`;
    widgets follow it with :func:`jaxviz.ui.binding.follow`.)
    parts: what the main window is made of, declared once for its mixins.
    comparing: the compare layout in the window (View > Compare Variants, a pane's
        Compare button), following the state's compared pair, making room for it.
    stepping: step mode in the window (the pane's Step button, F9, the clicker keys)
        tied to the panes, the editor, the Values tab and the device view.

May import: :mod:`jaxviz.model`, :mod:`jaxviz.engine` (the client side), the other
:mod:`jaxviz.ui` sub-packages, Qt. Never JAX or :mod:`jaxviz.core`.
"""
