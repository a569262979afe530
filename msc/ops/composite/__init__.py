"""``from msc.ops import composite as C`` (``mindspore.ops.composite``): the functional ops,
``HyperMap``, ``Map``, ``MultitypeFuncGraph``, ``GradOperation`` (``base.py``) and ``vmap``."""

from msc.ops.composite.base import GradOperation, HyperMap, Map, MultitypeFuncGraph
from msc.ops.function.vmap_func import vmap
from msc.ops.functional import *  # noqa: F401,F403
from msc.ops.functional import __all__ as _functional_all

__all__ = [*_functional_all, "GradOperation", "HyperMap", "Map", "MultitypeFuncGraph",
           "vmap"]
