"""The panels around the panes: gallery, arguments, editor, console, tool tabs.

Modules:
    gallery: the example list with each example's explanation.
    args: the argument and parallel-settings fields, validated as they are typed.
    editor_panel: the editor with its function picker and notices.
    console: what the traced function printed.
    tool_tabs: Console, Devices and Timing under the panes (the views load on demand).

May import: :mod:`jaxviz.model`, :mod:`jaxviz.ui.text`, :mod:`jaxviz.ui.theme`, Qt;
the device and timing views only lazily (by module name, when their tab opens).
"""
