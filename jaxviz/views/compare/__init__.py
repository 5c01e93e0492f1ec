"""jaxviz.views.compare."""
