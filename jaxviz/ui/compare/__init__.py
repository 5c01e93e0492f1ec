"""jaxviz.ui.compare."""
