"""Text widgets: the code editor and the read-only code views, with highlighting.

Modules:
    text_base: :class:`~jaxviz.ui.text.text_base.LinkedTextEdit`, line colours,
        hover and click signals shared by the editor and the panes.
    editor: the Python editor (line numbers, error markers).
    code_view: a read-only view with folding and gutter marks (jaxpr, HLO).
    highlighters: Pygments-driven syntax highlighting (lexers in :mod:`jaxviz.views.text.lexers`).

May import: :mod:`jaxviz.model`, :mod:`jaxviz.ui.theme`, Qt, Pygments.
"""
