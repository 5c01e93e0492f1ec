# The types of jaxviz's public API (jaxviz/__init__.py loads it on first use).
from jaxviz.notebook import JaxvizError as JaxvizError
from jaxviz.notebook import ShippingError as ShippingError
from jaxviz.notebook import sharding as sharding
from jaxviz.notebook import show as show
from jaxviz.notebook import timing as timing
from jaxviz.notebook import view as view

__version__: str
__all__: list[str]
