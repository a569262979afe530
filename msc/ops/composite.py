"""``from msc.ops import composite as C``: MindSpore's composite namespace: the functional
ops, ``HyperMap``, ``MultitypeFuncGraph`` and ``GradOperation``."""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__ as _functional_all
from msc.frontend.api.grad import GradOperation
from msc.frontend.api.hypermap import HyperMap, MultitypeFuncGraph

__all__ = [*_functional_all, "GradOperation", "HyperMap", "MultitypeFuncGraph"]
