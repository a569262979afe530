"""``from msc import ops``: MindSpore's functional ops (``ops.add``) and primitive classes
(``ops.Add()``) in one namespace, as ``mindspore.ops`` has them.

The definitions live in ``msc.frontend.api``; this package only re-exports them, plus the
``functional`` (F) and ``composite`` (C) submodules.
"""

from msc.frontend.api.functional import *  # noqa: F401,F403
from msc.frontend.api.functional import __all__ as _functional_all
from msc.frontend.api.prim_classes import *  # noqa: F401,F403
from msc.frontend.api.prim_classes import __all__ as _classes_all
from msc.frontend.api.functional_math import *  # noqa: F401,F403,E402
from msc.frontend.api.functional_math import __all__ as _math_all  # noqa: E402
from msc.frontend.api.effects import *  # noqa: F401,F403,E402
from msc.frontend.api.effects import __all__ as _effects_all  # noqa: E402
from msc.frontend.api.hypermap import HyperMap, MultitypeFuncGraph, partial  # noqa: E402
from msc.ops.primitive import constexpr  # noqa: E402
from msc.frontend.api.grad import GradOperation, grad, value_and_grad  # noqa: E402
from msc.frontend.api.vmap import vmap  # noqa: E402
from msc.frontend.api.loss import (  # noqa: E402
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from msc.frontend.api.conv import *  # noqa: F401,F403,E402
from msc.frontend.api.conv import __all__ as _conv_all  # noqa: E402
from msc.frontend.api.functional_array import *  # noqa: F401,F403,E402
from msc.frontend.api.functional_array import __all__ as _array_all  # noqa: E402
from msc.frontend.api.array_classes import *  # noqa: F401,F403,E402
from msc.frontend.api.array_classes import __all__ as _array_classes_all  # noqa: E402
from msc.ops import composite, functional, primitive  # noqa: F401,E402

__all__ = [*_functional_all, *_classes_all, *_math_all, *_effects_all, "HyperMap", "MultitypeFuncGraph", "partial",
           "composite", "functional", "constexpr", "GradOperation", "grad", "value_and_grad", "vmap", "l1_loss", "mse_loss",
           "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", *_array_all,
           *_array_classes_all]

from msc.frontend.api.embedding import EmbeddingLookupPrim as EmbeddingLookup  # noqa: E402
from msc.frontend.api.norm import BatchNorm, batch_norm, group_norm  # noqa: E402

__all__ += ["BatchNorm", "batch_norm", "group_norm", "EmbeddingLookup"]
__all__ += _conv_all

from msc.frontend.api import misc_layers as _misc, resize as _resize  # noqa: E402
from msc.frontend.api.misc_layers import clip_by_global_norm, clip_by_norm, dropout, rand  # noqa: E402,E501
from msc.frontend.api.resize import (  # noqa: E402
    MirrorPad,
    Pad,
    ResizeBilinearV2,
    ResizeNearestNeighbor,
    interpolate,
    pad,
    padding,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
)

__all__ += [*_resize.OPS, *_misc.OPS]

from msc.frontend.api.coverage_forms import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_forms import __all__ as _coverage_all  # noqa: E402
from msc.frontend.api.coverage_classes import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_classes import __all__ as _coverage_classes_all  # noqa: E402
from msc.frontend.api.einsum import *  # noqa: F401,F403,E402
from msc.frontend.api.einsum import __all__ as _einsum_all  # noqa: E402
from msc.frontend.api.coverage_more import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_more import __all__ as _coverage_more_all  # noqa: E402

__all__ += [*_coverage_all, *_coverage_classes_all, *_einsum_all]
__all__ += _coverage_more_all

from msc.frontend.api.coverage_extra import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_extra import __all__ as _coverage_extra_all  # noqa: E402
from msc.frontend.api.coverage_layout import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_layout import __all__ as _coverage_layout_all  # noqa: E402
from msc.frontend.api.coverage_random import *  # noqa: F401,F403,E402
from msc.frontend.api.coverage_random import __all__ as _coverage_random_all  # noqa: E402

__all__ += [*_coverage_extra_all, *_coverage_layout_all, *_coverage_random_all]


def __getattr__(name: str) -> object:
    """A MindSpore ``ops`` name msc lacks: msc's "not supported yet" error."""
    from msc.api_names import missing_attribute

    raise missing_attribute("msc.ops", ("ops_functions", "ops_classes"), name)
