"""jaxviz.worker."""
