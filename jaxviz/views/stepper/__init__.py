"""jaxviz.views.stepper."""
