"""The Collectives tab: every collective of the variant the device view shows.

Rows and their text come from :mod:`jaxviz.views.collectives` (the cells ``jaxviz
collectives`` prints); this module only puts them in a table. Never imports JAX.
"""

from jaxviz.ui.collectives.view import CollectivesView

__all__ = ["CollectivesView"]
