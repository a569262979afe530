"""``from msc.ops import composite as C``: MindSpore's composite namespace: the functional
ops, ``HyperMap`` and ``MultitypeFuncGraph`` (``GradOperation`` joins with autodiff)."""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__ as _functional_all
from msc.frontend.api.hypermap import HyperMap, MultitypeFuncGraph

__all__ = [*_functional_all, "HyperMap", "MultitypeFuncGraph"]
