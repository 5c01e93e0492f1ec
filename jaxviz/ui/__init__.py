"""The Qt views (PySide6 + pyqtgraph). Never imports JAX: results come from the engine."""
