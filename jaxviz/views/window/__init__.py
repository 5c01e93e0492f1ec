"""jaxviz.views.window."""
