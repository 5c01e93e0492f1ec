"""jaxviz.views.present."""
