"""The jaxpr panes: one per variant, side by side or in tabs, linked to the source.

Modules:
    jaxpr_pane: one variant's pane (jaxpr, StableHLO, HLO or costs; banner; marks).
    area: :class:`~jaxviz.ui.panes.area.JaxprArea`, which panes show and how.
    linking: source line <-> equation colours and hover/click highlighting
        (the index behind it is :mod:`jaxviz.views.panes.link_index`).
    compare_view: the compare layout of two variants (summary, legend, pickers,
        what changed in words); usable alone, fed a
        :class:`~jaxviz.views.compare.jaxpr_diff.JaxprDiff`.
    diff_columns: its two aligned sides and the bands between them (the layout
        itself is :mod:`jaxviz.views.compare.diff_layout`).

May import: :mod:`jaxviz.model`, :mod:`jaxviz.ui.text`, :mod:`jaxviz.ui.theme`, Qt.
"""
