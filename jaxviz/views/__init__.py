"""jaxviz.views."""
