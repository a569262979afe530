"""``from msc import ops``: MindSpore's functional ops (``ops.add``) and primitive classes
(``ops.Add()``) in one namespace, as ``mindspore.ops`` has them.

The definitions live in ``msc.frontend.api``; this package only re-exports them, plus the
``functional`` (F) and ``composite`` (C) submodules.
"""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__ as _functional_all
from msc.frontend.api.prim_classes import *  # noqa: F401,F403
from msc.frontend.api.prim_classes import __all__ as _classes_all
from msc.frontend.api.effects import *  # noqa: F401,F403,E402
from msc.frontend.api.effects import __all__ as _effects_all  # noqa: E402
from msc.frontend.api.hypermap import HyperMap, MultitypeFuncGraph, partial  # noqa: E402
from msc.frontend.api.constants import constexpr  # noqa: E402
from msc.frontend.api.grad import GradOperation, grad, value_and_grad  # noqa: E402
from msc.frontend.api.vmap import vmap  # noqa: E402
from msc.frontend.api.loss import (  # noqa: E402
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from msc.ops import composite, functional, primitive  # noqa: F401,E402

__all__ = [*_functional_all, *_classes_all, *_effects_all, "HyperMap", "MultitypeFuncGraph", "partial",
           "composite", "functional", "constexpr", "GradOperation", "grad", "value_and_grad", "vmap", "l1_loss", "mse_loss",
           "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"]
