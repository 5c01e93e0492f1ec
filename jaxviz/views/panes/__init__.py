"""jaxviz.views.panes."""
