"""jaxviz.views.text."""
