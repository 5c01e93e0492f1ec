"""jaxviz.views.timing."""
